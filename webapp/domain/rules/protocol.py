"""Parsing and validation of the game protocol ``sova.game-protocol/1``
(``shared/contracts/game-protocol.md``).

Everything here is about *shape* (types, fields, known names) and raises
:class:`ProtocolError`; whether an event is allowed at its point of the game is decided by
:mod:`webapp.domain.rules.game` and raises :class:`RuleViolation`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from .errors import ProtocolError
from .parameters import PARAMETERS, ParameterError, check_values
from .rulesets import SECTOR13_OPTIONS, HasRules, RuleSet
from .table import Table

B = TypeVar("B", bound="RuleSet | HasRules")
"""A book as the caller's registry holds it (a :class:`RuleSet`, or a book holding one)."""

FORMAT = "sova.game-protocol/1"

EVENT_TYPES = (
    "spin",
    "sector13_option",
    "decisive_round",
    "extra_minute",
    "club_help",
    "credit_minute",
    "answer",
    "red_card",
    "minute",
)

#: Events the rules ignore: they are recorded and replayed, never refused at any point of
#: the game (the host's taps when the discussion minute starts and stops).
UNRULED_EVENT_TYPES = frozenset({"minute"})
MINUTE_ACTIONS = ("start", "stop")

_SCORE_RE = re.compile(r"^(\d{1,2}):(\d{1,2})$")


@dataclass(frozen=True)
class Context:
    """What the rules need from outside the game.

    ``series_best``: best result so far in the series as ``(experts, viewers)``, or ``None``
    (rule 000_90d7c8192601ed3a.txt §3.6). ``sector13_options_used``: sector-13 options the
    team has used since it last used all three (§3.4.3). ``off_table``: experts of the
    playing team who hinted (a red card naming them) since its previous game and so start
    this game off the table until the team's first right answer (§3.7.3); ``()`` by default.
    ``experts``: the playing team's experts (names), when known: under 2009 the expert an
    answer names must be one of them, for the removal rule removes a real player
    (002_e025d5ded135c1c4.txt §1.6); ``()`` (unknown: a protocol without a team) checks
    nothing.
    """

    series_best: tuple[int, int] | None = None
    sector13_options_used: tuple[str, ...] = ()
    off_table: tuple[str, ...] = ()
    experts: tuple[str, ...] = ()

    def sector13_options_available(self) -> tuple[str, ...]:
        """Options the team may choose now (§3.4.3): those not used in the current cycle;
        all three once the cycle is complete."""
        used = set(self.sector13_options_used)
        if used >= set(SECTOR13_OPTIONS):
            return SECTOR13_OPTIONS
        return tuple(o for o in SECTOR13_OPTIONS if o not in used)


@dataclass(frozen=True)
class Event:
    """One parsed event. Only the fields of its ``type`` are set (see the contract's table)."""

    type: str
    sector: int | None = None
    option: str | None = None
    correct: bool | None = None
    early: bool = False
    expert: str | None = None
    team: str | None = None
    action: str | None = None
    at: datetime | None = None
    sector13_empty: bool = False


def parse_ruleset(ruleset: Any, books: Mapping[str, B]) -> B:
    """The book of the protocol's ``ruleset`` in ``books`` (the registry the caller holds:
    the engine never looks a book up by itself); :class:`ProtocolError` for a name it lacks."""
    if not isinstance(ruleset, str) or ruleset not in books:
        raise ProtocolError(
            f"unknown ruleset {ruleset!r}; expected one of {', '.join(sorted(books))}"
        )
    return books[ruleset]


def parse_table(table: Any) -> Table:
    """``{"blitz": int|None, "superblitz": int|None, "sector13": int|None}`` → :class:`Table`.

    Missing keys mean ``None``; sectors are ints in 1..13 and distinct (rule §3.3 / §1.3).
    """
    if not isinstance(table, dict):
        raise ProtocolError(f"table must be an object, got {type(table).__name__}")
    keys = ("blitz", "superblitz", "sector13")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise ProtocolError(f"table has unknown keys {unknown}; expected {list(keys)}")
    values: dict[str, int | None] = {}
    for key in keys:
        value = table.get(key)
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ProtocolError(f"table.{key} must be a sector number or null, got {value!r}")
            if not 1 <= value <= 13:
                raise ProtocolError(f"table.{key} must be a sector 1..13, got {value}")
        values[key] = value
    placed = [v for v in values.values() if v is not None]
    if len(placed) != len(set(placed)):
        raise ProtocolError(f"table sectors must be distinct, got {values}")
    return Table(**values)


