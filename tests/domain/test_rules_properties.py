"""Property-based tests of the rules engine: random legal games built from allowed_actions."""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import examples
from webapp.domain.books import BOOKS
from webapp.domain.rules import ProtocolError, RuleViolation, allowed_actions, replay

pytestmark = pytest.mark.slow  # hypothesis runs: seconds each

CLAUSE = re.compile(r"^00[02]_[0-9a-f]+\.txt §\d")
OPTIONS = ["six", "three", "one"]
EXPERTS = ["Anna", "Boris", "Vera"]
EVENT_TYPES = [
    "spin",
    "decisive_round",
    "sector13_option",
    "answer",
    "club_help",
    "credit_minute",
    "extra_minute",
    "red_card",
]
SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def tables(draw, ruleset="2023"):
    """A legal table plan; 2009: sector 13 holds the Internet questions, the blitz and the
    superblitz are among the other twelve (002_e025d5ded135c1c4.txt §1.3, §1.4.2–§1.4.3)."""
    if ruleset == "2009":
        sectors = [*draw(st.lists(st.integers(1, 12), min_size=2, max_size=2, unique=True)), 13]
    else:
        sectors = draw(st.lists(st.integers(1, 13), min_size=3, max_size=3, unique=True))
    return {
        key: (sector if draw(st.booleans()) else None)
        for key, sector in zip(("blitz", "superblitz", "sector13"), sectors, strict=True)
    }


@st.composite
def contexts(draw):
    if draw(st.booleans()):
        return None
    best = draw(st.sampled_from([None, "6:0", "6:1", "6:3", "6:5", "4:6"]))
    used = draw(st.lists(st.sampled_from(OPTIONS), max_size=2, unique=True))
    return {"series_best": best, "sector13_options_used": used}


def event_of(draw, kind):
    if kind == "spin":
        return {"type": kind, "sector": draw(st.integers(0, 14))}
    if kind == "sector13_option":
        return {"type": kind, "option": draw(st.sampled_from(OPTIONS))}
    if kind == "answer":
        event = {"type": kind, "correct": draw(st.booleans()), "early": draw(st.booleans())}
        expert = draw(st.sampled_from([None, *EXPERTS]))
        if expert:
            event["expert"] = expert
        return event
    return {"type": kind}


def check_state(state, ruleset):
    assert set(state) == {
        "ruleset", "score", "finished", "winner", "decided_by", "rounds", "unanswered",
        "unasked", "extra_minutes_held", "credit", "removed_experts",
    }  # fmt: skip
    assert state["ruleset"] == ruleset
    experts, viewers = map(int, state["score"].split(":"))
    assert 0 <= experts <= 6 and 0 <= viewers <= 6
    assert not (experts == 6 and viewers == 6)
    assert state["finished"] == (6 in (experts, viewers))
    assert state["extra_minutes_held"] >= 0
    assert state["credit"] in ("none", "outstanding", "repaid")
    json.dumps(state)


@st.composite
def games(draw):
    """A random game: ``(ruleset, table, context, events, refusals)``; every event is legal,
    ``refusals`` are the events tried on the way and refused."""
    ruleset = draw(st.sampled_from(sorted(BOOKS)))
    table = draw(tables(ruleset))
    context = draw(contexts())
    events, refusals = [], []
    for _ in range(80):
        allowed = allowed_actions(BOOKS[ruleset], table, context, events)
        if not allowed:
            break
        # mostly an allowed type, sometimes anything (to provoke refusals)
        pool = allowed if draw(st.integers(0, 4)) else EVENT_TYPES
        event = event_of(draw, draw(st.sampled_from(pool)))
        try:
            replay(BOOKS[ruleset], table, context, events + [event])
        except RuleViolation as error:
            refusals.append((len(events), error))
            continue
        events.append(event)
    return ruleset, table, context, events, refusals


@SETTINGS
@given(games())
def test_legal_games_never_crash_and_stay_in_bounds(game):
    ruleset, table, context, events, _ = game
    for n in range(len(events) + 1):
        check_state(replay(BOOKS[ruleset], table, context, events[:n]), ruleset)


