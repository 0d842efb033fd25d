"""Writes for moderation: the pre-check report and the editor's decision."""

from __future__ import annotations

from webapp.core.models import utcnow
from webapp.domain.question_states import can_transition
from webapp.extensions import db
from webapp.moderation.duplicates import (  # noqa: F401  (re-exported for callers)
    COMPARED_STATUSES,
    DUPLICATE_THRESHOLD,
    MAX_CANDIDATES,
    find_duplicates,
)
from webapp.moderation.models import PRECHECK_VERSION, ModerationReport
from webapp.submissions.models import Question, set_status
from webapp.submissions.operations import LIMITS, MIN_QUESTION


class ModerationError(ValueError):
    """A decision the question's status does not allow (HTTP 409)."""


def duplicate_candidates(question: Question, limit: int = MAX_CANDIDATES) -> list[dict]:
    """Ranked duplicates of ``question`` among the archive, the intake and the pool.

    Returns ``[{"question_id": int, "score": float 0..100 (1 place), "status": str}]``,
    best first, scores ≥ ``DUPLICATE_THRESHOLD``. Uses the persisted MinHash LSH index
    re-ranked with rapidfuzz (``webapp.moderation.duplicates``; figures in
    docs/performance.md, «Duplicate detection»).
    """
    if not question.matching_key:
        return []
    return find_duplicates(question.matching_key, exclude_id=question.id, limit=limit)


def run_checks(question: Question) -> list[dict]:
    """Completeness and length checks: ``[{"name", "ok", "message"}]``."""
    checks = []

    def check(name: str, ok: bool, message: str) -> None:
        checks.append({"name": name, "ok": bool(ok), "message": "" if ok else message})

    check("question_present", bool(question.text.strip()), "нет текста вопроса")
    check("answer_present", bool(question.answer.strip()), "нет ответа")
    check("question_length", MIN_QUESTION <= len(question.text) <= LIMITS["question"],
          f"длина вопроса {len(question.text)} вне {MIN_QUESTION}..{LIMITS['question']}")
    check("answer_length", len(question.answer) <= LIMITS["answer"],
          f"ответ длиннее {LIMITS['answer']} символов")
    check("author_present", bool(question.authors), "автор не указан")
    check("sources_present", bool(question.sources), "источники не указаны")
    return checks


def precheck(question_id: int) -> ModerationReport | None:
    """Pre-check one question (idempotent): store one ModerationReport per check version
    and move ``received`` → ``in_review``. Returns the report, or None if the question
    no longer exists. Running it twice changes nothing."""
    question = db.session.get(Question, question_id)
    if question is None:
        return None
    report = db.session.scalar(db.select(ModerationReport).filter_by(
        question_id=question_id, version=PRECHECK_VERSION))
    if report is None:
        report = ModerationReport(question_id=question_id, version=PRECHECK_VERSION,
                                  checks=run_checks(question),
                                  duplicates=duplicate_candidates(question), created_at=utcnow())
        db.session.add(report)
    if question.status == "received":
        set_status(question, "prechecked")
    if question.status == "prechecked":
        set_status(question, "in_review")
    db.session.flush()
    return report


def decide(question: Question, decision: str, user_id: int | None, reason: str | None = None
           ) -> Question:
    """Approve or reject a question. ``decision``: ``"approve"`` | ``"reject"``.

    Allowed from ``in_review``, and between ``approved`` and ``rejected`` while the question
    is not in a game (``webapp.domain.question_states``). Deciding the status the question
    already has changes nothing. Raises ModerationError otherwise (HTTP 409).
    """
    if decision not in ("approve", "reject"):
        raise ModerationError(f"unknown decision {decision!r}")
    target = "approved" if decision == "approve" else "rejected"
    if question.status == target:
        return question
    if not can_transition(question.status, target):
        raise ModerationError(f"a question in status {question.status!r} cannot be decided")
    question.rejection_reason = (reason or None) if target == "rejected" else None
    set_status(question, target, by_user_id=user_id, reason=reason or None)
    db.session.flush()
    return question
