"""The season's events (``shared/contracts/season-protocol.md``, ``sova.season-protocol/1``):
their types and fields, and how one raw JSON event becomes an :class:`Event` (shape only —
whether the rules allow it is the engine's question, :mod:`.engine`).

Malformed input is a :class:`~webapp.domain.rules.ProtocolError` (``"rule": null``): not an
object, an unknown event type, a missing or mistyped field, a score that is not ``"E:V"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from webapp.domain.rules.errors import ProtocolError

FORMAT = "sova.season-protocol/1"

PARTS = ("spring", "summer", "autumn", "winter")
CLOSINGS = ("series_final", "special", "year_final", "none")
KINDS = ("qualifying", "series_final", "special", "year_final", "rematch")
EVENT_TYPES = ("series", "game", "withdraw", "rematch", "decline_winter", "enter", "amend")
ENTER_AS = ("reserve", "sponsor")

WIN = 6
MAX_POINTS = 12  # the highest points_to_win an amendment may set (2023 §4.12.1)
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


def _typed(raw: dict[str, Any], name: str, kind: type, index: int, required: bool = True) -> Any:
    value = raw.get(name)
    if value is None:
        if required:
            raise ProtocolError(f"{raw.get('type')} needs the field {name!r}", index)
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(
            f"{raw.get('type')}.{name} must be of type {kind.__name__}, got {value!r}", index
        )
    return value


def _team_name(raw: dict[str, Any], index: int) -> str:
    team: str = _typed(raw, "team", str, index)
    if not team.strip():
        raise ProtocolError(f"{raw.get('type')}.team must be a non-empty team name", index)
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
        )
    return int(match.group(1)), int(match.group(2))


def parse_event(raw: Any, index: int) -> Event:
    """One event object → :class:`Event` (shape only). Unknown extra fields are ignored."""
    if not isinstance(raw, dict):
        raise ProtocolError(f"an event is a JSON object, got {type(raw).__name__}", index)
    kind = raw.get("type")
    if kind not in EVENT_TYPES:
        raise ProtocolError(
            f"unknown event type {kind!r}; expected one of {', '.join(EVENT_TYPES)}", index
        )
    if kind == "series":
        part = raw.get("part")
        if part not in PARTS:
            raise ProtocolError(
                f"series.part must be one of {', '.join(PARTS)}; got {part!r}", index
            )
        qualifying = _typed(raw, "qualifying", int, index)
        if qualifying < 1:
            raise ProtocolError(f"series.qualifying must be at least 1, got {qualifying}", index)
        closing = raw.get("closing")
        if closing not in CLOSINGS:
            raise ProtocolError(
                f"series.closing must be one of {', '.join(CLOSINGS)}; got {closing!r}", index
            )
        teams = _typed(raw, "teams", list, index, required=False)
        if teams is not None:
            teams = tuple(check_names(teams, "series.teams", index))
        return Event(type=kind, part=part, qualifying=qualifying, closing=closing, teams=teams)
    if kind == "game":
        game_kind = raw.get("kind")
        if game_kind not in KINDS:
            raise ProtocolError(
                f"game.kind must be one of {', '.join(KINDS)}; got {game_kind!r}", index
            )
        team = _team_name(raw, index)
        score = parse_score(_typed(raw, "score", str, index), index)
        decisive = _typed(raw, "decisive_round", bool, index, required=False) or False
        rounds_lost = _typed(raw, "rounds_lost", int, index, required=False)
        if rounds_lost is not None and rounds_lost < 0:
            raise ProtocolError(f"game.rounds_lost must be 0 or more, got {rounds_lost}", index)
        return Event(
            type=kind,
            kind=game_kind,
            team=team,
            score=score,
            decisive_round=decisive,
            rounds_lost=rounds_lost,
        )
    if kind == "rematch":
        return Event(
            type=kind, team=_team_name(raw, index), granted=_typed(raw, "granted", bool, index)
        )
    if kind == "enter":
        enter_as = raw.get("as")
        if enter_as not in ENTER_AS:
            raise ProtocolError(
                f"enter.as must be one of {', '.join(ENTER_AS)}; got {enter_as!r}", index
            )
        return Event(type=kind, team=_team_name(raw, index), enter_as=enter_as)
    if kind == "amend":
        changes = _typed(raw, "set", dict, index)
        if not changes:
            raise ProtocolError("amend.set must name at least one parameter", index)
        note = _typed(raw, "note", str, index, required=False) or ""
        return Event(type=kind, set=dict(changes), note=note)
    return Event(type=kind, team=_team_name(raw, index))  # withdraw, decline_winter


def check_names(names: list[Any], what: str, index: int | None) -> list[str]:
    if not names:
        raise ProtocolError(f"{what} must list at least one team", index)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ProtocolError(f"{what}: a team is a non-empty name, got {name!r}", index)
    if len(set(names)) != len(names):
        raise ProtocolError(f"{what} names a team twice: {names}", index)
    return list(names)
