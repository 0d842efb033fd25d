"""Properties of the season engine (hypothesis): random legal seasons never crash, the rating
is always a permutation of the teams still in it, a team that is out never plays again, replay
is deterministic, every refusal cites a clause of its own rule book and says its fault in
English and in Russian without a file name, ``series_best`` is null before any game that is
not a qualifying one, a withdrawal between series waits for the next series."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.domain.season_helpers import doc
from tests.helpers import examples
from webapp.domain.books import BOOKS, replay_season
from webapp.domain.books.b2023.season import SERIES_SHAPES_2023
from webapp.domain.rules import ProtocolError
from webapp.domain.season import PARTS, Season, SeasonViolation

pytestmark = pytest.mark.slow  # hypothesis runs: seconds each

CLAUSE = re.compile(r"^00[02]_[0-9a-f]+\.txt §\d+(\.\d+)*$")
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def _check_refusal(exc: SeasonViolation) -> None:
    """Every refusal of the engine says its fault for a person: in English (``message``) and
    in Russian (``ru``, for the staff pages), neither naming a rule book's file."""
    assert exc.message and ".txt" not in exc.message, exc.message
    assert exc.ru and CYRILLIC.search(exc.ru) and ".txt" not in exc.ru, (exc.message, exc.ru)


SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


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


def _score(data: Draw, won: bool, decisive: bool) -> str:
    if decisive:
        return "6:0" if won else "0:6"
    other = data.integer(0, 5)
    return f"6:{other}" if won else f"{other}:6"


