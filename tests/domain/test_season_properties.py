"""Properties of the season engine (hypothesis): random legal seasons never crash, the rating
is always a permutation of the teams still in it, a team that is out never plays again, replay
is deterministic, every refusal cites a clause of its own rule book and says its fault in
English and in Russian without a file name, ``series_best`` is null before any game that is
not a qualifying one, a withdrawal between series waits for the next series."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.domain.season_helpers import doc
from tests.domain.season_play import (
    CLAUSE,
    Draw,
    check_refusal,
    legal_step,
    random_event,
    team_count,
    try_event,
)
from tests.helpers import examples
from webapp.domain.books import BOOKS, replay_season
from webapp.domain.rules import ProtocolError
from webapp.domain.season import Season, SeasonViolation

pytestmark = pytest.mark.slow  # hypothesis runs: seconds each

SETTINGS = settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _play(data: Draw, ruleset: str, chaos: bool = True) -> tuple[list[str], list[dict], Season]:
    size = team_count(data, BOOKS[ruleset].season)
    teams = [f"T{i}" for i in range(1, size + 1)]
    season = Season.start(BOOKS[ruleset], teams)
    events: list[dict] = []
    for _ in range(70):
        if chaos and data.integer(0, 5) == 0:
            try_event(season, events, random_event(data, teams))  # provoke refusals
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
        check_refusal(exc)
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
