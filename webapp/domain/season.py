"""The season engine: team rating (ТРК), series, finals, winter series and year final.

(One module over 500 lines on purpose: the 2023 and 2009 books' clauses share one replay
loop and one state, and reading a clause's code next to its siblings is how it is checked
against the book; the readings are indexed in ``docs/rules.md``.)

Pure Python, standard library only. A season is its ordered event list
(``shared/contracts/season-protocol.md``, format ``sova.season-protocol/1``); its state is
what :func:`replay_season` derives from the events under a rule book:

- ``"2023"``: ``000_90d7c8192601ed3a.txt`` §4.1–§4.10 (Belarusian edition);
- ``"2009"``: ``002_e025d5ded135c1c4.txt`` §2.1–§2.18 (Russian edition).

Public API::

    state = replay_season(document)       # SeasonState; SeasonViolation / ProtocolError
    state.to_json()                        # the contract's "Output of sova season replay"
    state.game_context()                   # {"series_best": "6:3" | None} for the game engine
    ruleset, teams, events = load_season(document)   # shape only (ProtocolError)
    season = Season.start(ruleset, teams)  # step by step: season.apply(raw_event, index)
    season.check_game(kind, team)          # would this team's game of this kind be allowed now?

Errors: :class:`SeasonViolation` (a :class:`~webapp.domain.rules.RuleViolation`: an event the
rules forbid at that point, with its clause) and :class:`~webapp.domain.rules.ProtocolError`
(malformed input: not an object, wrong format, unknown event type, unknown team, bad score…).
Both give ``{"error": {"event", "rule", "message"}}`` through ``to_json()``. The readings taken
where a clause reads two ways are in ``docs/rules.md`` ("The season").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from webapp.domain.rules.errors import ProtocolError, RuleViolation
from webapp.domain.rules.game import can_pass_without_decisive
from webapp.domain.rules.parameters import AMEND_CLAUSE, ParameterError, check_values, defaults
from webapp.domain.text import ru_plural

FORMAT = "sova.season-protocol/1"

BOOKS = {"2023": "000_90d7c8192601ed3a.txt", "2009": "002_e025d5ded135c1c4.txt"}
"""Rule-book file of each rule set (the ``ruleset`` field of the protocol)."""

PARTS = ("spring", "summer", "autumn", "winter")
CLOSINGS = ("series_final", "special", "year_final", "none")
KINDS = ("qualifying", "series_final", "special", "year_final", "rematch")
EVENT_TYPES = ("series", "game", "withdraw", "rematch", "decline_winter", "enter", "amend")
ENTER_AS = ("reserve", "sponsor")

WIN = 6
MAX_POINTS = 12  # the highest points_to_win an amendment may set (2023 §4.12.1)
_SCORE_RE = re.compile(r"^(\d{1,2}):(\d{1,2})$")

# 2023 §4.1: what each series consists of, (qualifying games, closing game).
SERIES_SHAPES_2023 = {
    "spring": ((5, "series_final"),),
    "summer": ((5, "series_final"),),
    "autumn": ((4, "special"), (5, "series_final")),
    "winter": ((4, "special"), (5, "year_final")),
}
# 2009 §2.6: each series has three qualifying games and a series final (winter: §2.15–2.17).
SERIES_SHAPE_2009 = (3, "series_final")

_PART_RU = {"spring": "весенней", "summer": "летней", "autumn": "осенней", "winter": "зимней"}
_PART_NOM_RU = {"spring": "весенняя", "summer": "летняя", "autumn": "осенняя", "winter": "зимняя"}
_CLOSING_RU = {
    "series_final": "финал серии",
    "special": "специальная игра",
    "year_final": "финал года",
    "none": "без завершающей игры",
}


def _qualifying_ru(n: int) -> str:
    """``5`` → ``"5 отборочных игр"``, ``4`` → ``"4 отборочные игры"`` (Russian plural)."""
    return f"{n} " + ru_plural(n, ("отборочная игра", "отборочные игры", "отборочных игр"))


def _qualifying_gen_ru(n: int) -> str:
    """``1`` → ``"1 отборочной игры"``, ``4`` → ``"4 отборочных игр"`` (after «для», «из»)."""
    return f"{n} " + ru_plural(n, ("отборочной игры", "отборочных игр", "отборочных игр"))


def _teams_ru(n: int) -> str:
    """``2`` → ``"2 команды"``, ``5`` → ``"5 команд"``."""
    return f"{n} " + ru_plural(n, ("команда", "команды", "команд"))


def _shape_ru(qualifying: int, closing: str) -> str:
    return f"{_qualifying_ru(qualifying)} и {_CLOSING_RU[closing]}"


_CLOSING_EN = {
    "series_final": "a series final",
    "special": "a special game",
    "year_final": "the year final",
    "none": "no closing game",
}
_KIND_EN = {
    "qualifying": "a qualifying game",
    "series_final": "a series final",
    "special": "a special game",
    "year_final": "the year final",
    "rematch": "a rematch",
}
_KIND_RU = {
    "qualifying": "отборочная игра",
    "series_final": "финал серии",
    "special": "специальная игра",
    "year_final": "финал года",
    "rematch": "Матч-реванш",
}
# "финал весенней серии", "финал года": what a person calls the closing game of a series
_KIND_ACC_RU = {
    "qualifying": "отборочную игру",
    "series_final": "финал серии",
    "special": "специальную игру",
    "year_final": "финал года",
    "rematch": "Матч-реванш",
}


def _shape_en(qualifying: int, closing: str) -> str:
    games = "qualifying game" if qualifying == 1 else "qualifying games"
    return f"{qualifying} {games} and {_CLOSING_EN[closing]}"


def _names(teams: Iterable[str]) -> str:
    """``["A", "B"]`` → ``"«A», «B»"`` (a rating as a person reads it)."""
    return ", ".join(f"«{t}»" for t in teams)


def _names_and(teams: Sequence[str], conj: str = "and") -> str:
    """``["A", "B"]`` → ``"«A» and «B»"`` (``conj="и"`` in Russian)."""
    named = [f"«{t}»" for t in teams]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} {conj} {named[-1]}"


class SeasonViolation(RuleViolation):
    """An event the rule book forbids at that point of the season.

    ``event_index`` (0-based), ``rule`` (``"000_90d7c8192601ed3a.txt §4.4"``), ``message``
    (plain English: what is wrong with the refused event, in the rule book's words — not the
    condition it failed, e.g. ``"«Потапова» has already played in the spring series and can
    no longer withdraw from it"``). ``to_json()`` → ``{"error": {"event": i, "rule": …,
    "message": …}}``. ``ru``: the same fault in Russian for the staff pages (``"«Потапова»
    уже играла в весенней серии и отказаться от неё больше не может"``); every refusal of the
    engine carries one (None only from code outside it; the pages then show the clause's gist,
    ``webapp.games.season_events.REFUSALS_RU``).
    """

    def __init__(
        self, event_index: int | None, rule: str, message: str, ru: str | None = None
    ) -> None:
        super().__init__(event_index, rule, message)
        self.ru = ru


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Result:
    """One finished game of the season.

    ``event``: index of its event; ``kind``: one of :data:`KINDS`; ``experts``/``viewers``:
    final score (one side has 6); ``part``: the series it was played in.
    """

    event: int
    team: str
    kind: str
    experts: int
    viewers: int
    decisive_round: bool
    part: str
    rounds_lost: int | None = None

    @property
    def won(self) -> bool:
        """The experts won (they reached 6 points, or the amended ``points_to_win``: a
        finished game's winner is the side ahead)."""
        return self.experts > self.viewers

    @property
    def score(self) -> str:
        """``"E:V"``, experts first."""
        return f"{self.experts}:{self.viewers}"

    @property
    def margin(self) -> int:
        """Score difference ``experts - viewers`` (2023 §4.5.2: "the main indicator")."""
        return self.experts - self.viewers


@dataclass(frozen=True)
class SeriesState:
    """The open (or last) series: ``part``, ``qualifying_played`` of ``qualifying``,
    ``closing`` game (one of :data:`CLOSINGS`)."""

    part: str
    qualifying_played: int
    qualifying: int
    closing: str

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "qualifying_played": self.qualifying_played,
            "qualifying": self.qualifying,
            "closing": self.closing,
        }


@dataclass(frozen=True)
class NextGame:
    """Who plays the next game (``team``) and of which ``kind``, as the rules decide it."""

    kind: str
    team: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "team": self.team}


@dataclass(frozen=True)
class Final:
    """A series final played: ``part`` of the series, ``team``, ``score``, ``won``;
    ``event``: index of its event."""

    part: str
    team: str
    score: str
    won: bool
    event: int

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "team": self.team, "score": self.score, "won": self.won}


@dataclass(frozen=True)
class Out:
    """A team out of the season and the clause that put it out."""

    team: str
    rule: str
    event: int

    def to_json(self) -> dict[str, Any]:
        return {"team": self.team, "rule": self.rule}


@dataclass(frozen=True)
class Move:
    """One game and what it did to the rating: ``rating_after`` (first place first) and
    ``rule``, the clause that moved the team (``"000_….txt §4.5.1"``)."""

    event: int
    team: str
    kind: str
    score: str
    rating_after: tuple[str, ...]
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "team": self.team,
            "kind": self.kind,
            "score": self.score,
            "rating_after": list(self.rating_after),
        }


