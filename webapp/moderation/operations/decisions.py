"""Editors' decisions (one or in bulk) and the chief editor's sign-off."""

from __future__ import annotations

from sqlalchemy import delete

from webapp.core.models import utcnow
from webapp.domain.question_states import can_transition
from webapp.extensions import db
from webapp.moderation.models import (
    ModerationAudit,
    QuestionSignoff,
)
from webapp.moderation.operations.common import ModerationError, claim_holder, release, status_label
from webapp.moderation.reasons import REJECTION_REASONS, reason_text
from webapp.moderation.tasks import NOTIFY_DECISION
from webapp.submissions.models import Question, set_status
from webapp.tasks.outbox import enqueue

#: What an editor's decision does to a question, said when it is refused as a repeat.
_ALREADY = {"approved": "уже одобрен", "rejected": "уже отклонён"}


def decision_applies(status: str, decision: str) -> bool:
    """Whether ``decision`` (``"approve"`` | ``"reject"``) changes a question in ``status``:
    what the question page offers."""
    target = "approved" if decision == "approve" else "rejected"
    return status != target and can_transition(status, target)


def decide(
    question: Question,
    decision: str,
    user_id: int | None,
    reason: str | None = None,
    notify: bool = False,
    *,
    repeat: bool = True,
) -> Question:
    """Approve or reject a question. ``decision``: ``"approve"`` | ``"reject"``.

    Allowed from ``in_review``, and between ``approved`` and ``rejected`` while the question
    is not in a game (``webapp.domain.question_states``). Raises ModerationError otherwise
    (HTTP 409).

    Deciding the status the question already has: with ``repeat`` (the API's retry, the
    CLI) it changes nothing when it would change nothing — the same decision again, without
    a reason or with the reason already stored; a repeated rejection with another reason is
    refused (the reason would be lost: the author was told the first one). Without
    ``repeat`` (the editors' pages, which offer only the decisions that apply) every
    repeat is refused: «вопрос № 97 уже отклонён».
    """
    if decision not in ("approve", "reject"):
        raise ModerationError(f"неизвестное решение {decision!r}")
    target = "approved" if decision == "approve" else "rejected"
    if question.status == target:
        same = not reason or (target == "rejected" and reason == question.rejection_reason)
        if repeat and same:
            return question
        raise ModerationError(
            f"вопрос № {question.id} {_ALREADY[target]}: повторное решение не принимается"
            + ("" if same else ", новая причина не записана")
        )
    if not can_transition(question.status, target):
        raise ModerationError(
            f"вопрос в статусе «{status_label(question.status)}»: решение не принимается"
        )
    holder = claim_holder(question.id)
    if holder is not None and holder != user_id:
        raise ModerationError(f"вопрос № {question.id} взят другим редактором")
    release(question.id, user_id)
    drop_signoff(question.id)
    question.rejection_reason = (reason or None) if target == "rejected" else None
    set_status(question, target, by_user_id=user_id, reason=reason or None)
    if notify:
        enqueue(NOTIFY_DECISION, question.id)
    db.session.flush()
    return question


def full_reason(question: Question, reason_key: str | None, reason: str | None) -> str | None:
    """The reason the author reads: the template text in the question's language
    (``reasons.REJECTION_REASONS``), then the editor's own words. ModerationError for an
    unknown template key."""
    parts = []
    if reason_key:
        if reason_key not in REJECTION_REASONS:
            raise ModerationError(f"неизвестный шаблон причины {reason_key!r}")
        parts.append(reason_text(reason_key, question.language))
    if reason and reason.strip():
        parts.append(reason.strip())
    return " ".join(parts) or None


def bulk_preview(
    ids: list[int], decision: str, user_id: int | None = None
) -> tuple[list[Question], list[tuple[int, str]]]:
    """What a bulk decision would do, without writing: ``(questions it applies to, [(id,
    why not)])`` in the order given; unknown ids and statuses that cannot take the decision
    are in the second list, and so are questions another editor has claimed."""
    target = "approved" if decision == "approve" else "rejected"
    ok, refused = [], []
    for qid in dict.fromkeys(ids):
        q = db.session.get(Question, qid)
        if q is None:
            refused.append((qid, "нет такого вопроса"))
        elif q.status == target:
            refused.append((qid, _ALREADY[target]))
        elif not can_transition(q.status, target):
            refused.append((qid, f"статус «{status_label(q.status)}»"))
        elif claim_holder(qid) not in (None, user_id):
            refused.append((qid, "взят редактором"))
        else:
            ok.append(q)
    return ok, refused