@SETTINGS
@given(games())
def test_replay_is_deterministic(game):
    ruleset, table, context, events, _ = game
    first = replay(BOOKS[ruleset], table, context, events)
    assert replay(BOOKS[ruleset], table, context, list(events)) == first
    assert replay(BOOKS[ruleset], dict(table), context, json.loads(json.dumps(events))) == first


@SETTINGS
@given(games())
def test_every_refusal_cites_a_clause(game):
    ruleset, _, _, _, refusals = game
    file = BOOKS[ruleset].rules.file
    for index, error in refusals:
        assert error.event_index == index
        assert CLAUSE.match(error.rule), error.rule
        assert error.rule.startswith(file)
        assert error.message
        assert error.to_json()["error"]["rule"] == error.rule


@SETTINGS
@given(games(), st.data())
def test_a_finished_game_accepts_nothing(game, data):
    ruleset, table, context, events, _ = game
    state = replay(BOOKS[ruleset], table, context, events)
    if not state["finished"]:
        assert allowed_actions(BOOKS[ruleset], table, context, events)
        return
    assert allowed_actions(BOOKS[ruleset], table, context, events) == []
    event = event_of(data.draw, data.draw(st.sampled_from(EVENT_TYPES)))
    try:
        replay(BOOKS[ruleset], table, context, events + [event])
    except RuleViolation as error:
        assert error.event_index == len(events)
        assert error.rule.endswith("§3.10" if ruleset == "2023" else "§1.8")
    else:
        raise AssertionError("a finished game accepted an event")


@SETTINGS
@given(games())
def test_allowed_actions_are_accepted(game):
    """Every listed type has an accepted event; every unlisted type is refused."""
    ruleset, table, context, events, _ = game
    allowed = allowed_actions(BOOKS[ruleset], table, context, events)
    for kind in EVENT_TYPES:
        variants = {
            "spin": [{"type": kind, "sector": s} for s in range(1, 14)],
            "sector13_option": [{"type": kind, "option": o} for o in OPTIONS],
            "answer": [
                {"type": kind, "correct": c, "early": e}
                for c in (True, False)
                for e in (True, False)
            ],
        }.get(kind, [{"type": kind}])
        accepted = 0
        for event in variants:
            try:
                replay(BOOKS[ruleset], table, context, events + [event])
                accepted += 1
            except RuleViolation:
                pass
        assert (accepted > 0) == (kind in allowed), kind


@SETTINGS
@given(games())
def test_unanswered_and_unasked_match_the_rounds(game):
    ruleset, table, context, events, _ = game
    state = replay(BOOKS[ruleset], table, context, events)
    asked_wrong = [
        {"sector": r["sector"], "slot": q["slot"]}
        for r in state["rounds"]
        for q in r["questions"]
        if q["asked"] and not q["correct"]
    ]
    assert state["unanswered"] == asked_wrong
    for item in state["unasked"]:
        rnd = next(r for r in state["rounds"] if r["sector"] == item["sector"])
        assert rnd["kind"] in ("blitz", "superblitz")
    if state["finished"]:
        assert all(r["winner"] for r in state["rounds"])
        assert state["decided_by"] in ("rounds", "decisive_round")


@settings(max_examples=examples(200), deadline=None)
@given(
    st.sampled_from(sorted(BOOKS)),
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"type": st.sampled_from(EVENT_TYPES)}),
            st.fixed_dictionaries({"type": st.just("spin"), "sector": st.integers(-2, 16)}),
            st.fixed_dictionaries(
                {"type": st.just("answer"), "correct": st.booleans(), "early": st.booleans()}
            ),
        ),
        max_size=30,
    ),
)
def test_arbitrary_event_lists_are_refused_cleanly(ruleset, events):
    table = {"blitz": 4, "superblitz": 10, "sector13": 13}
    try:
        check_state(replay(BOOKS[ruleset], table, None, events), ruleset)
    except RuleViolation as error:
        assert CLAUSE.match(error.rule)
        assert 0 <= error.event_index < len(events)
    except ProtocolError as error:
        assert error.event_index is not None
