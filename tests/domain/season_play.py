"""Playing a season at random for the property tests: :class:`Draw` (choices from hypothesis
or a seeded ``random.Random``), :func:`random_event` (any well-formed event, legal or not),
:func:`legal_step` (one legal event, tried until the engine accepts one) and the checks every
refusal must pass on the way (:func:`try_event`)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from webapp.domain.books.b2009.season import Book2009
from webapp.domain.books.b2023.season import SERIES_SHAPES_2023, Book2023
from webapp.domain.rules import ProtocolError
from webapp.domain.season import PARTS, RuleBook, Season, SeasonViolation

CLAUSE = re.compile(r"^00[02]_[0-9a-f]+\.txt §\d+(\.\d+)*$")
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def check_refusal(exc: SeasonViolation) -> None:
    """Every refusal of the engine says its fault for a person: in English (``message``) and
    in Russian (``ru``, for the staff pages), neither naming a rule book's file."""
    assert exc.message and ".txt" not in exc.message, exc.message
    assert exc.ru and CYRILLIC.search(exc.ru) and ".txt" not in exc.ru, (exc.message, exc.ru)


class Draw:
    """Choices from hypothesis (``Draw(data)``) or from a seeded ``random.Random``."""

    def __init__(self, data: st.DataObject | None = None, seed: int = 0) -> None:
        self.data = data
        self.random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        if self.data is None:
            return self.random.randint(low, high)
        return self.data.draw(st.integers(low, high))

    def boolean(self) -> bool:
        return self.integer(0, 1) == 1

    def pick(self, items: Any) -> Any:
        items = list(items)
        return items[self.integer(0, len(items) - 1)]

    def shuffled(self, items: Any) -> list:
        items = list(items)
        if self.data is None:
            self.random.shuffle(items)
            return items
        return self.data.draw(st.permutations(items))


def score(data: Draw, won: bool, decisive: bool) -> str:
    if decisive:
        return "6:0" if won else "0:6"
    other = data.integer(0, 5)
    return f"6:{other}" if won else f"{other}:6"


def try_event(season: Season, events: list[dict], event: dict) -> bool:
    """Apply ``event``; keep it when accepted. A refusal must cite a clause and change
    nothing."""
    before = season.state()
    try:
        season.apply(event, len(events))
    except SeasonViolation as exc:
        assert CLAUSE.match(exc.rule), exc.rule
        assert exc.rule.startswith(season.file), exc.rule
        check_refusal(exc)
        assert exc.event_index == len(events)
        assert season.state() == before
        return False
    except ProtocolError:
        assert season.state() == before
        return False
    events.append(event)
    return True


@dataclass(frozen=True)
class Plan:
    """How a legal season of a book is played at random: its number of teams
    (``teams``: low, high), the kind of team that enters later (``entrant``: 2023's reserve,
    §4.9.3, or 2009's sponsor team, §2.13) and its name's first letter, the series shapes
    offered for a part, whether the season names the next qualifying team (2023 §4.8; 2009
    lets the teams choose, §2.3) and whether a series final may be followed by a rematch
    (2009 §2.10)."""

    teams: tuple[int, int]
    entrant: str
    prefix: str
    shapes: Any
    next_named: bool
    rematch: bool


PLANS: tuple[tuple[type[RuleBook], Plan], ...] = (
    (
        Book2023,
        Plan((5, 10), "reserve", "R", lambda part: SERIES_SHAPES_2023[part], True, False),
    ),
    (
        Book2009,
        Plan(
            (3, 6),
            "sponsor",
            "S",
            lambda part: ((3, "series_final"), (4, "none"), (3, "none")),
            False,
            True,
        ),
    ),
)


def plan_of(book: RuleBook | type[RuleBook]) -> Plan:
    """The :class:`Plan` of a season rule book (its class or an instance; a book built on
    another, as the toy book is on 2023's, plays as that one)."""
    cls = book if isinstance(book, type) else type(book)
    return next(plan for base, plan in PLANS if issubclass(cls, base))


def team_count(data: Draw, book: RuleBook | type[RuleBook]) -> int:
    """How many teams a random season of ``book`` starts with."""
    return data.integer(*plan_of(book).teams)