def bulk_decide(
    ids: list[int], decision: str, user_id: int, reason_key: str | None = None
) -> list[Question]:
    """Apply one decision to every question :func:`bulk_preview` accepts; all or nothing
    (ModerationError if any of ``ids`` is refused, before anything is written). Authors
    are notified. Flushes only."""
    ok, refused = bulk_preview(ids, decision, user_id)
    if refused:
        raise ModerationError(
            "не применено к вопросам: " + ", ".join(f"№ {i} ({why})" for i, why in refused)
        )
    for q in ok:
        decide(q, decision, user_id, full_reason(q, reason_key, None), notify=True, repeat=False)
    return ok


def approver_of(question: Question) -> int | None:
    """The user who last moved the question to ``approved`` (None if unknown)."""
    for change in reversed(question.history):
        if change.to_status == "approved":
            return change.by_user_id
    return None


def sign_off(question: Question, user_id: int) -> QuestionSignoff:
    """Record the second editor's «источники проверены». Only for an approved question and
    not by the editor who approved it («a second editor's sign-off»). Idempotent
    for the same signer. Each new sign-off also writes a ModerationAudit row
    (``sign_off``). Raises ModerationError. Flushes only."""
    if question.status != "approved":
        raise ModerationError("источники подтверждаются только у одобренного вопроса")
    existing = db.session.get(QuestionSignoff, question.id)
    if existing is not None:
        return existing
    if approver_of(question) == user_id:
        raise ModerationError(
            "источники должен подтвердить второй редактор, а не тот, кто одобрил вопрос"
        )
    now = utcnow()
    signoff = QuestionSignoff(question_id=question.id, user_id=user_id, at=now)
    db.session.add(signoff)
    db.session.add(
        ModerationAudit(question_id=question.id, user_id=user_id, action="sign_off", at=now)
    )
    db.session.flush()
    return signoff


def signoff_preview(ids: list[int], user_id: int) -> tuple[list[Question], list[tuple[int, str]]]:
    """What a sign-off of a selection would do, without writing: ``(questions it applies
    to, [(id, why not)])`` in the order given. Not applicable: an unknown id, a question
    that is not approved, one whose sources are already signed off, one ``user_id``
    approved (the second editor signs off, never the approver: :func:`sign_off`)."""
    ok, refused = [], []
    for qid in dict.fromkeys(ids):
        q = db.session.get(Question, qid)
        if q is None:
            refused.append((qid, "нет такого вопроса"))
        elif q.status != "approved":
            refused.append((qid, f"статус «{status_label(q.status)}»"))
        elif db.session.get(QuestionSignoff, qid) is not None:
            refused.append((qid, "источники уже проверены"))
        elif approver_of(q) == user_id:
            refused.append((qid, "одобрен вами: источники подтверждает второй редактор"))
        else:
            ok.append(q)
    return ok, refused


def bulk_sign_off(ids: list[int], user_id: int) -> list[Question]:
    """:func:`sign_off` for each of ``ids``, one by one (a QuestionSignoff and an audit row
    each); all or nothing: ModerationError, before anything is written, if any of ``ids``
    is not applicable (:func:`signoff_preview`). Flushes only."""
    ok, refused = signoff_preview(ids, user_id)
    if refused:
        raise ModerationError(
            "источники не подтверждены: " + ", ".join(f"№ {i} ({why})" for i, why in refused)
        )
    for q in ok:
        sign_off(q, user_id)
    return ok


def drop_signoff(question_id: int) -> None:
    """Forget the second editor's sign-off of a question whose text or status changes: the
    sign-off vouches for the sources of the text that was read, not of a later one."""
    db.session.execute(delete(QuestionSignoff).where(QuestionSignoff.question_id == question_id))