@dataclass(frozen=True)
class SeasonState:
    """The derived state of a season (the contract's "Output of sova season replay").

    Beyond the contract's keys: ``over`` (the year final is played), ``history`` entries carry
    the ``rule`` that moved the team, ``results`` (every game), ``reserves`` (2023 §4.9.3)
    and ``sponsor`` (2009 §2.13) entered so far, ``refusing``: the teams that withdrew, between
    two series, from the series that opens next (2023 §4.8.1, 2009 §2.3), ``withdrawn``: the
    teams that withdrew from the open (or last) series. ``to_json()`` gives the contract's keys only,
    in its order.
    """

    ruleset: str
    series: SeriesState | None
    rating: tuple[str, ...]
    next: NextGame | None
    order: tuple[str, ...] | None
    series_best: Result | None
    finals: tuple[Final, ...]
    winter: tuple[str, ...]
    out: tuple[Out, ...]
    history: tuple[Move, ...]
    over: bool = False
    results: tuple[Result, ...] = ()
    reserves: tuple[str, ...] = ()
    sponsor: str | None = None
    refusing: tuple[str, ...] = ()
    withdrawn: tuple[str, ...] = ()
    rules: dict[str, Any] = field(default_factory=dict)
    amendments: tuple[Amendment, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"ruleset", "series", "rating", "next", "order", "series_best", "rules",
        "amendments", "finals", "winter", "out", "history"}`` exactly as in
        ``season-protocol.md`` (``rules``: every amendable parameter in force, 2023 §4.12.1;
        ``amendments``: ``[{"event", "set", "note"}]``)."""
        best = self.series_best
        return {
            "ruleset": self.ruleset,
            "series": None if self.series is None else self.series.to_json(),
            "rating": list(self.rating),
            "next": None if self.next is None else self.next.to_json(),
            "order": None if self.order is None else list(self.order),
            "series_best": None if best is None else {"team": best.team, "score": best.score},
            "rules": dict(self.rules),
            "amendments": [a.to_json() for a in self.amendments],
            "finals": [f.to_json() for f in self.finals],
            "winter": list(self.winter),
            "out": [o.to_json() for o in self.out],
            "history": [m.to_json() for m in self.history],
        }

    def game_rules(self) -> dict[str, Any]:
        """The amended parameters in force that the next game takes (2023 §4.12.1): only those
        that differ from the book's values (``{}`` when none do), for the game protocol's
        ``rules``."""
        book = defaults(self.ruleset)
        return {k: v for k, v in self.rules.items() if book.get(k) != v}

    def game_context(self) -> dict[str, Any]:
        """The season's part of the next game's context (``game-protocol.md``):
        ``{"series_best": "E:V" or None}`` — 2023 §3.6, ``None`` where nobody is to be beaten
        (series final, year final, special game, the first game of a series, 2009)."""
        return {"series_best": None if self.series_best is None else self.series_best.score}


@dataclass(frozen=True)
class Amendment:
    """One accepted ``amend`` event (2023 §4.12.1): ``event`` (its index), ``set`` (the
    parameters it changed, ``{name: value}``), ``note`` (what was announced, by whom)."""

    event: int
    set: dict[str, Any]
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "set": dict(self.set), "note": self.note}


# --------------------------------------------------------------------------- parsing


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
            teams = tuple(_check_names(teams, "series.teams", index))
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


def _check_names(names: list[Any], what: str, index: int | None) -> list[str]:
    if not names:
        raise ProtocolError(f"{what} must list at least one team", index)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ProtocolError(f"{what}: a team is a non-empty name, got {name!r}", index)
    if len(set(names)) != len(names):
        raise ProtocolError(f"{what} names a team twice: {names}", index)
    return list(names)


def load_season(document: Any) -> tuple[str, list[str], list[Event]]:
    """Validate a season protocol's shape and return ``(ruleset, teams, events)``.

    ``document`` is the parsed JSON object ``{"format": "sova.season-protocol/1",
    "ruleset": "2023"|"2009", "teams": [name…], "events": [...]}``. Raises
    :class:`ProtocolError` for anything malformed; rules are not checked here (team names
    in events are checked at replay, where ``enter`` events have added their teams).
    """
    if not isinstance(document, dict):
        raise ProtocolError(f"a season protocol is a JSON object, got {type(document).__name__}")
    if document.get("format") != FORMAT:
        raise ProtocolError(f"format must be {FORMAT!r}, got {document.get('format')!r}")
    ruleset = document.get("ruleset")
    if ruleset not in BOOKS:
        raise ProtocolError(f"unknown ruleset {ruleset!r}; expected one of 2009, 2023")
    teams = document.get("teams")
    if not isinstance(teams, list):
        raise ProtocolError("teams must be a list of team names, first place first")
    teams = _check_names(teams, "teams", None)
    events = document.get("events")
    if not isinstance(events, list):
        raise ProtocolError("events must be a list")
    return ruleset, teams, [parse_event(raw, i) for i, raw in enumerate(events)]


# --------------------------------------------------------------------------- the engine


@dataclass
class _Series:
    part: str
    qualifying: int
    closing: str
    opened_rating: tuple[str, ...]
    order: list[str] | None = None
    results: list[Result] = field(default_factory=list)  # qualifying and rematch games
    withdrawn: list[str] = field(default_factory=list)
    final_played: bool = False
    special_played: bool = False
    year_final_played: bool = False
    rematch_team: str | None = None  # 2009 §2.10

    @property
    def qualifying_played(self) -> int:
        return len(self.results)


class Season:
    """A season being replayed. Build with :meth:`start`, feed events with :meth:`apply`
    (raw JSON objects or parsed :class:`Event`), read :meth:`state`."""

    def __init__(self, ruleset: str, teams: Sequence[str]) -> None:
        self.ruleset = ruleset
        self.file = BOOKS[ruleset]
        self.teams: list[str] = list(teams)  # every team known, in the order it came
        self.initial: tuple[str, ...] = tuple(teams)
        self.rating: list[str] = list(teams)
        self.series: _Series | None = None
        self.parts: list[str] = []
        self.losses: dict[str, int] = {}
        self.out: list[Out] = []
        self.winter: list[str] = []
        self.finals: list[Final] = []
        self.final_results: list[Result] = []
        self.history: list[Move] = []
        self.results: list[Result] = []
        self.reserves: list[str] = []
        self.sponsor: str | None = None
        self.rematch_pending: str | None = None
        # 2023 §4.8.1, 2009 §2.3: teams that refused the coming series, between two series
        self.refusing: list[str] = []
        self.last_final: Result | None = None  # set right after a series final (2009)
        self.over = False
        self.index = -1
        # 2023 §4.12.1: the amendable parameters in force (replaced, never changed in place)
        self.rules: dict[str, Any] = defaults(ruleset)
        self.amendments: list[Amendment] = []

    @classmethod
    def start(cls, ruleset: str, teams: Iterable[str]) -> Season:
        """A season before its first event: ``teams`` is the initial rating, first place
        first (2023 §4.2, 2009 §2.1)."""
        if ruleset not in BOOKS:
            raise ProtocolError(f"unknown ruleset {ruleset!r}; expected one of 2009, 2023")
        return cls(ruleset, _check_names(list(teams), "teams", None))

    # ----------------------------------------------------------------- helpers

    def _cite(self, c2023: str, c2009: str) -> str:
        return f"{self.file} {c2023 if self.ruleset == '2023' else c2009}"

    def _refuse(self, c2023: str, c2009: str, message: str, ru: str) -> SeasonViolation:
        """The refusal of the current event: ``message`` (English) and ``ru`` (Russian) say
        what is wrong with it; the clause is ``c2023`` or ``c2009`` of this season's book."""
        return SeasonViolation(self.index, self._cite(c2023, c2009), message, ru)

    @property
    def is2023(self) -> bool:
        return self.ruleset == "2023"

    def _out_rule(self, team: str) -> str | None:
        return next((o.rule for o in self.out if o.team == team), None)

    def _known(self, team: str) -> str:
        if team not in self.teams:
            raise ProtocolError(f"unknown team «{team}»", self.index)
        return team

    def _put_out(self, team: str, rule: str) -> None:
        self.out.append(Out(team=team, rule=rule, event=self.index))
        self.rating = [t for t in self.rating if t != team]
        self.winter = [t for t in self.winter if t != team]

    @property
    def target(self) -> int:
        """The points that win a game now: 6 (2023 §3.10, 2009 §1.8) or as amended (§4.12.1)."""
        points: int = self.rules["points_to_win"]
        return points

    def _refuse_if_out(self, team: str) -> None:
        rule = self._out_rule(team)
        if rule is not None:
            if rule.endswith("§4.4") and self.losses.get(team, 0) != 2:
                n = self.losses.get(team, 0)  # an amended losses_to_out (§4.12.1)
                en = f"«{team}» lost {n} games of the season and is out"
                ru = f"«{team}» проиграла {n} " + ru_plural(n, ("игру", "игры", "игр"))
                ru += " в сезоне и выбыла из него"
            elif rule.endswith("§4.4"):
                en = f"«{team}» lost its second game of the season and is out"
                ru = f"«{team}» проиграла вторую игру в сезоне и выбыла из него"
            elif rule.endswith("§2.11"):
                en = f"«{team}» lost its rematch and is out"
                ru = f"«{team}» проиграла Матч-реванш и выбыла из сезона"
            else:  # §2.14
                en = f"the sponsor's team «{team}» lost its first winter game and is out"
                ru = (
                    f"команда спонсора «{team}» проиграла первую отборочную игру "
                    "зимней серии и выбыла из сезона"
                )
            raise SeasonViolation(self.index, rule, en, ru)

    def phase(self) -> str:
        """What the season waits for: ``"series"`` (a series to open), ``"qualifying"``,
        ``"series_final"``, ``"special"``, ``"year_final"``, or ``"over"``."""
        if self.over:
            return "over"
        s = self.series
        if s is None:
            return "series"
        if s.qualifying_played < s.qualifying:
            return "qualifying"
        if s.closing == "series_final" and not s.final_played:
            return "series_final"
        if s.closing == "special" and not s.special_played:
            return "special"
        if s.part == "winter" and not s.year_final_played:
            return "year_final"
        return "series"

    def _available(self) -> list[str]:
        """Teams of the open series' rating that may still play in it (not withdrawn)."""
        s = self.series
        assert s is not None
        return [t for t in self.rating if t not in s.withdrawn]

    def _order_2023(self) -> list[str]:
        """2023 §4.8: the first ``qualifying`` places of the series' rating at its opening,
        the lowest of them plays first. A team that withdrew (§4.8.1) leaves its place and the
        teams below move up; after a withdrawal during the series, the games already played
        keep their turns and the others follow in the new order."""
        s = self.series
        assert s is not None
        places = [t for t in s.opened_rating if t not in s.withdrawn]
        played = (s.order or [])[: s.qualifying_played]
        return played + [t for t in reversed(places[: s.qualifying]) if t not in played]

    def _rematch_top_two(self) -> list[str]:
        """2009 §2.10: with a rematch in the series, its two other qualifying games are played
        by the first and second places of the rating at the opening (withdrawn teams left out)."""
        s = self.series
        assert s is not None
        return [
            t
            for t in s.opened_rating
            if t != s.rematch_team and t not in s.withdrawn and t in self.rating
        ][:2]

    def _finalist(self) -> str | None:
        """2023 §4.7.1 / 2009 §2.9: the first place of the rating among the teams that did not
        withdraw from the series (a withdrawal is from the whole series, final included)."""
        available = self._available()
        return available[0] if available else None

    def _series_best(self) -> Result | None:
        """2023 §3.6: the team that played earlier in this series and is first in the rating
        now, with its result; ``None`` when the next game is not a qualifying game, when the
        first place has not played in this series yet, and always in 2009 (no decisive round)."""
        s = self.series
        if not self.is2023 or s is None or self.phase() != "qualifying" or not self.rating:
            return None
        return next((r for r in s.results if r.team == self.rating[0]), None)

    def next_game(self) -> NextGame | None:
        """Who plays next and of which kind, where the rules decide it (``None`` where a
        person does: a series to open, a special game's team, 2009 qualifying choices)."""
        phase = self.phase()
        s = self.series
        if phase == "qualifying":
            assert s is not None
            if self.is2023:
                order = s.order or []
                return (
                    NextGame("qualifying", order[s.qualifying_played])
                    if s.qualifying_played < len(order)
                    else None
                )
            if (
                s.part == "winter"
                and self.sponsor in self.rating
                and not any(r.team == self.sponsor for r in s.results)
            ):
                return NextGame("qualifying", self.sponsor)  # 2009 §2.14
            return None
        if phase == "series_final":
            team = self._finalist()
            return None if team is None else NextGame("series_final", team)
        if phase == "year_final":
            return NextGame("year_final", self.rating[0]) if self.rating else None
        return None

    def _snapshot(self) -> dict[str, Any]:
        """A copy of the mutable state, cheap: the values inside are immutable."""
        saved = {
            key: (value.copy() if isinstance(value, list | dict) else value)
            for key, value in self.__dict__.items()
        }
        if self.series is not None:
            saved["series"] = dataclasses.replace(
                self.series,
                order=None if self.series.order is None else list(self.series.order),
                results=list(self.series.results),
                withdrawn=list(self.series.withdrawn),
            )
        return saved

    # ----------------------------------------------------------------- events

    def apply(self, event: Event | dict[str, Any], index: int) -> None:
        """Apply one event (at 0-based ``index`` of the event list). Raises
        :class:`SeasonViolation` or :class:`ProtocolError`; the season is then unchanged."""
        if not isinstance(event, Event):
            event = parse_event(event, index)
        saved = self._snapshot()
        self.index = index
        try:
            getattr(self, f"_on_{event.type}")(event)
        except (SeasonViolation, ProtocolError):
            self.__dict__ = saved  # a refused event changes nothing
            raise
        if event.type == "series" or (event.type == "game" and event.kind != "series_final"):
            self.last_final = None

    def _on_series(self, event: Event) -> None:
        part, qualifying, closing = event.part, event.qualifying, event.closing
        assert part is not None and qualifying is not None and closing is not None
        nom = _PART_NOM_RU[part]
        if self.over:
            raise self._refuse(
                "§4.10",
                "§2.18",
                f"the {part} series cannot open: the year final is played and the season is over",
                f"{nom} серия не открывается: финал года сыгран, сезон окончен",
            )
        phase = self.phase()
        if phase != "series":
            s = self.series
            assert s is not None
            left = s.qualifying - s.qualifying_played
            left_en, left_ru = {
                "qualifying": (
                    f"none of its {s.qualifying} qualifying games is played yet"
                    if s.qualifying_played == 0
                    else f"{left} of its {s.qualifying} qualifying games are still to be played",
                    f"ни одна из {_qualifying_gen_ru(s.qualifying)} ещё не сыграна"
                    if s.qualifying_played == 0
                    else f"не сыграно {left} из {_qualifying_gen_ru(s.qualifying)}",
                ),
                "series_final": ("its series final is still to be played", "не сыгран её финал"),
                "special": (
                    "its special game is still to be played",
                    "не сыграна её специальная игра",
                ),
                "year_final": ("the year final is still to be played", "не сыгран финал года"),
            }[phase]
            raise self._refuse(
                "§4.1",
                "§2.6",
                f"the {part} series cannot open: the {s.part} series is not over ({left_en})",
                f"{nom} серия не открывается: {_PART_NOM_RU[s.part]} серия ещё не окончена "
                f"— {left_ru}",
            )
        expected = PARTS[len(self.parts)]
        if part != expected:
            if part in self.parts:
                en = f"the {part} series has been opened already; the {expected} series is next"
                ru = f"{nom} серия уже открывалась; следующая — {_PART_NOM_RU[expected]}"
            else:
                en = (
                    f"the {part} series cannot open yet: the {expected} series comes first "
                    "(spring, summer, autumn, winter)"
                )
                ru = (
                    f"{nom} серия ещё не может открыться: сначала {_PART_NOM_RU[expected]}; "
                    "порядок серий — весенняя, летняя, осенняя, зимняя"
                )
            raise self._refuse("§4.1", "§2.5", en, ru)
        if event.teams is not None:
            for team in event.teams:
                self._known(team)
        if self.is2023:
            shapes = SERIES_SHAPES_2023[part]
            if (qualifying, closing) not in shapes:
                most = max(q for q, _c in shapes)
                raise self._refuse(
                    "§4.1",
                    "§4.1",
                    f"the {part} series has "
                    + " or ".join(_shape_en(q, c) for q, c in shapes)
                    + f" (at most {most} qualifying games), not {_shape_en(qualifying, closing)}",
                    f"в {_PART_RU[part]} серии — "
                    + " или ".join(_shape_ru(q, c) for q, c in shapes)
                    + f" (отборочных игр не больше {most}), а не {_shape_ru(qualifying, closing)}",
                )
            rating = self._form_2023(part, qualifying, event.teams)
            need_clause = "§4.9.3" if part == "winter" else "§4.8"
        else:
            rating = self._form_2009(part, qualifying, closing, event.teams)
            need_clause = "§2.6"
        # 2023 §4.8.1, 2009 §2.3: the refusals made between the series apply to this one; a
        # team its rating does not include was not to play in it, and its refusal lapses
        self.series = _Series(
            part=part,
            qualifying=qualifying,
            closing=closing,
            opened_rating=tuple(rating),
            withdrawn=[t for t in self.refusing if t in rating],
        )
        self.refusing = []
        self.parts.append(part)
        self.rating = rating
        if not self.is2023 and self.rematch_pending is not None:
            self.series.rematch_team = self.rematch_pending
            self.rematch_pending = None
        short = self._shortage()
        if short:
            raise self._refuse(need_clause, need_clause, *short)
        if self.is2023:
            self.series.order = self._order_2023()

    def _shortage(self, withdrawing: str | None = None) -> tuple[str, str] | None:
        """Why the open series cannot fill its qualifying games, ``(English, Russian)``, or
        ``None``. ``withdrawing``: the team whose withdrawal is being checked (the message then
        names it); else the series being opened is at fault."""
        s = self.series
        assert s is not None
        part, gen = s.part, _PART_RU[s.part]
        if s.rematch_team is not None and not self.is2023:
            if len(self._rematch_top_two()) >= 2:
                return None
            if withdrawing is not None:
                return (
                    f"«{withdrawing}» cannot withdraw from the {part} series: with "
                    f"«{s.rematch_team}»'s rematch in it, its other qualifying games would "
                    "lack a second team of the rating",
                    f"«{withdrawing}» не может отказаться от участия в {gen} серии: в ней "
                    f"Матч-реванш «{s.rematch_team}», и для остальных отборочных игр не хватит "
                    "второй команды рейтинга",
                )
            return (
                f"the {part} series cannot open: with «{s.rematch_team}»'s rematch in it, "
                "two more teams of the rating are needed for its other qualifying games",
                f"{_PART_NOM_RU[part]} серия не открывается: в ней Матч-реванш "
                f"«{s.rematch_team}», и для остальных отборочных игр нужны ещё две команды "
                "рейтинга",
            )
        if self.is2023:  # the places at the opening: a team put out here has played here
            have = len([t for t in s.opened_rating if t not in s.withdrawn])
            need = s.qualifying
        else:  # 2009 §2.3: the teams still to choose a game, for the games still to play
            played = {r.team for r in s.results}
            have = len([t for t in self.rating if t not in s.withdrawn and t not in played])
            need = s.qualifying - s.qualifying_played
        if have >= need:
            return None
        if withdrawing is not None:
            return (
                f"«{withdrawing}» cannot withdraw from the {part} series: without it, "
                f"{have} teams of the rating are left for {need} qualifying games",
                f"«{withdrawing}» не может отказаться от участия в {gen} серии: без неё для "
                f"{_qualifying_gen_ru(need)} останется {_teams_ru(have)} рейтинга",
            )
        refused_en = refused_ru = ""
        if s.withdrawn:
            refused_en = f" ({_names_and(s.withdrawn)} withdrew from it)"
            refused_ru = f"; отказались: {_names(s.withdrawn)}"
        return (
            f"not enough teams for the {part} series: {need} qualifying games need {need} "
            f"teams of the rating, {have} can play{refused_en}",
            f"не хватает команд: для {_qualifying_gen_ru(need)} нужно {_teams_ru(need)} "
            f"рейтинга, сыграть могут {have}{refused_ru}",
        )

    # 2023 ----------------------------------------------------------------

    def _last_result(self, team: str, kinds: tuple[str, ...]) -> Result | None:
        return next((r for r in reversed(self.results) if r.team == team and r.kind in kinds), None)

    def _bottom(self, rating: list[str]) -> list[str]:
        """2023 §4.8.1: the teams that refused the coming series go to the bottom line of its
        rating, in the order they refused; the teams below them move up."""
        return [t for t in rating if t not in self.refusing] + [
            t for t in self.refusing if t in rating
        ]

    def _form_2023(self, part: str, qualifying: int, named: tuple[str, ...] | None) -> list[str]:
        gen = _PART_RU[part]
        eligible = [
            t
            for t in self.teams
            if t not in self.reserves and self._out_rule(t) is None and t not in self.winter
        ]
        if part in ("spring", "summer"):
            if named is not None:  # §4.2.1, §4.2.2: the book lists them by name
                for team in named:
                    self._refuse_if_out(team)
                    if team in self.winter:
                        raise self._refuse(
                            "§4.7.2",
                            "§4.7.2",
                            f"«{team}» cannot be on the list of the {part} series: it played "
                            "a series final and is through to the winter series",
                            f"«{team}» не может быть в списке {gen} серии: она сыграла финал "
                            "серии и уже вышла в зимнюю серию",
                        )
                    if team in self.reserves:
                        raise self._refuse(
                            "§4.9.3",
                            "§4.9.3",
                            f"«{team}» cannot be on the list of the {part} series: a reserve "
                            "team is drawn into the winter series only",
                            f"«{team}» не может быть в списке {gen} серии: команды резерва "
                            "привлекаются только к зимней серии",
                        )
                return self._bottom(list(named))
            fresh = [t for t in eligible if not any(r.team == t for r in self.results)]
            played = [t for t in self.rating if t in eligible and t not in fresh]
            played += [t for t in eligible if t not in fresh and t not in played]
            return self._bottom(fresh + played)
        if part == "autumn":  # §4.2.3
            with_result: list[tuple[str, Any]] = []
            without: list[tuple[str, Any]] = []
            for team in eligible:
                result = self._last_result(team, ("qualifying",))
                (without if result is None else with_result).append((team, result))
            with_result.sort(key=lambda tr: (-int(tr[1].won), -tr[1].margin, tr[1].event))
            rating = self._bottom([t for t, _ in with_result] + [t for t, _ in without])
            clause = "§4.2.3"
        else:  # winter, §4.9
            rating = self._form_winter_2023(qualifying)
            clause = "§4.9"
        if named is not None and list(named) != rating:
            raise self._refuse(
                clause,
                clause,
                f"the {part} rating given, {_names(named)}, is not the one the rules form: "
                f"{_names(rating)}",
                f"рейтинг {gen} серии по правилам — {_names(rating)}, а не {_names(named)}",
            )
        return rating

    def _form_winter_2023(self, qualifying: int) -> list[str]:
        """§4.9.1–§4.9.3: finals' winners (earlier series first), then finals' losers (earlier
        first), then the best of the final autumn rating by their last game (later result first
        on a tie), then reserve teams in the order they entered; ``qualifying`` teams in all.
        A team that refused the winter series (§4.8.1) leaves its place to the next one and
        is put on the bottom line, after them."""
        finals = [r for r in self.final_results if self._out_rule(r.team) is None]
        head = [r.team for r in finals if r.won] + [r.team for r in finals if not r.won]
        head = list(dict.fromkeys(head))
        autumn = [t for t in self.rating if t not in head and self._out_rule(t) is None]
        ranked: list[tuple[str, Any]] = []
        unranked: list[tuple[str, Any]] = []
        for team in autumn:
            result = self._last_result(team, KINDS)
            (unranked if result is None else ranked).append((team, result))
        ranked.sort(key=lambda tr: (-int(tr[1].won), -tr[1].margin, -tr[1].event))
        pool = head + [t for t, _ in ranked] + [t for t, _ in unranked]

        def fill(teams: list[str], skip: list[str]) -> list[str]:
            teams = [t for t in teams if t not in skip]
            if len(teams) < qualifying:  # §4.9.3
                reserves = [t for t in self.reserves if t not in teams and t not in skip]
                teams += reserves[: qualifying - len(teams)]
            return teams[:qualifying]

        playing = fill(pool, self.refusing)
        if len(playing) < qualifying:
            refused = f" ({_names_and(self.refusing)} withdrew)" if self.refusing else ""
            refused_ru = f"; отказались: {_names(self.refusing)}" if self.refusing else ""
            raise self._refuse(
                "§4.9.3",
                "§4.9.3",
                f"the winter series cannot have {qualifying} qualifying games: even with the "
                f"reserve teams only {len(playing)} teams can play{refused}",
                f"в зимней серии не может быть {_qualifying_gen_ru(qualifying)}: даже с "
                f"командами резерва сыграть могут только {_teams_ru(len(playing))}{refused_ru}",
            )
        would_play = fill(pool, [])
        return playing + [t for t in self.refusing if t in would_play]

    def _place_2023(self, result: Result) -> str:
        """§4.5: move ``result.team`` in the rating; return the clause applied."""
        s = self.series
        assert s is not None
        rating = [t for t in self.rating if t != result.team]
        if not result.won:
            rating.append(result.team)  # §4.5.5
            self.rating = rating
            return "§4.5.5"
        earlier = [r for r in s.results if r.won and r.team in rating]
        better = [r for r in earlier if r.margin > result.margin]
        if not better:
            rating.insert(0, result.team)  # §4.5.1
            clause = "§4.5.1"
        else:
            rating.insert(max(rating.index(r.team) for r in better) + 1, result.team)
            clause = "§4.5.2"
        if any(r.margin == result.margin for r in earlier):
            clause = "§4.5.4" if result.won and result.viewers == 0 else "§4.5.3"
        self.rating = rating
        return clause

    # 2009 ----------------------------------------------------------------

    def _form_2009(
        self, part: str, qualifying: int, closing: str, named: tuple[str, ...] | None
    ) -> list[str]:
        gen = _PART_RU[part]
        if part != "winter":
            if (qualifying, closing) != SERIES_SHAPE_2009:
                raise self._refuse(
                    "§2.6",
                    "§2.6",
                    f"the {part} series has 3 qualifying games and a series final, "
                    f"not {_shape_en(qualifying, closing)}",
                    f"в {gen} серии — 3 отборочные игры и финал серии, "
                    f"а не {_shape_ru(qualifying, closing)}",
                )
            rating = list(self.rating)  # §2.4: the rating goes on
            clause = "§2.4"
        else:
            rating = self._form_winter_2009()
            clause = "§2.13"
            n = len(rating)
            if n >= 4:
                if qualifying != n or closing not in ("none", "year_final"):
                    raise self._refuse(
                        "§2.15",
                        "§2.15",
                        f"the winter series has {n} qualifying games and no series final, "
                        f"not {_shape_en(qualifying, closing)}: all {n} teams are in, so the "
                        "final of the winter series is cancelled",
                        f"в зимней серии — {_qualifying_ru(n)} без финала серии, а не "
                        f"{_shape_ru(qualifying, closing)}: право играть получили все {n} "
                        "команды, и финал Зимней серии отменён",
                    )
            elif (qualifying, closing) != SERIES_SHAPE_2009:
                raise self._refuse(
                    "§2.16",
                    "§2.16",
                    "the winter series has 3 qualifying games and a series final, not "
                    f"{_shape_en(qualifying, closing)}: three teams are in",
                    "в зимней серии — 3 отборочные игры и финал серии, а не "
                    f"{_shape_ru(qualifying, closing)}: право играть получили 3 команды",
                )
        if named is not None and list(named) != rating:
            raise self._refuse(
                clause,
                clause,
                f"the {part} rating given, {_names(named)}, is not the one the rules form: "
                f"{_names(rating)}",
                f"рейтинг {gen} серии по правилам — {_names(rating)}, а не {_names(named)}",
            )
        return rating

    def _form_winter_2009(self) -> list[str]:
        """§2.13–§2.14, §2.17: the finals' winners (better score first, the earlier win on a
        tie), the first (and second) places of the rating at the end of the autumn final when
        fewer than three teams would play, the sponsor's team last."""
        # a team that declined a place (§2.12) and won a later final: the later win counts
        latest = {r.team: r for r in self.final_results if r.won and r.team in self.winter}
        winners = sorted(latest.values(), key=lambda r: (-r.margin, r.event))
        head = [r.team for r in winners]
        size = len(head) + (1 if self.sponsor is not None else 0)
        topups: list[str] = []
        if size < 3:  # §2.17
            topups = [t for t in self.rating if t not in head and t != self.sponsor][: 3 - size]
            if size + len(topups) < 3:
                raise self._refuse(
                    "§2.17",
                    "§2.17",
                    "the winter series cannot open: even with the first places of the rating "
                    "fewer than three teams can play it",
                    "зимняя серия не открывается: даже с первыми местами рейтинга сыграть в ней "
                    "могут меньше трёх команд",
                )
        tail = [self.sponsor] if self.sponsor is not None else []
        return head + topups + tail

    def _place_2009(self, result: Result) -> str:
        """§2.7 / §2.8 (qualifying), §2.11 (rematch won): win → first, loss → last."""
        rating = [t for t in self.rating if t != result.team]
        if result.won:
            rating.insert(0, result.team)
        else:
            rating.append(result.team)
        self.rating = rating
        if result.kind == "rematch":
            return "§2.11"
        return "§2.7" if result.won else "§2.8"

    # games ---------------------------------------------------------------

    def check_game(
        self, kind: str, team: str, decisive_round: bool = False, index: int | None = None
    ) -> None:
        """Refuse (:class:`SeasonViolation`) a game of ``kind`` by ``team`` that the rules do
        not allow now, before it is played (the producer proposing the next game); the clause
        says why. ``index``: the event index to report (default: the last event applied; pass
        the length of the event list for a game not yet recorded). Does not change the season.
        """
        if index is not None:
            self.index = index
        if kind not in KINDS:
            raise ProtocolError(
                f"game.kind must be one of {', '.join(KINDS)}; got {kind!r}", self.index
            )
        self._known(team)
        game_en, game_ru = (
            f"«{team}»'s game ({kind.replace('_', ' ')})",
            (f"игра «{team}» ({_KIND_RU[kind]})"),
        )
        if self.over:
            raise self._refuse(
                "§4.10",
                "§2.18",
                f"{game_en} cannot be played: the year final is played and the season is over",
                f"{game_ru} невозможна: финал года сыгран, сезон окончен",
            )
        self._refuse_if_out(team)
        phase = self.phase()
        s = self.series
        if s is None:
            raise self._refuse(
                "§4.1",
                "§2.5",
                f"{game_en} cannot be played: no series has opened yet",
                f"{game_ru} невозможна: ни одна серия ещё не открыта",
            )
        if kind == "rematch" and self.is2023:
            raise self._refuse(
                "§4.1",
                "§4.1",
                "a rematch is a 2009 event: the 2023 rules have none",
                "переигровки (матча-реванша) в правилах 2023 г. нет: это событие правил 2009 г.",
            )
        if kind == "special" and not self.is2023:
            raise self._refuse(
                "§2.6",
                "§2.6",
                "a special game is not a 2009 event: a 2009 series has 3 qualifying games "
                "and a series final",
                "специальной игры в сериях правил 2009 г. нет: 3 отборочные игры и финал серии",
            )
        part, gen, nom = s.part, _PART_RU[s.part], _PART_NOM_RU[s.part]
        if phase == "series":  # the series' closing game is played, the next has not opened
            raise self._refuse(
                "§4.10" if kind == "year_final" else "§4.1",
                "§2.18" if kind == "year_final" else "§2.6",
                f"{game_en} cannot be played: the {part} series is over and the next series "
                "has not opened",
                f"{game_ru} невозможна: {nom} серия окончена, а следующая не открыта",
            )
        if kind in ("qualifying", "rematch"):
            if phase != "qualifying":
                raise self._refuse(
                    "§4.1",
                    "§2.6",
                    f"«{team}» cannot play {_KIND_EN[kind]}: the {s.qualifying} qualifying "
                    f"games of the {part} series are played and {_KIND_EN[phase]} is due",
                    f"«{team}» не может играть {_KIND_ACC_RU[kind]}: отборочные игры {gen} "
                    f"серии сыграны ({s.qualifying} из {s.qualifying}), теперь — "
                    f"{_KIND_RU[phase]}",
                )
        elif kind != phase:
            if (
                kind == "series_final"
                and not self.is2023
                and part == "winter"
                and s.closing != "series_final"
            ):  # 2009 §2.15
                n = len(s.opened_rating)
                raise self._refuse(
                    "§2.15",
                    "§2.15",
                    f"the winter series has no final: all {n} teams are in, so the final of "
                    "the winter series is cancelled",
                    f"финала у зимней серии нет: право играть получили все {n} команды, и "
                    "финал Зимней серии отменён",
                )
            if kind in ("series_final", "special") and s.closing != kind:
                raise self._refuse(
                    "§4.1",
                    "§2.6",
                    f"the {part} series has no {_KIND_EN[kind].split(' ', 1)[1]}: it has "
                    f"{_shape_en(s.qualifying, s.closing)}",
                    f"в {gen} серии нет игры вида «{_KIND_RU[kind]}»: в ней "
                    f"{_shape_ru(s.qualifying, s.closing)}",
                )
            if kind == "year_final" and part != "winter":
                raise self._refuse(
                    "§4.10",
                    "§2.18",
                    f"«{team}» cannot play the year final: it closes the winter series, and "
                    f"the {part} series is on",
                    f"«{team}» не может играть финал года: он завершает зимнюю серию, а идёт "
                    f"{nom} серия",
                )
            if phase == "qualifying":
                raise self._refuse(
                    "§4.1",
                    "§2.6",
                    f"«{team}» cannot play {_KIND_EN[kind]} yet: {s.qualifying_played} of the "
                    f"{s.qualifying} qualifying games of the {part} series are played",
                    f"«{team}» пока не может играть {_KIND_ACC_RU[kind]}: сыграно "
                    f"{s.qualifying_played} из {_qualifying_gen_ru(s.qualifying)} {gen} серии",
                )
            clause = ("§4.10", "§2.18") if kind == "year_final" else ("§4.1", "§2.6")
            if (kind == "series_final" and s.final_played) or (
                kind == "special" and s.special_played
            ):
                played_ru = (
                    f"финал {gen} серии уже сыгран"
                    if kind == "series_final"
                    else f"специальная игра {gen} серии уже сыграна"
                )
                raise self._refuse(
                    *clause,
                    f"«{team}» cannot play {_KIND_EN[kind]}: the {part} series' "
                    f"{kind.replace('_', ' ')} has been played, and {_KIND_EN[phase]} is due",
                    f"«{team}» не может играть {_KIND_ACC_RU[kind]}: {played_ru}, теперь — "
                    f"{_KIND_RU[phase]}",
                )
            raise self._refuse(
                *clause,
                f"«{team}» cannot play {_KIND_EN[kind]} now: {_KIND_EN[phase]} of the {part} "
                "series comes first",
                f"«{team}» пока не может играть {_KIND_ACC_RU[kind]}: сначала "
                f"{_KIND_RU[phase]} {gen} серии",
            )
        if self.is2023:
            self._check_2023(kind, team, decisive_round)
        else:
            self._check_2009(kind, team, decisive_round)

    def _refuse_withdrawn(self, team: str, c2023: str, c2009: str) -> None:
        s = self.series
        assert s is not None
        if team in s.withdrawn:
            raise self._refuse(
                c2023,
                c2009,
                f"«{team}» withdrew from the {s.part} series and plays no game in it",
                f"«{team}» отказалась от участия в {_PART_RU[s.part]} серии и в ней не играет",
            )

    def _check_2023(self, kind: str, team: str, decisive_round: bool) -> None:
        s = self.series
        assert s is not None
        part, gen = s.part, _PART_RU[s.part]
        if kind == "qualifying":
            order = s.order or []
            number = s.qualifying_played + 1
            due = order[s.qualifying_played]
            if team in self.winter and team not in self.rating:
                raise self._refuse(
                    "§4.7.2",
                    "§4.7.2",
                    f"«{team}» cannot play a qualifying game: it played a series final and "
                    "is through to the winter series",
                    f"«{team}» не может играть отборочную игру: она сыграла финал серии и уже "
                    "вышла в зимнюю серию",
                )
            self._refuse_withdrawn(team, "§4.8.1", "§4.8.1")
            if team in order[: s.qualifying_played]:
                raise self._refuse(
                    "§4.8",
                    "§4.8",
                    f"«{team}» has already played its qualifying game of the {part} series",
                    f"«{team}» уже сыграла свою отборочную игру {gen} серии",
                )
            if team != due and team in order:
                raise self._refuse(
                    "§4.8",
                    "§4.8",
                    f"«{team}» plays out of turn: qualifying game {number} of the {part} "
                    f"series is «{due}»'s (the team lowest in the rating plays first, the "
                    "first place last)",
                    f"«{team}» играет не в свою очередь: {number}-ю отборочную игру {gen} "
                    f"серии играет «{due}» (первой играет команда с последнего места рейтинга, "
                    "последней — с первого)",
                )
            if team != due:
                raise self._refuse(
                    "§4.8",
                    "§4.8",
                    f"«{team}» plays no qualifying game of the {part} series: they are played "
                    f"by the first {s.qualifying} places of the rating, game {number} by "
                    f"«{due}»",
                    f"«{team}» не играет отборочных игр {gen} серии: их играют первые "
                    f"{s.qualifying} мест рейтинга, {number}-ю — «{due}»",
                )
            if decisive_round:
                self._refuse_if_abolished()
                best = self._series_best()
                if best is None or all(
                    can_pass_without_decisive(v, (best.experts, best.viewers), self.target)
                    for v in range(self.target)
                ):
                    raise self._refuse(
                        "§3.6",
                        "§3.6",
                        f"«{team}»'s game may not have a decisive round: no team that played "
                        f"earlier in the {part} series leads the rating with a result that "
                        "could not be passed without one",
                        f"решающий раунд в игре «{team}» не положен: ни одна команда, "
                        f"сыгравшая в {gen} серии раньше, не стоит первой в рейтинге с "
                        "результатом, который без него не превзойти",
                    )
            return
        if decisive_round:
            raise self._refuse(
                "§3.6",
                "§3.6",
                f"{_KIND_EN[kind]} has no decisive round: there is no result of an earlier "
                "game of the series to pass",
                f"в игре вида «{_KIND_RU[kind]}» решающего раунда нет: превосходить "
                "результат сыгравших раньше в ней не нужно",
            )
        if kind == "series_final":
            finalist = self._finalist()
            if team != finalist:
                raise self._refuse(
                    "§4.7.1",
                    "§4.7.1",
                    f"«{team}» cannot play the {part} series final: «{finalist}» is first in "
                    "the rating after the qualifying games",
                    f"«{team}» не может играть финал {gen} серии: по итогам отборочных игр "
                    f"первая в рейтинге — «{finalist}»",
                )
        elif kind == "special":
            if team in self.rating:
                raise self._refuse(
                    "§4.6",
                    "§4.6",
                    f"«{team}» cannot play the special game: it is in the rating, and the "
                    "teams of special games take no part in it",
                    f"«{team}» не может играть специальную игру: она в рейтинге, а "
                    "участницы специальных игр в рейтинге не участвуют",
                )
        elif kind == "year_final":
            if not self.rating or team != self.rating[0]:
                first = self.rating[0] if self.rating else None
                raise self._refuse(
                    "§4.10",
                    "§4.10",
                    f"«{team}» cannot play the year final: «{first}» is first in the winter rating",
                    f"«{team}» не может играть финал года: первая в рейтинге зимней серии — "
                    f"«{first}»",
                )

    def _refuse_if_abolished(self) -> None:
        """2023 §4.12.1: a decisive round after an amendment set ``decisive_round`` false."""
        if not self.rules.get("decisive_round", False):
            event = next(a.event for a in reversed(self.amendments) if "decisive_round" in a.set)
            raise SeasonViolation(
                self.index,
                AMEND_CLAUSE,
                f"the decisive round (§3.6) was abolished by the amendment of event {event}",
                f"решающий раунд (п. 3.6) отменён изменением правил (событие {event})",
            )

    def _check_2009(self, kind: str, team: str, decisive_round: bool) -> None:
        s = self.series
        assert s is not None
        part, gen = s.part, _PART_RU[s.part]
        if decisive_round:
            raise self._refuse(
                "§1.8",
                "§1.8",
                "a 2009 game has no decisive round: it goes to 6 points",
                "в игре по правилам 2009 г. решающего раунда нет: игра идёт до 6 очков",
            )
        if kind == "rematch":
            if team != s.rematch_team:
                raise self._refuse(
                    "§2.10",
                    "§2.10",
                    f"«{team}» has no rematch in the {part} series: none was granted to it",
                    f"у «{team}» нет Матча-реванша в {gen} серии: он ей не предоставлен",
                )
            if any(r.team == team for r in s.results):
                raise self._refuse(
                    "§2.10",
                    "§2.10",
                    f"«{team}» has already played its rematch",
                    f"«{team}» уже сыграла Матч-реванш",
                )
            return
        if kind == "qualifying":
            if team in self.winter and team not in self.rating:
                raise self._refuse(
                    "§2.12",
                    "§2.12",
                    f"«{team}» cannot play a qualifying game: it won a series final and left "
                    "the rating for the winter series",
                    f"«{team}» не может играть отборочную игру: она выиграла финал серии и "
                    "покинула ТРК ради места в зимней серии",
                )
            if team not in self.rating:
                raise self._refuse(
                    "§2.4",
                    "§2.4",
                    f"«{team}» is not on the list of the {part} series and plays no game in it",
                    f"«{team}» нет в списке команд {gen} серии, и в ней она не играет",
                )
            self._refuse_withdrawn(team, "§2.3", "§2.3")
            if team == s.rematch_team:
                raise self._refuse(
                    "§2.10",
                    "§2.10",
                    f"«{team}» plays its rematch in the {part} series, not a qualifying game",
                    f"«{team}» играет в {gen} серии Матч-реванш, а не отборочную игру",
                )
            if any(r.team == team for r in s.results):
                raise self._refuse(
                    "§2.4",
                    "§2.4",
                    f"«{team}» has already played its qualifying game of the {part} series",
                    f"«{team}» уже сыграла свою отборочную игру {gen} серии",
                )
            due = self.next_game()
            if due is not None and due.team != team:
                raise self._refuse(
                    "§2.14",
                    "§2.14",
                    f"«{team}» cannot play the first winter qualifying game: it is the "
                    f"sponsor's team «{due.team}»'s",
                    f"«{team}» не может играть первую отборочную игру зимней серии: её играет "
                    f"команда спонсора «{due.team}»",
                )
            if s.rematch_team is not None:
                top = self._rematch_top_two()
                if team not in top:
                    raise self._refuse(
                        "§2.10",
                        "§2.10",
                        f"«{team}» plays no qualifying game of the {part} series: with "
                        f"«{s.rematch_team}»'s rematch in it, its other qualifying games are "
                        f"played by {_names_and(top)}",
                        f"«{team}» не играет отборочных игр {gen} серии: в ней Матч-реванш "
                        f"«{s.rematch_team}», остальные отборочные игры играют "
                        f"{_names_and(top, 'и')}",
                    )
                regular = sum(1 for r in s.results if r.kind == "qualifying")
                if regular >= s.qualifying - 1:
                    raise self._refuse(
                        "§2.10",
                        "§2.10",
                        f"«{team}» cannot play the last qualifying game of the {part} series: "
                        f"it is «{s.rematch_team}»'s rematch",
                        f"«{team}» не может играть последнюю отборочную игру {gen} серии: это "
                        f"Матч-реванш «{s.rematch_team}»",
                    )
            return
        if kind == "series_final":
            finalist = self._finalist()
            if team != finalist:
                raise self._refuse(
                    "§2.9",
                    "§2.9",
                    f"«{team}» cannot play the {part} series final: «{finalist}» is first in "
                    "the rating",
                    f"«{team}» не может играть финал {gen} серии: первая в рейтинге — «{finalist}»",
                )
        elif kind == "year_final":
            if not self.rating or team != self.rating[0]:
                first = self.rating[0] if self.rating else None
                raise self._refuse(
                    "§2.18",
                    "§2.18",
                    f"«{team}» cannot play the year final: «{first}» is first in the rating",
                    f"«{team}» не может играть финал года: первая в рейтинге — «{first}»",
                )

    def _on_game(self, event: Event) -> None:
        kind, team, score = event.kind, event.team, event.score
        assert kind is not None and team is not None and score is not None
        self._known(team)
        experts, viewers = score
        win = self.target
        if (experts == win) == (viewers == win) or max(experts, viewers) > win:
            points = ru_plural(win, ("очка", "очков", "очков"))
            raise self._refuse(
                "§3.10",
                "§1.8",
                f"{experts}:{viewers} is not the score of a finished game: the game goes to "
                f"{win} points",
                f"{experts}:{viewers} — не счёт законченной игры: игра идёт до {win} {points}",
            )
        if event.decisive_round and self.is2023 and score not in ((win, 0), (0, win)):
            raise self._refuse(
                "§3.6",
                "§3.6",
                f"{experts}:{viewers} cannot end a game with a decisive round: it ends "
                f"{win}:0 or 0:{win}",
                f"{experts}:{viewers} не может быть счётом игры с решающим раундом: она "
                f"заканчивается {win}:0 или 0:{win}",
            )
        self.check_game(kind, team, event.decisive_round)
        s = self.series
        assert s is not None
        result = Result(
            event=self.index,
            team=team,
            kind=kind,
            experts=experts,
            viewers=viewers,
            decisive_round=event.decisive_round,
            part=s.part,
            rounds_lost=event.rounds_lost,
        )
        rule = self._apply_game(result)
        self.results.append(result)
        self.history.append(
            Move(
                event=self.index,
                team=team,
                kind=kind,
                score=result.score,
                rating_after=tuple(self.rating),
                rule=f"{self.file} {rule}",
            )
        )

    def _apply_game(self, result: Result) -> str:
        """Record ``result`` and move the rating; return the clause applied."""
        s = self.series
        assert s is not None
        team, kind = result.team, result.kind
        if kind in ("qualifying", "rematch"):
            rule = self._place_2023(result) if self.is2023 else self._place_2009(result)
            s.results.append(result)
            if not self.is2023:
                if kind == "rematch" and not result.won:
                    self._put_out(team, f"{self.file} §2.11")
                    rule = "§2.11"
                elif (
                    s.part == "winter"
                    and team == self.sponsor
                    and not result.won
                    and s.results[0] is result
                ):
                    self._put_out(team, f"{self.file} §2.14")
                    rule = "§2.14"
        elif kind == "series_final":
            s.final_played = True
            self.finals.append(
                Final(part=s.part, team=team, score=result.score, won=result.won, event=self.index)
            )
            self.final_results.append(result)
            self.last_final = result
            if self.is2023:
                if s.part != "winter" and team not in self.winter:
                    self.winter.append(team)  # §4.7.2
                rule = "§4.7.2"
            elif result.won:
                if s.part != "winter":
                    self.winter.append(team)  # §2.12: leaves the rating for winter
                    self.rating = [t for t in self.rating if t != team]
                rule = "§2.12"
            else:
                self.rating = [t for t in self.rating if t != team] + [team]  # §2.10
                rule = "§2.10"
        elif kind == "special":
            s.special_played = True
            rule = "§4.6"
        else:  # year_final
            s.year_final_played = True
            self.over = True
            rule = "§4.10" if self.is2023 else "§2.18"
        if self.is2023 and not result.won and kind in ("qualifying", "series_final"):
            self.losses[team] = self.losses.get(team, 0) + 1
            if self.losses[team] >= self.rules["losses_to_out"]:  # §4.4 (as amended, §4.12.1)
                self._put_out(team, f"{self.file} §4.4")
                rule = "§4.4"
        return rule

    def _on_withdraw(self, event: Event) -> None:
        """2023 §4.8.1, 2009 §2.3: a team refuses the coming series. Between two series it
        refuses the series that opens next (:meth:`_withdraw_coming`); once a series is open,
        that series, until the team's first game in it. 2023: the team goes to the bottom line
        of the rating, the teams below it move up, the qualifying order is drawn again for the
        games not yet played; 2009: it keeps its place and plays no game of the series."""
        team = self._known(event.team or "")
        if self.over:
            raise self._refuse(
                "§4.10",
                "§2.18",
                f"«{team}» has no series left to withdraw from: the year final is played and "
                "the season is over",
                f"«{team}» не может отказаться от серии: финал года сыгран, сезон окончен",
            )
        self._refuse_if_out(team)
        if self.phase() == "series":
            self._withdraw_coming(team)
            return
        s = self.series
        assert s is not None
        part, gen = s.part, _PART_RU[s.part]
        if team in s.withdrawn:
            raise self._refuse(
                "§4.8.1",
                "§2.3",
                f"«{team}» has already withdrawn from the {part} series",
                f"«{team}» уже отказалась от участия в {gen} серии",
            )
        if any(r.team == team and r.part == part for r in self.results):
            raise self._refuse(
                "§4.8.1",
                "§2.3",
                f"«{team}» has already played in the {part} series and can no longer withdraw "
                "from it",
                f"«{team}» уже играла в {gen} серии и отказаться от неё больше не может",
            )
        if team not in self.rating:
            self._refuse_no_place(team, part)
        if team == s.rematch_team:
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» cannot withdraw from the {part} series: it asked for a rematch and "
                "plays it in this series",
                f"«{team}» не может отказаться от участия в {gen} серии: в ней она играет "
                "свой Матч-реванш",
            )
        s.withdrawn.append(team)
        if self.is2023:  # §4.8.1: to the bottom line, the teams below move up
            self.rating = [t for t in self.rating if t != team] + [team]
        short = self._shortage(team)
        if short:
            if self.is2023:
                clause = "§4.8"
            elif s.rematch_team is not None:
                clause = "§2.10"
            elif part == "winter":
                clause = "§2.15" if len(s.opened_rating) >= 4 else "§2.16"
            else:
                clause = "§2.6"
            raise self._refuse(clause, clause, *short)
        if self.is2023:
            s.order = self._order_2023()

    def _refuse_no_place(self, team: str, part: str, coming: bool = False) -> NoReturn:
        """Refuse the withdrawal of ``team``, which has no place in the ``part`` series (the
        open one, or the ``coming`` one): through to winter, a reserve, not in the rating."""
        which, which_ru = ("coming ", "предстоящей ") if coming else ("", "")
        head = f"«{team}» cannot withdraw from the {which}{part} series: it has no place in it"
        head_ru = (
            f"«{team}» не может отказаться от участия в {which_ru}{_PART_RU[part]} серии: "
            "места в ней у неё нет"
        )
        if team in self.winter and team not in self.rating:
            if self.is2023:
                raise self._refuse(
                    "§4.7.2",
                    "§4.7.2",
                    f"{head}, having played a series final it is through to the winter series",
                    f"{head_ru} — она сыграла финал серии и уже вышла в зимнюю серию",
                )
            raise self._refuse(
                "§2.12",
                "§2.12",
                f"{head}, having won a series final it left the rating for the winter series",
                f"{head_ru} — она выиграла финал серии и покинула ТРК ради места в зимней серии",
            )
        if team in self.reserves:
            raise self._refuse(
                "§4.9.3",
                "§4.9.3",
                f"{head}, a reserve team is drawn into the winter series only",
                f"{head_ru} — команды резерва привлекаются только к зимней серии",
            )
        raise self._refuse(
            "§4.8.1",
            "§2.4",
            f"{head}, it is not in the series' rating",
            f"{head_ru} — её нет в рейтинге серии",
        )

    def _withdraw_coming(self, team: str) -> None:
        """Between two series: ``team`` refuses the series that opens next; the refusal applies
        when it opens (:meth:`_on_series`). Refused when the team cannot be in that series
        (through to winter, a reserve before winter, a 2009 rematch it asked for), when the
        teams left could not play its qualifying games, and in 2009 before the winter series
        (§2.13: its rating is formed anew; a winner gives its place up only under §2.12)."""
        assert len(self.parts) < len(PARTS)  # the winter series ends with the year final
        coming = PARTS[len(self.parts)]
        gen = _PART_RU[coming]
        if team in self.refusing:
            raise self._refuse(
                "§4.8.1",
                "§2.3",
                f"«{team}» has already withdrawn from the coming {coming} series",
                f"«{team}» уже отказалась от участия в предстоящей {gen} серии",
            )
        if self.is2023:
            if coming != "winter" and (team in self.winter or team in self.reserves):
                self._refuse_no_place(team, coming, coming=True)
            candidates = [
                t
                for t in self.teams
                if self._out_rule(t) is None
                and (coming == "winter" or (t not in self.reserves and t not in self.winter))
            ]
            need = min(q for q, _c in SERIES_SHAPES_2023[coming])
            clause = "§4.9.3" if coming == "winter" else "§4.8"
            rematch = None
        else:
            if coming == "winter":
                raise self._refuse(
                    "§2.13",
                    "§2.13",
                    f"«{team}» cannot withdraw from the winter series: its rating is formed anew "
                    "of the finals' winners and the sponsor's team, and a winner gives its "
                    "place up only before the end of its final's programme (§2.12)",
                    f"«{team}» не может отказаться от зимней серии: её рейтинг формируется "
                    "заново из победителей финалов и команды спонсора, а победитель "
                    "отказывается от места только до окончания финальной программы, как велит "
                    "п. 2.12",
                )
            if team not in self.rating:
                self._refuse_no_place(team, coming, coming=True)
            rematch = self.rematch_pending
            if team == rematch:
                raise self._refuse(
                    "§2.10",
                    "§2.10",
                    f"«{team}» cannot withdraw from the coming {coming} series: it asked for a "
                    "rematch and plays it there",
                    f"«{team}» не может отказаться от участия в предстоящей {gen} серии: в ней "
                    "она играет свой Матч-реванш",
                )
            candidates = [t for t in self.rating if t != rematch]
            need = SERIES_SHAPE_2009[0] - (1 if rematch is not None else 0)
            clause = "§2.10" if rematch is not None else "§2.6"
        left = [t for t in candidates if t not in self.refusing and t != team]
        if team in candidates and len(left) < need:
            raise self._refuse(
                clause,
                clause,
                f"«{team}» cannot withdraw from the coming {coming} series: without it and the "
                f"teams that withdrew before, {len(left)} teams are left for at least {need} "
                "qualifying games",
                f"«{team}» не может отказаться от участия в предстоящей {gen} серии: без неё и "
                f"уже отказавшихся команд для {_qualifying_gen_ru(need)} останется "
                f"{_teams_ru(len(left))}",
            )
        self.refusing.append(team)

    def _on_rematch(self, event: Event) -> None:
        team = self._known(event.team or "")
        if self.is2023:
            raise self._refuse(
                "§4.1",
                "§4.1",
                "a rematch is a 2009 event: the 2023 rules have none",
                "переигровки (матча-реванша) в правилах 2023 г. нет: это событие правил 2009 г.",
            )
        final = self.last_final
        if final is None or final.team != team:
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» cannot ask for a rematch: it has not just lost a series final "
                "(the loser asks before the end of that final's programme)",
                f"«{team}» не может просить о Матче-реванше: она не проигрывала только что "
                "финал серии, а проигравшая просит до окончания финальной программы",
            )
        gen = _PART_RU[final.part]
        if final.won:
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» won the {final.part} series final: only its loser may ask for a rematch",
                f"«{team}» выиграла финал {gen} серии: о Матче-реванше просит только проигравшая",
            )
        if event.granted and final.part in ("autumn", "winter"):
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» cannot be granted a rematch after the {final.part} final: a rematch "
                "is played in the next series, and no series with qualifying games of this "
                "rating follows",
                f"Матч-реванш «{team}» после финала {gen} серии не предоставить: он играется "
                "в следующей серии, а серии с отборочными играми этого рейтинга дальше нет",
            )
        if event.granted and team in self.refusing:
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» cannot be granted a rematch: it withdrew from the coming series, "
                "where the rematch would be played",
                f"Матч-реванш «{team}» не предоставить: она отказалась от участия в "
                "предстоящей серии, где он был бы сыгран",
            )
        if self.rematch_pending is not None:
            raise self._refuse(
                "§2.10",
                "§2.10",
                f"«{team}» has already asked for a rematch",
                f"«{team}» уже просила о Матче-реванше",
            )
        if event.granted:
            self.rematch_pending = team

    def _on_decline_winter(self, event: Event) -> None:
        team = self._known(event.team or "")
        if self.is2023:
            raise self._refuse(
                "§4.7.2",
                "§4.7.2",
                "giving up a winter place is a 2009 event: a 2023 series finalist goes "
                "straight to the winter series",
                "отказа от места в зимней серии в правилах 2023 г. нет (событие правил 2009 г.): "
                "финалист серии сразу выходит в зимнюю серию",
            )
        final = self.last_final
        if final is None or final.team != team:
            en = (
                f"«{team}» has no winter place to give up now: it has not just won a series "
                "final (the winner gives it up before the end of that final's programme)"
            )
            ru = (
                f"«{team}» не может сейчас отказаться от места в зимней серии: она не "
                "выигрывала только что финал серии, а победитель отказывается до окончания "
                "финальной программы"
            )
        elif not final.won:
            en = f"«{team}» lost the {final.part} series final and has no winter place to give up"
            ru = (
                f"«{team}» проиграла финал {_PART_RU[final.part]} серии: места в зимней серии, "
                "от которого можно отказаться, у неё нет"
            )
        elif final.part == "winter":
            en = f"«{team}» won the winter series final: there is no winter place to give up"
            ru = f"«{team}» выиграла финал зимней серии: отказываться от места в ней поздно"
        elif team not in self.winter:
            en = f"«{team}» has already given up its winter place"
            ru = f"«{team}» уже отказалась от места в зимней серии"
        else:
            self.winter.remove(team)
            self.rating = [team] + [t for t in self.rating if t != team]
            self.last_final = None
            return
        raise self._refuse("§2.12", "§2.12", en, ru)

    def _on_enter(self, event: Event) -> None:
        team = event.team or ""
        if team in self.teams:
            raise ProtocolError(f"team «{team}» is already in the season", self.index)
        if self.is2023 and event.enter_as != "reserve":
            raise self._refuse(
                "§4.9.3",
                "§4.9.3",
                f"«{team}» cannot enter as a sponsor's team: the 2023 rules have none, a team "
                "joins the season as a reserve team (§4.9.3)",
                "команды спонсора в правилах 2023 г. нет: в зимний рейтинг входят "
                "резервные команды",
            )
        if not self.is2023 and event.enter_as != "sponsor":
            raise self._refuse(
                "§2.13",
                "§2.13",
                f"«{team}» cannot enter as a reserve team: the 2009 rules have none, the "
                "sponsor's team joins the winter rating",
                "резервных команд в правилах 2009 г. нет: в зимний рейтинг входит команда спонсора",
            )
        if "winter" in self.parts:
            raise self._refuse(
                "§4.9",
                "§2.13",
                f"«{team}» enters too late: the winter rating was formed when the winter "
                "series opened",
                f"«{team}» входит слишком поздно: рейтинг зимней серии сформирован при её открытии",
            )
        if not self.is2023 and self.sponsor is not None:
            raise self._refuse(
                "§2.13",
                "§2.13",
                f"«{team}» cannot enter as the sponsor's team: «{self.sponsor}» has entered as "
                "it already",
                f"«{team}» не может войти как команда спонсора: команда спонсора "
                f"«{self.sponsor}» уже вошла",
            )
        self.teams.append(team)
        if self.is2023:
            self.reserves.append(team)
        else:
            self.sponsor = team

    def _on_amend(self, event: Event) -> None:
        """2023 §4.12.1: the rules change during the project. From the next event on the
        parameters of ``event.set`` take their values; what was played before keeps its rules
        (a game's own rules travel in its protocol). Refused (§4.12.1): an unknown parameter,
        one the book does not have, a wrong type or a value out of range
        (:func:`webapp.domain.rules.parameters.check_values`)."""
        try:
            changes = check_values(self.ruleset, event.set)
        except ParameterError as error:
            raise SeasonViolation(
                self.index,
                AMEND_CLAUSE,
                f"the amendment is refused: {error.message}",
                f"изменение правил не принято: {error.ru}",
            ) from None
        self.rules = {**self.rules, **changes}
        self.amendments.append(Amendment(self.index, changes, event.note or ""))

    # ----------------------------------------------------------------- state

    def state(self) -> SeasonState:
        """The derived :class:`SeasonState` now."""
        s = self.series
        return SeasonState(
            ruleset=self.ruleset,
            series=None
            if s is None
            else SeriesState(s.part, s.qualifying_played, s.qualifying, s.closing),
            rating=tuple(self.rating),
            next=self.next_game(),
            order=None if s is None or s.order is None else tuple(s.order),
            series_best=self._series_best(),
            finals=tuple(self.finals),
            winter=tuple(self.winter),
            out=tuple(self.out),
            history=tuple(self.history),
            over=self.over,
            results=tuple(self.results),
            reserves=tuple(self.reserves),
            sponsor=self.sponsor,
            refusing=tuple(self.refusing),
            withdrawn=() if s is None else tuple(s.withdrawn),
            rules=dict(self.rules),
            amendments=tuple(self.amendments),
        )


def replay_season(document: Any) -> SeasonState:
    """Replay a ``sova.season-protocol/1`` document (the parsed JSON object) and return its
    :class:`SeasonState`. Raises :class:`ProtocolError` (malformed; all events are checked
    for shape first) or :class:`SeasonViolation` (the first event the rules refuse)."""
    ruleset, teams, events = load_season(document)
    season = Season.start(ruleset, teams)
    for index, event in enumerate(events):
        season.apply(event, index)
    return season.state()


def to_json(state: SeasonState) -> dict[str, Any]:
    """``state.to_json()``: the contract's output of ``sova season replay``."""
    return state.to_json()


__all__ = [
    "BOOKS",
    "FORMAT",
    "Amendment",
    "Event",
    "Final",
    "Move",
    "NextGame",
    "Out",
    "Result",
    "Season",
    "SeasonState",
    "SeasonViolation",
    "SeriesState",
    "load_season",
    "parse_event",
    "replay_season",
    "to_json",
]