def _try(season: Season, events: list[dict], event: dict) -> bool:
    """Apply ``event``; keep it when accepted. A refusal must cite a clause and change
    nothing."""
    before = season.state()
    try:
        season.apply(event, len(events))
    except SeasonViolation as exc:
        assert CLAUSE.match(exc.rule), exc.rule
        assert exc.rule.startswith(season.file), exc.rule
        _check_refusal(exc)
        assert exc.event_index == len(events)
        assert season.state() == before
        return False
    except ProtocolError:
        assert season.state() == before
        return False
    events.append(event)
    return True


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
    r23 = season.ruleset == "2023"
    if phase == "over":
        return False
    if phase == "series":
        part = PARTS[len(season.parts)]
        if data.integer(0, 3) == 0 and season.teams:  # a refusal of the coming series
            refusing = season.state().refusing
            if _try(season, events, {"type": "withdraw", "team": data.pick(season.teams)}):
                assert season.state().refusing == (*refusing, events[-1]["team"])
                assert season.phase() == "series"
        if part == "winter" and data.boolean():
            name = f"{'R' if r23 else 'S'}{len(events)}"
            _try(
                season,
                events,
                {"type": "enter", "team": name, "as": "reserve" if r23 else "sponsor"},
            )
        shapes = (
            SERIES_SHAPES_2023[part] if r23 else ((3, "series_final"), (4, "none"), (3, "none"))
        )
        shapes = data.shuffled(shapes)
        for qualifying, closing in shapes:
            if _try(
                season,
                events,
                {"type": "series", "part": part, "qualifying": qualifying, "closing": closing},
            ):
                if data.integer(0, 3) == 0 and season.rating:
                    _try(season, events, {"type": "withdraw", "team": data.pick(season.rating)})
                return True
        return False
    won = data.boolean()
    if phase == "qualifying" and data.integer(0, 5) == 0 and season.rating:
        _try(season, events, {"type": "withdraw", "team": data.pick(season.rating)})
        return True
    if phase == "qualifying":
        if r23:
            assert state.next is not None
            decisive = data.integer(0, 4) == 0
            event = {
                "type": "game",
                "kind": "qualifying",
                "team": state.next.team,
                "score": _score(data, won, decisive),
                "decisive_round": decisive,
            }
            if _try(season, events, event):
                return True
            event["decisive_round"] = False
            event["score"] = _score(data, won, False)
            return _try(season, events, event)
        candidates = data.shuffled(list(season.rating))
        for team in candidates:
            for kind in ("qualifying", "rematch"):
                if _try(
                    season,
                    events,
                    {"type": "game", "kind": kind, "team": team, "score": _score(data, won, False)},
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
        return _try(
            season,
            events,
            {
                "type": "game",
                "kind": "special",
                "team": data.pick(outside),
                "score": _score(data, won, False),
            },
        )
    if state.next is None:
        return False
    accepted = _try(
        season,
        events,
        {"type": "game", "kind": phase, "team": state.next.team, "score": _score(data, won, False)},
    )
    if accepted and phase == "series_final" and not r23:
        after = data.integer(0, 3)
        if after == 1:
            _try(
                season,
                events,
                {"type": "rematch", "team": state.next.team, "granted": data.boolean()},
            )
        elif after == 2:
            _try(season, events, {"type": "decline_winter", "team": state.next.team})
    return accepted


def _play(data: Draw, ruleset: str, chaos: bool = True) -> tuple[list[str], list[dict], Season]:
    size = data.integer(5, 10) if ruleset == "2023" else data.integer(3, 6)
    teams = [f"T{i}" for i in range(1, size + 1)]
    season = Season.start(BOOKS[ruleset], teams)
    events: list[dict] = []
    for _ in range(70):
        if chaos and data.integer(0, 5) == 0:
            _try(season, events, random_event(data, teams))  # provoke refusals
            continue
        if not legal_step(data, season, events):
            break
    return teams, events, season


def _check_invariants(teams: list[str], events: list[dict], season: Season) -> None:
    state = replay_season(doc(season.ruleset, teams, events))
    assert state == season.state()  # the same events give the same state, step or replay
    assert replay_season(doc(season.ruleset, teams, events)).to_json() == state.to_json()
    out = {o.team: o.event for o in state.out}
    assert len(out) == len(state.out)
    assert len(set(state.rating)) == len(state.rating)
    assert not set(state.rating) & set(out)
    assert set(state.rating) <= set(season.teams)
    for move in state.history:
        assert move.team not in out or move.event <= out[move.team]  # out never plays again
        assert len(set(move.rating_after)) == len(move.rating_after)
        assert CLAUSE.match(move.rule)
    # within a series a qualifying game only reorders the rating (minus a team put out)
    previous = None
    for move in state.history:
        if (
            previous is not None
            and move.kind in ("qualifying", "rematch")
            and (previous.kind in ("qualifying", "rematch"))
        ):
            expected = set(previous.rating_after) - {
                move.team if move.team in out and out[move.team] == move.event else ""
            }
            assert set(move.rating_after) == expected
        previous = move
    for result in state.results:
        assert (result.experts == 6) != (result.viewers == 6)
    # series_best: only before a qualifying game (2023 §3.6), never before anything else
    if state.next is None or state.next.kind != "qualifying":
        assert state.series_best is None
    if state.refusing:
        assert season.phase() == "series"
    if state.series is None or state.series.part != "winter":
        assert not set(state.reserves) & set(state.rating)  # a reserve only registers


@SETTINGS
@given(st.data())
def test_random_2023_seasons(data):
    teams, events, season = _play(Draw(data), "2023")
    _check_invariants(teams, events, season)


@SETTINGS
@given(st.data())
def test_random_2009_seasons(data):
    teams, events, season = _play(Draw(data), "2009")
    _check_invariants(teams, events, season)


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(sorted(BOOKS)), st.data())
def test_arbitrary_event_lists_end_in_a_state_or_a_cited_refusal(ruleset, data):
    teams = ["T1", "T2", "T3", "T4", "T5"]
    draw = Draw(data)
    events = [random_event(draw, teams) for _ in range(draw.integer(0, 12))]
    try:
        replay_season(doc(ruleset, teams, events))
    except SeasonViolation as exc:
        assert CLAUSE.match(exc.rule) and exc.rule.startswith(BOOKS[ruleset].file)
        assert 0 <= exc.event_index < len(events)
        _check_refusal(exc)
    except ProtocolError as exc:
        assert exc.to_json()["error"]["rule"] is None


def test_legal_play_finishes_seasons():
    """The generator can play seasons to the year final, so the properties above see finals,
    winter and year finals: of 20 seeded legal seasons per book, at least five are over."""
    for ruleset in ("2023", "2009"):
        finished = 0
        for seed in range(20):
            teams, events, season = _play(Draw(seed=seed), ruleset, chaos=False)
            _check_invariants(teams, events, season)
            finished += season.over
        assert finished >= 5, (ruleset, finished)