def random_event(data: Draw, teams: list[str]) -> dict[str, Any]:
    """Any well-formed event, legal or not."""
    kind = data.pick(["series", "game", "withdraw", "rematch", "decline_winter", "enter"])
    team = data.pick([*teams, "Новая"])
    if kind == "series":
        return {
            "type": "series",
            "part": data.pick(PARTS),
            "qualifying": data.integer(1, 6),
            "closing": data.pick(["series_final", "special", "year_final", "none"]),
        }
    if kind == "game":
        return {
            "type": "game",
            "team": team,
            "kind": data.pick(["qualifying", "series_final", "special", "year_final", "rematch"]),
            "score": f"{data.integer(0, 6)}:{data.integer(0, 6)}",
            "decisive_round": data.boolean(),
        }
    if kind == "rematch":
        return {"type": "rematch", "team": team, "granted": data.boolean()}
    if kind == "enter":
        return {"type": "enter", "team": team, "as": data.pick(["reserve", "sponsor"])}
    return {"type": kind, "team": team}


def legal_step(data: Draw, season: Season, events: list[dict]) -> bool:
    """Append one legal event (tries candidates until one is accepted); False when stuck."""
    phase = season.phase()
    state = season.state()
    plan = plan_of(season.book)
    if phase == "over":
        return False
    if phase == "series":
        part = PARTS[len(season.parts)]
        if data.integer(0, 3) == 0 and season.teams:  # a refusal of the coming series
            refusing = season.state().refusing
            if try_event(season, events, {"type": "withdraw", "team": data.pick(season.teams)}):
                assert season.state().refusing == (*refusing, events[-1]["team"])
                assert season.phase() == "series"
        if part == "winter" and data.boolean():
            name = f"{plan.prefix}{len(events)}"
            try_event(
                season,
                events,
                {"type": "enter", "team": name, "as": plan.entrant},
            )
        shapes = data.shuffled(plan.shapes(part))
        for qualifying, closing in shapes:
            if try_event(
                season,
                events,
                {"type": "series", "part": part, "qualifying": qualifying, "closing": closing},
            ):
                if data.integer(0, 3) == 0 and season.rating:
                    try_event(
                        season, events, {"type": "withdraw", "team": data.pick(season.rating)}
                    )
                return True
        return False
    won = data.boolean()
    if phase == "qualifying" and data.integer(0, 5) == 0 and season.rating:
        try_event(season, events, {"type": "withdraw", "team": data.pick(season.rating)})
        return True
    if phase == "qualifying":
        if plan.next_named:
            assert state.next is not None
            decisive = data.integer(0, 4) == 0
            event = {
                "type": "game",
                "kind": "qualifying",
                "team": state.next.team,
                "score": score(data, won, decisive),
                "decisive_round": decisive,
            }
            if try_event(season, events, event):
                return True
            event["decisive_round"] = False
            event["score"] = score(data, won, False)
            return try_event(season, events, event)
        candidates = data.shuffled(list(season.rating))
        for team in candidates:
            for kind in ("qualifying", "rematch"):
                if try_event(
                    season,
                    events,
                    {"type": "game", "kind": kind, "team": team, "score": score(data, won, False)},
                ):
                    return True
        return False
    if phase == "special":
        outside = [
            t
            for t in season.teams
            if t not in season.rating and not any(o.team == t for o in season.out)
        ]
        if not outside:
            return False
        return try_event(
            season,
            events,
            {
                "type": "game",
                "kind": "special",
                "team": data.pick(outside),
                "score": score(data, won, False),
            },
        )
    if state.next is None:
        return False
    accepted = try_event(
        season,
        events,
        {"type": "game", "kind": phase, "team": state.next.team, "score": score(data, won, False)},
    )
    if accepted and phase == "series_final" and plan.rematch:
        after = data.integer(0, 3)
        if after == 1:
            try_event(
                season,
                events,
                {"type": "rematch", "team": state.next.team, "granted": data.boolean()},
            )
        elif after == 2:
            try_event(season, events, {"type": "decline_winter", "team": state.next.team})
    return accepted
