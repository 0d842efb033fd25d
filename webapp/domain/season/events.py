"""The season's events (``shared/contracts/season-protocol.md``, ``sova.season-protocol/1``):
their types and fields, and how one raw JSON event becomes an :class:`Event` (shape only —
whether the rules allow it is the engine's question, :mod:`.engine`).

Malformed input is a :class:`~webapp.domain.rules.ProtocolError` (``"rule": null``): not an
object, an unknown event type, a missing or mistyped field, a score that is not ``"E:V"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from webapp.domain.rules.errors import ProtocolError
from webapp.domain.season.words import PART_BE, PART_NOM_BE, PART_NOM_RU, PART_RU

FORMAT = "sova.season-protocol/1"

PARTS = ("spring", "summer", "autumn", "winter")
CLOSINGS = ("series_final", "special", "year_final", "none")
KINDS = ("qualifying", "series_final", "special", "year_final", "rematch")
EVENT_TYPES = (
    "series",
    "game",
    "withdraw",
    "rematch",
    "decline_winter",
    "enter",
    "amend",
    "start",
)
"""The contract's event types, and ``start``: Sova's extension (``docs/protocols.md``), the
recorded starting point of a season Sova joins under way."""
ENTER_AS = ("reserve", "sponsor")

WIN = 6
MAX_POINTS = 12  # the highest points_to_win an amendment may set (2023 §4.12.1)
_KIND_RU = {
    str: "строка",
    int: "целое число",
    bool: "true или false",
    list: "список",
    dict: "объект",
}
_KIND_BE = {
    str: "радок",
    int: "цэлы лік",
    bool: "true або false",
    list: "спіс",
    dict: "аб'ект",
}
_SCORE_RE = re.compile(r"^(\d{1,2}):(\d{1,2})$")


@dataclass(frozen=True)
class Event:
    """One parsed event; only the fields of its ``type`` are set (contract's event table)."""

    type: str
    part: str | None = None
    qualifying: int | None = None
    closing: str | None = None
    teams: tuple[str, ...] | None = None
    kind: str | None = None
    team: str | None = None
    score: tuple[int, int] | None = None
    decisive_round: bool = False
    rounds_lost: int | None = None
    granted: bool | None = None
    enter_as: str | None = None
    set: dict[str, Any] | None = None
    note: str | None = None
    # start (Sova's extension): the rating the series opened with, every game so far (each a
    # ``game`` Event with its ``part``), the winter places kept, a rematch, the sponsor
    rating: tuple[str, ...] | None = None
    results: tuple[Event, ...] = ()
    winter: tuple[str, ...] | None = None
    rematch: str | None = None
    sponsor: str | None = None


def _typed(raw: dict[str, Any], name: str, kind: type, index: int, required: bool = True) -> Any:
    value = raw.get(name)
    if value is None:
        if required:
            raise ProtocolError(
                f"{raw.get('type')} needs the field {name!r}",
                index,
                ru=f"в событии «{raw.get('type')}» нет поля «{name}»",
                be=f"у падзеі «{raw.get('type')}» няма поля «{name}»",
            )
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(
            f"{raw.get('type')}.{name} must be of type {kind.__name__}, got {value!r}",
            index,
            ru=f"поле «{name}» события «{raw.get('type')}» — {_KIND_RU[kind]}, получено {value!r}",
            be=f"поле «{name}» падзеі «{raw.get('type')}» — {_KIND_BE[kind]}, атрымана {value!r}",
        )
    return value


def _team_name(raw: dict[str, Any], index: int) -> str:
    team: str = _typed(raw, "team", str, index)
    if not team.strip():
        raise ProtocolError(
            f"{raw.get('type')}.team must be a non-empty team name",
            index,
            ru=f"в событии «{raw.get('type')}» не названа команда",
            be=f"у падзеі «{raw.get('type')}» не названа каманда",
        )
    return team


def parse_score(text: Any, index: int | None = None) -> tuple[int, int]:
    """``"E:V"`` (experts first, 0..12 each: six, or an amended ``points_to_win``, 2023
    §4.12.1) → ``(E, V)``; :class:`ProtocolError` otherwise. Whether the score ends a game is
    a rule (2023 §3.10, 2009 §1.8, as amended), checked at replay."""
    match = _SCORE_RE.match(text) if isinstance(text, str) else None
    if match is None or int(match.group(1)) > MAX_POINTS or int(match.group(2)) > MAX_POINTS:
        raise ProtocolError(
            f'score must be "E:V" with 0..{MAX_POINTS} a side, such as "6:3"; got {text!r}',
            index,
            ru=f"счёт — «знатоки:телезрители», от 0 до {MAX_POINTS} у каждой стороны, например "
            f"«6:3»; получено {text!r}",
            be=f"лік — «знаўцы:тэлегледачы», ад 0 да {MAX_POINTS} у кожнага боку, напрыклад "
            f"«6:3»; атрымана {text!r}",
        )
    return int(match.group(1)), int(match.group(2))


def parse_event(raw: Any, index: int) -> Event:
    """One event object → :class:`Event` (shape only). Unknown extra fields are ignored."""
    if not isinstance(raw, dict):
        raise ProtocolError(
            f"an event is a JSON object, got {type(raw).__name__}",
            index,
            ru="событие — объект JSON",
            be="падзея — аб'ект JSON",
        )
    kind = raw.get("type")
    if kind not in EVENT_TYPES:
        raise ProtocolError(
            f"unknown event type {kind!r}; expected one of {', '.join(EVENT_TYPES)}",
            index,
            ru=f"неизвестный тип события {kind!r}; допустимы: {', '.join(EVENT_TYPES)}",
            be=f"невядомы тып падзеі {kind!r}; дапушчальныя: {', '.join(EVENT_TYPES)}",
        )
    if kind == "series":
        part, qualifying, closing = _series_shape(raw, "series", index)
        teams = _typed(raw, "teams", list, index, required=False)
        if teams is not None:
            teams = tuple(check_names(teams, "series.teams", index))
        return Event(type=kind, part=part, qualifying=qualifying, closing=closing, teams=teams)
    if kind == "game":
        return _parse_game(raw, index)
    if kind == "start":
        return _parse_start(raw, index)
    if kind == "rematch":
        return Event(
            type=kind, team=_team_name(raw, index), granted=_typed(raw, "granted", bool, index)
        )
    if kind == "enter":
        enter_as = raw.get("as")
        if enter_as not in ENTER_AS:
            raise ProtocolError(
                f"enter.as must be one of {', '.join(ENTER_AS)}; got {enter_as!r}",
                index,
                ru=f"поле «as» события «enter» — одно из: {', '.join(ENTER_AS)}; "
                f"получено {enter_as!r}",
                be=f"поле «as» падзеі «enter» — адно з: {', '.join(ENTER_AS)}; "
                f"атрымана {enter_as!r}",
            )
        return Event(type=kind, team=_team_name(raw, index), enter_as=enter_as)
    if kind == "amend":
        changes = _typed(raw, "set", dict, index)
        if not changes:
            raise ProtocolError(
                "amend.set must name at least one parameter",
                index,
                ru="изменение правил не названо: поле «set» пусто",
                be="змяненне правілаў не названа: поле «set» пустое",
            )
        note = _typed(raw, "note", str, index, required=False) or ""
        return Event(type=kind, set=dict(changes), note=note)
    return Event(type=kind, team=_team_name(raw, index))  # withdraw, decline_winter


def _series_shape(raw: dict[str, Any], what: str, index: int) -> tuple[str, int, str]:
    """``(part, qualifying, closing)`` of a ``series`` or ``start`` event."""
    part = raw.get("part")
    if part not in PARTS:
        raise ProtocolError(
            f"{what}.part must be one of {', '.join(PARTS)}; got {part!r}",
            index,
            ru=f"поле «part» события «{what}» — одно из: {', '.join(PARTS)}; получено {part!r}",
            be=f"поле «part» падзеі «{what}» — адно з: {', '.join(PARTS)}; атрымана {part!r}",
        )
    qualifying = _typed(raw, "qualifying", int, index)
    if qualifying < 1:
        raise ProtocolError(
            f"{what}.qualifying must be at least 1, got {qualifying}",
            index,
            ru=f"отборочных игр — не меньше 1, получено {qualifying}",
            be=f"адборачных гульняў — не менш за 1, атрымана {qualifying}",
        )
    closing = raw.get("closing")
    if closing not in CLOSINGS:
        raise ProtocolError(
            f"{what}.closing must be one of {', '.join(CLOSINGS)}; got {closing!r}",
            index,
            ru=f"поле «closing» события «{what}» — одно из: {', '.join(CLOSINGS)}; "
            f"получено {closing!r}",
            be=f"поле «closing» падзеі «{what}» — адно з: {', '.join(CLOSINGS)}; "
            f"атрымана {closing!r}",
        )
    return part, qualifying, closing


def _parse_game(raw: dict[str, Any], index: int) -> Event:
    game_kind = raw.get("kind")
    if game_kind not in KINDS:
        raise ProtocolError(
            f"game.kind must be one of {', '.join(KINDS)}; got {game_kind!r}",
            index,
            ru=f"вид игры — один из: {', '.join(KINDS)}; получено {game_kind!r}",
            be=f"від гульні — адзін з: {', '.join(KINDS)}; атрымана {game_kind!r}",
        )
    team = _team_name(raw, index)
    score = parse_score(_typed(raw, "score", str, index), index)
    decisive = _typed(raw, "decisive_round", bool, index, required=False) or False
    rounds_lost = _typed(raw, "rounds_lost", int, index, required=False)
    if rounds_lost is not None and rounds_lost < 0:
        raise ProtocolError(
            f"game.rounds_lost must be 0 or more, got {rounds_lost}",
            index,
            ru=f"проигранных раундов — не меньше 0, получено {rounds_lost}",
            be=f"прайграных раўндаў — не менш за 0, атрымана {rounds_lost}",
        )
    return Event(
        type="game",
        kind=game_kind,
        team=team,
        score=score,
        decisive_round=decisive,
        rounds_lost=rounds_lost,
    )


def _optional_name(raw: dict[str, Any], name: str, index: int) -> str | None:
    value: str | None = _typed(raw, name, str, index, required=False)
    if value is not None and not value.strip():
        raise ProtocolError(
            f"start.{name} must be a non-empty team name",
            index,
            ru=f"поле «{name}» начальной точки — название команды",
            be=f"поле «{name}» пачатковай кропкі — назва каманды",
        )
    return value


def _parse_start(raw: dict[str, Any], index: int) -> Event:
    """Sova's ``start`` event (``docs/protocols.md``): ``part``, ``qualifying``, ``closing``
    of the series Sova starts at; ``rating`` (names, first place first); ``results``: the
    games so far, oldest first, each ``{"part", "kind", "team", "score", "decisive_round"?}``
    (parts in season order, none after ``part``), and in the series Sova starts at its
    withdrawals in their place, ``{"part", "withdraw": team}`` (a ``withdraw`` Event); optional ``winter`` (names), ``rematch``
    and ``sponsor`` (a name), ``note`` (free text)."""
    part, qualifying, closing = _series_shape(raw, "start", index)
    rating = tuple(check_names(_typed(raw, "rating", list, index), "start.rating", index))
    entries = _typed(raw, "results", list, index, required=False) or []
    results: list[Event] = []
    last = 0
    for j, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ProtocolError(
                f"start.results[{j}] is a JSON object, got {entry!r}",
                index,
                ru=f"строка {j + 1} сыгранного — объект JSON",
                be=f"радок {j + 1} згуланага — аб'ект JSON",
            )
        played = entry.get("part")
        if played not in PARTS or PARTS.index(played) > PARTS.index(part):
            allowed = PARTS[: PARTS.index(part) + 1]
            raise ProtocolError(
                f"start.results[{j}].part must be one of {', '.join(allowed)}; got {played!r}",
                index,
                ru=f"строка {j + 1} сыгранного: серия — одна из: "
                f"{', '.join(PART_NOM_RU[p] for p in allowed)}; получено {played!r}",
                be=f"радок {j + 1} згуланага: серыя — адна з: "
                f"{', '.join(PART_NOM_BE[p] for p in allowed)}; атрымана {played!r}",
            )
        if PARTS.index(played) < last:
            raise ProtocolError(
                f"start.results[{j}]: the results go oldest first, and the {played} series "
                f"comes before the {PARTS[last]} series",
                index,
                ru=f"строка {j + 1} сыгранного: игры идут от старых к новым, а "
                f"{PART_NOM_RU[played]} серия предшествует {PART_RU[PARTS[last]]}",
                be=f"радок {j + 1} згуланага: гульні ідуць ад старых да новых, а "
                f"{PART_NOM_BE[played]} серыя папярэднічае {PART_BE[PARTS[last]]}",
            )
        last = PARTS.index(played)
        if "withdraw" in entry:  # a withdrawal from the series Sova starts at, in its place
            team = entry["withdraw"]
            if played != part or not isinstance(team, str) or not team.strip():
                raise ProtocolError(
                    f'start.results[{j}]: a withdrawal names a team ("withdraw") and is '
                    f"from the {part} series, where Sova starts",
                    index,
                    ru=f"строка {j + 1} сыгранного: отказ называет команду («withdraw») и "
                    f"записывается только от {PART_RU[part]} серии, с которой сезон ведётся "
                    "в Сове",
                    be=f"радок {j + 1} згуланага: адмова называе каманду («withdraw») і "
                    f"запісваецца толькі ад {PART_BE[part]} серыі, з якой сезон вядзецца "
                    "ў Саве",
                )
            results.append(Event(type="withdraw", team=team, part=played))
            continue
        try:
            game = _parse_game({**entry, "type": "game"}, index)
        except ProtocolError as error:
            raise ProtocolError(
                f"start.results[{j}]: {error.message}",
                index,
                ru=f"строка {j + 1} сыгранного: {error.ru or error.message}",
                be=f"радок {j + 1} згуланага: {error.be or error.ru or error.message}",
            ) from None
        results.append(replace(game, part=played))
    winter = _typed(raw, "winter", list, index, required=False)
    if winter is not None:
        winter = tuple(check_names(winter, "start.winter", index)) if winter else ()
    return Event(
        type="start",
        part=part,
        qualifying=qualifying,
        closing=closing,
        rating=rating,
        results=tuple(results),
        winter=winter,
        rematch=_optional_name(raw, "rematch", index),
        sponsor=_optional_name(raw, "sponsor", index),
        note=_typed(raw, "note", str, index, required=False) or "",
    )


def check_names(names: list[Any], what: str, index: int | None) -> list[str]:
    if not names:
        raise ProtocolError(
            f"{what} must list at least one team",
            index,
            ru=f"«{what}»: не названо ни одной команды",
            be=f"«{what}»: не названа ніводная каманда",
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ProtocolError(
                f"{what}: a team is a non-empty name, got {name!r}",
                index,
                ru=f"«{what}»: команда — непустое название, получено {name!r}",
                be=f"«{what}»: каманда — непустая назва, атрымана {name!r}",
            )
    if len(set(names)) != len(names):
        raise ProtocolError(
            f"{what} names a team twice: {names}",
            index,
            ru=f"«{what}»: команда названа дважды",
            be=f"«{what}»: каманда названа двойчы",
        )
    return list(names)
