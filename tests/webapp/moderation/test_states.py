"""The state machine enforced on real questions («a forbidden transition is a clear
error», «every change recorded»)."""

from __future__ import annotations

import pytest

from webapp.domain.question_states import ForbiddenTransition
from webapp.extensions import db
from webapp.moderation.operations import ModerationError, decide, precheck
from webapp.submissions.models import Question, set_status
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

CLEAN = {
    "question": "Какой город основал Ярослав Мудрый на Волге в XI веке?",
    "answer": "Ярославль",
    "authors": [("Анна Ковалёва", "Гомель", None)],
    "sources": ["https://example.org/yaroslavl"],
}


def new_question(status: str = "received", **fields) -> Question:
    q = create_question(dict(CLEAN, **fields), "web", status=status)
    commit()
    return q


def test_precheck_records_received_prechecked_in_review(app):
    q = new_question()
    precheck(q.id)
    commit()
    assert [(h.from_status, h.to_status) for h in q.history] == [
        (None, "received"),
        ("received", "prechecked"),
        ("prechecked", "in_review"),
    ]
    precheck(q.id)  # idempotent: nothing more recorded
    assert len(q.history) == 3


def test_forbidden_set_status_raises_and_changes_nothing(app):
    q = new_question()
    with pytest.raises(ForbiddenTransition) as err:
        set_status(q, "approved")
    assert str(err.value) == (
        "переход «received» → «approved» запрещён; из «received» можно: prechecked, withdrawn"
    )
    assert q.status == "received" and len(q.history) == 1
    with pytest.raises(ForbiddenTransition, match="неизвестный статус «used»"):
        set_status(q, "used")


def test_archive_questions_start_archived_and_stay(app):
    q = new_question(status="archived")
    assert [h.to_status for h in q.history] == ["archived"]
    with pytest.raises(ForbiddenTransition):
        set_status(q, "in_review")


def test_decide_before_precheck_is_a_conflict(app):
    q = new_question()
    with pytest.raises(
        ModerationError, match="^вопрос в статусе «получен»: решение не принимается$"
    ):
        decide(q, "approve", None)
    assert q.status == "received"


def test_decide_and_revise_while_not_in_a_game(app):
    q = new_question()
    precheck(q.id)
    decide(q, "reject", None, "повтор")
    decide(q, "approve", None)
    decide(q, "approve", None)  # the same decision again: nothing recorded
    commit()
    db.session.expire_all()
    q = db.session.get(Question, q.id)
    assert [h.to_status for h in q.history] == [
        "received",
        "prechecked",
        "in_review",
        "rejected",
        "approved",
    ]
    assert q.rejection_reason is None


def test_game_life_played_then_outcome_then_archived(app):
    q = new_question()
    precheck(q.id)
    decide(q, "approve", None)
    for status in ("assigned", "played", "unanswered", "archived"):
        set_status(q, status)
    with pytest.raises(ForbiddenTransition):
        set_status(q, "approved")
    assert [h.to_status for h in q.history][-5:] == [
        "approved",
        "assigned",
        "played",
        "unanswered",
        "archived",
    ]