_MAX_POINTS = PARAMETERS["points_to_win"].high or 6


def parse_score(text: Any, what: str) -> tuple[int, int]:
    """``"E:V"`` (experts first, each 0..12: six, or an amended ``points_to_win``, §4.12.1)
    → ``(E, V)``."""
    match = _SCORE_RE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ProtocolError(f'{what} must be a score "E:V" such as "6:1", got {text!r}')
    experts, viewers = int(match.group(1)), int(match.group(2))
    if experts > _MAX_POINTS or viewers > _MAX_POINTS:
        raise ProtocolError(
            f"{what} must be a score with at most {_MAX_POINTS} points a side, got {text!r}"
        )
    return experts, viewers


def parse_rules(book: RuleSet | HasRules, rules: Any) -> dict[str, int | bool]:
    """A protocol's optional ``rules`` (``{parameter: value}``, 000_90d7c8192601ed3a.txt
    §4.12.1): ``None`` → ``{}``; otherwise checked against the rule set's amendable
    parameters (:mod:`webapp.domain.rules.parameters`) and returned as given (partial: the
    book's values for the rest). An unknown parameter or a bad value: :class:`ProtocolError`."""
    if rules is None:
        return {}
    try:
        return check_values(book, rules)
    except ParameterError as error:
        raise ProtocolError(f"rules: {error.message}") from None


def parse_context(context: Any) -> Context:
    """``None`` or ``{"series_best": "E:V"|None, "sector13_options_used": [option…],
    "off_table": [name…], "experts": [name…]}`` (every key optional; the contract's two,
    and the two this engine reads besides: ``off_table`` 2023 §3.7.3, ``experts`` 2009
    §1.6). Other keys are ignored (they are not the rules' business).
    """
    if context is None:
        return Context()
    if not isinstance(context, dict):
        raise ProtocolError(f"context must be an object or null, got {type(context).__name__}")
    best_raw = context.get("series_best")
    best = None if best_raw is None else parse_score(best_raw, "context.series_best")
    used_raw = context.get("sector13_options_used")
    if used_raw is None:
        used_raw = []
    if not isinstance(used_raw, list):
        raise ProtocolError("context.sector13_options_used must be a list of options")
    for option in used_raw:
        if option not in SECTOR13_OPTIONS:
            raise ProtocolError(
                f"context.sector13_options_used: unknown option {option!r}; "
                f"expected {', '.join(SECTOR13_OPTIONS)}"
            )
    if len(set(used_raw)) != len(used_raw):
        raise ProtocolError(f"context.sector13_options_used repeats an option: {used_raw}")
    off_raw = context.get("off_table")
    if off_raw is None:
        off_raw = []
    if not isinstance(off_raw, list) or not all(
        isinstance(name, str) and name.strip() for name in off_raw
    ):
        raise ProtocolError("context.off_table must be a list of expert names")
    experts_raw = context.get("experts")
    if experts_raw is None:
        experts_raw = []
    if not isinstance(experts_raw, list) or not all(
        isinstance(name, str) and name.strip() for name in experts_raw
    ):
        raise ProtocolError("context.experts must be a list of expert names")
    return Context(
        series_best=best,
        sector13_options_used=tuple(used_raw),
        off_table=tuple(off_raw),
        experts=tuple(experts_raw),
    )


def _field(raw: dict[str, Any], name: str, kind: type, index: int, required: bool) -> Any:
    if name not in raw or raw[name] is None:
        if required:
            raise ProtocolError(f"событию {raw.get('type')} нужно поле «{name}»", index)
        return None
    value = raw[name]
    wrong = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
    if wrong:
        raise ProtocolError(
            f"{raw.get('type')}.{name}: нужен тип {kind.__name__}, получено {value!r}", index
        )
    return value


