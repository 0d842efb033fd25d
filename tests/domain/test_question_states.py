"""The question state machine: every allowed and every forbidden transition."""

from __future__ import annotations

import itertools

import pytest

from webapp.domain.question_states import (
    FINAL_STATES,
    STATES,
    TRANSITIONS,
    ForbiddenTransition,
    allowed_targets,
    can_transition,
    check_transition,
)

ALLOWED = {
    (None, "received"),
    (None, "archived"),
    ("received", "prechecked"),
    ("received", "withdrawn"),
    ("prechecked", "in_review"),
    ("prechecked", "withdrawn"),
    ("in_review", "approved"),
    ("in_review", "rejected"),
    ("in_review", "withdrawn"),
    ("approved", "rejected"),
    ("approved", "in_review"),
    ("approved", "assigned"),
    ("approved", "withdrawn"),
    ("rejected", "approved"),
    ("rejected", "in_review"),
    ("assigned", "played"),
    ("assigned", "approved"),
    ("played", "answered"),
    ("played", "unanswered"),
    ("answered", "archived"),
    ("unanswered", "archived"),
}
EVERY_PAIR = list(itertools.product((None, *STATES), STATES))
FORBIDDEN = [p for p in EVERY_PAIR if p not in ALLOWED]


def test_states_in_order_of_life():
    assert STATES == (
        "received",
        "prechecked",
        "in_review",
        "approved",
        "rejected",
        "assigned",
        "played",
        "answered",
        "unanswered",
        "archived",
        "withdrawn",
    )
    assert set(TRANSITIONS) == set(STATES)
    assert FINAL_STATES == {"archived", "withdrawn"}
    assert len(EVERY_PAIR) == 132 and len(ALLOWED) == 21 and len(FORBIDDEN) == 111


@pytest.mark.parametrize(("src", "dst"), sorted(ALLOWED, key=str))
def test_allowed_transition(src, dst):
    assert can_transition(src, dst) is True
    check_transition(src, dst)  # does not raise
    assert dst in allowed_targets(src)


@pytest.mark.parametrize(("src", "dst"), FORBIDDEN)
def test_forbidden_transition(src, dst):
    assert can_transition(src, dst) is False
    with pytest.raises(ForbiddenTransition) as err:
        check_transition(src, dst)
    assert err.value.from_status == src and err.value.to_status == dst
    assert f"→ «{dst}» запрещён" in str(err.value)


def test_error_message_lists_the_allowed_targets():
    with pytest.raises(ForbiddenTransition) as err:
        check_transition("received", "approved")
    assert str(err.value) == (
        "переход «received» → «approved» запрещён; из «received» можно: prechecked, withdrawn"
    )
    with pytest.raises(ForbiddenTransition) as err:
        check_transition("withdrawn", "received")
    assert str(err.value) == (
        "переход «withdrawn» → «received» запрещён; из «withdrawn» можно: ничего (конечный статус)"
    )
    with pytest.raises(ForbiddenTransition) as err:
        check_transition(None, "approved")
    assert str(err.value) == (
        "переход «—» → «approved» запрещён; из нового вопроса можно: received, archived"
    )


def test_unknown_statuses_are_clear_errors():
    with pytest.raises(ForbiddenTransition, match="неизвестный статус «used»"):
        check_transition("assigned", "used")
    with pytest.raises(ForbiddenTransition, match="неизвестный статус «bogus»"):
        check_transition("bogus", "approved")
    assert can_transition("bogus", "approved") is False
    assert issubclass(ForbiddenTransition, ValueError)
