"""The game state machine: every allowed and every refused transition."""

from __future__ import annotations

import itertools

import pytest

from webapp.domain.game_states import (
    FINAL_STATES,
    INITIAL_STATE,
    STATES,
    TRANSITIONS,
    InvalidTransition,
    allowed_targets,
    can_transition,
    check_transition,
)

ALLOWED = {
    ("draft", "ready"),
    ("ready", "live"),
    ("live", "finished"),
    ("live", "ready"),
    ("finished", "live"),
    ("finished", "closed"),
}


def test_the_states_in_the_order_of_a_games_life():
    assert STATES == ("draft", "ready", "live", "finished", "closed")
    assert INITIAL_STATE == "draft"
    assert FINAL_STATES == frozenset({"closed"})


def test_the_table_lists_exactly_the_allowed_changes_each_with_its_source():
    assert set(TRANSITIONS) == ALLOWED
    assert TRANSITIONS[("live", "finished")] == (
        "a side has its winning points (2023 §3.10, 2009 §1.8)"
    )
    assert TRANSITIONS[("finished", "closed")] == (
        "the producer closes the game (2023 §4.11.1, 2009 §1.2.2)"
    )


@pytest.mark.parametrize("pair", sorted(ALLOWED))
def test_every_allowed_transition_passes(pair):
    origin, to = pair
    check_transition(origin, to)
    assert can_transition(origin, to) is True
    assert to in allowed_targets(origin)


@pytest.mark.parametrize("state", STATES)
def test_staying_in_a_state_is_no_change(state):
    check_transition(state, state)
    assert can_transition(state, state) is True
    assert state not in allowed_targets(state)


REFUSED = sorted(
    (a, b) for a, b in itertools.product(STATES, STATES) if a != b and (a, b) not in ALLOWED
)


@pytest.mark.parametrize("pair", REFUSED)
def test_every_other_transition_is_refused_naming_what_is_allowed(pair):
    origin, to = pair
    assert can_transition(origin, to) is False
    with pytest.raises(InvalidTransition) as info:
        check_transition(origin, to)
    assert (info.value.from_status, info.value.to_status) == (origin, to)
    allowed = ", ".join(s for s in STATES if (origin, s) in ALLOWED) or "ничего (конечный статус)"
    assert info.value.message == (
        f"переход игры «{origin}» → «{to}» запрещён; из «{origin}» можно: {allowed}"
    )


def test_the_refusals_read_as_the_producer_sees_them():
    with pytest.raises(
        InvalidTransition, match="^переход игры «draft» → «live» запрещён; из «draft» можно: ready$"
    ):
        check_transition("draft", "live")
    with pytest.raises(InvalidTransition, match="из «closed» можно: ничего \\(конечный статус\\)$"):
        check_transition("closed", "finished")
    with pytest.raises(InvalidTransition, match="из «ready» можно: live$"):
        check_transition("ready", "finished")


def test_unknown_statuses_are_refused():
    with pytest.raises(InvalidTransition, match="неизвестный статус игры «aired»"):
        check_transition("finished", "aired")
    with pytest.raises(InvalidTransition, match="неизвестный статус игры «aired»"):
        check_transition("aired", "closed")
    with pytest.raises(InvalidTransition, match="неизвестный статус игры «aired»"):
        allowed_targets("aired")
    assert can_transition("aired", "closed") is False
    assert can_transition("closed", "") is False