def parse_event(raw: Any, index: int) -> Event:
    """One event object → :class:`Event`. Unknown extra fields (e.g. a timestamp) are ignored."""
    if not isinstance(raw, dict):
        raise ProtocolError(f"событие — объект JSON, получено {type(raw).__name__}", index)
    kind = raw.get("type")
    if kind not in EVENT_TYPES:
        raise ProtocolError(
            f"неизвестный тип события {kind!r}; допустимы: {', '.join(EVENT_TYPES)}", index
        )
    if kind == "spin":
        # Sova's extension (docs/protocols.md): the 2009 draw found no live question, so
        # the empty sector 13 is passed over (002_e025d5ded135c1c4.txt §1.4.1, §1.4)
        empty = _field(raw, "sector13_empty", bool, index, required=False) or False
        return Event(
            type=kind,
            sector=_field(raw, "sector", int, index, required=True),
            sector13_empty=empty,
        )
    if kind == "sector13_option":
        option = _field(raw, "option", str, index, required=True)
        if option not in SECTOR13_OPTIONS:
            raise ProtocolError(
                f"sector13_option.option — один из: {', '.join(SECTOR13_OPTIONS)}; "
                f"получено {option!r}",
                index,
            )
        return Event(type=kind, option=option)
    if kind == "answer":
        correct = _field(raw, "correct", bool, index, required=True)
        early = _field(raw, "early", bool, index, required=False) or False
        expert = _field(raw, "expert", str, index, required=False)
        if expert is not None and not expert.strip():
            raise ProtocolError("answer.expert — непустое имя знатока", index)
        return Event(type=kind, correct=correct, early=early, expert=expert)
    if kind == "red_card":
        # optional: who hinted, and his team when it is not the playing team (2023 §3.7.3)
        expert = _field(raw, "expert", str, index, required=False)
        team = _field(raw, "team", str, index, required=False)
        if (expert is not None and not expert.strip()) or (team is not None and not team.strip()):
            raise ProtocolError("red_card.expert и red_card.team — непустые имена", index)
        return Event(type=kind, expert=expert, team=team)
    if kind == "minute":
        return _parse_minute(raw, index)
    return Event(type=kind)


def _parse_minute(raw: dict[str, Any], index: int) -> Event:
    """``{"type": "minute", "action": "start"|"stop", "at": ISO 8601 with an offset}``
    (``at`` optional in a file: the console's operation sets it from the server's clock)."""
    action = _field(raw, "action", str, index, required=True)
    if action not in MINUTE_ACTIONS:
        raise ProtocolError(
            f"minute.action — одно из: {', '.join(MINUTE_ACTIONS)}; получено {action!r}", index
        )
    text = _field(raw, "at", str, index, required=False)
    at = None
    if text is not None:
        try:
            at = datetime.fromisoformat(text)
        except ValueError:
            at = None
        if at is None or at.tzinfo is None:
            raise ProtocolError(
                f"minute.at — время ISO 8601 со смещением (2026-12-05T20:00:00+03:00); "
                f"получено {text!r}",
                index,
            )
    return Event(type="minute", action=action, at=at)


def parse_events(events: Any) -> list[Event]:
    """The event list → ``list[Event]``."""
    if not isinstance(events, list):
        raise ProtocolError(f"events must be a list, got {type(events).__name__}")
    return [parse_event(raw, i) for i, raw in enumerate(events)]


def load_protocol(
    data: Any, books: Mapping[str, B]
) -> tuple[B, dict[str, int | None], dict[str, Any] | None, list[dict[str, Any]]]:
    """Validate a protocol file's content and return ``(book, table, context, events)``,
    ready for :func:`replay`: ``book`` is the one of its ``ruleset`` in ``books``.

    ``data`` is the parsed JSON object: ``{"format": "sova.game-protocol/1", "ruleset":
    "2023"|"2009", "rules": {...} (optional), "table": {...}, "context": {...}|null
    (optional), "events": [...]}``. The table comes back with all three keys; context and
    events come back as given; ``rules`` is validated here (:func:`parse_rules`) and read with
    :func:`load_protocol_rules` (the tuple stays four long for the callers that replay under
    the book's own rules). Raises :class:`ProtocolError` for anything malformed; the rules of
    the game are not checked here.
    """
    if not isinstance(data, dict):
        raise ProtocolError(f"a protocol must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ProtocolError(f"format must be {FORMAT!r}, got {data.get('format')!r}")
    for key in ("ruleset", "table", "events"):
        if key not in data:
            raise ProtocolError(f"protocol needs {key!r}")
    book = parse_ruleset(data["ruleset"], books)
    parse_rules(book, data.get("rules"))
    table = parse_table(data["table"])
    context = data.get("context")
    parse_context(context)
    events = data["events"]
    parse_events(events)
    return book, table.to_json(), context, events


def load_protocol_rules(
    data: Any, books: Mapping[str, RuleSet | HasRules]
) -> dict[str, int | bool]:
    """The checked ``rules`` of a protocol already accepted by :func:`load_protocol` with the
    same ``books`` (``{}`` when absent): pass them as ``replay(..., rules=...)``."""
    return parse_rules(parse_ruleset(data["ruleset"], books), data.get("rules"))
