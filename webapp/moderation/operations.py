"""Writes for moderation: the pre-check report and the editor's decision."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from webapp.core.crypto import decrypt
from webapp.core.models import utcnow
from webapp.domain.question_states import can_transition
from webapp.extensions import db
from webapp.moderation.duplicates import (  # noqa: F401  (re-exported for callers)
    COMPARED_STATUSES,
    DUPLICATE_THRESHOLD,
    MAX_CANDIDATES,
    find_duplicates,
)
from webapp.moderation.models import (
    PRECHECK_VERSION,
    ModerationAudit,
    ModerationReport,
    QuestionClaim,
)
from webapp.submissions.models import Question, set_status
from webapp.submissions.operations import LIMITS, MIN_QUESTION

# An editor's claim on a question lapses after this long without renewal (issue 4).
CLAIM_TTL = timedelta(minutes=15)


class ModerationError(ValueError):
    """A decision the question's status does not allow (HTTP 409)."""


class ClaimConflict(ModerationError):
    """Another editor holds a live claim on the question (HTTP 409)."""


def claim_holder(question_id: int) -> int | None:
    """The user id holding a live (unexpired) claim on the question, or None."""
    return db.session.scalar(select(QuestionClaim.user_id).where(
        QuestionClaim.question_id == question_id, QuestionClaim.expires_at > utcnow()))


def claim(question_id: int, user_id: int, ttl: timedelta = CLAIM_TTL) -> QuestionClaim:
    """Claim a question for ``user_id`` until now + ``ttl`` (renews the caller's own claim;
    takes over an expired one). One editor per question: the row's primary key is the
    question id, so of two editors claiming at once exactly one insert or conditional
    update succeeds; the other gets ClaimConflict. Flushes only."""
    now = utcnow()
    values = {"user_id": user_id, "claimed_at": now, "expires_at": now + ttl}
    taken = db.session.execute(
        update(QuestionClaim)
        .where(QuestionClaim.question_id == question_id,
               or_(QuestionClaim.user_id == user_id, QuestionClaim.expires_at <= now))
        .values(**values).execution_options(synchronize_session=False))
    if taken.rowcount != 1:
        try:
            with db.session.begin_nested():
                db.session.execute(insert(QuestionClaim).values(question_id=question_id,
                                                                **values))
        except IntegrityError:
            raise ClaimConflict(f"question {question_id} is claimed by another editor"
                                ) from None
    db.session.expire_all()
    return db.session.get(QuestionClaim, question_id)


def release(question_id: int, user_id: int | None) -> bool:
    """Drop ``user_id``'s claim on the question (True if there was one). Flushes only."""
    if user_id is None:
        return False
    gone = db.session.execute(
        delete(QuestionClaim).where(QuestionClaim.question_id == question_id,
                                    QuestionClaim.user_id == user_id)
        .execution_options(synchronize_session=False))
    return gone.rowcount == 1


def reveal_authors(question: Question, user_id: int) -> list[dict]:
    """The question's authors for a chief editor: ``[{"name", "city", "email"}]`` (e-mail
    decrypted, None when unknown). Blind moderation hides them from editors; every reveal
    writes a ModerationAudit row (``reveal_authors``). Flushes only."""
    db.session.add(ModerationAudit(question_id=question.id, user_id=user_id,
                                   action="reveal_authors", at=utcnow()))
    db.session.flush()
    return [{"name": a.name, "city": a.city,
             "email": decrypt(a.email_encrypted) if a.email_encrypted else None}
            for a in question.author_list]


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
        checks = run_checks(question)
        found = duplicate_candidates(question)
        report = ModerationReport(
            question_id=question_id, version=PRECHECK_VERSION, checks=checks,
            duplicates=found, created_at=utcnow(),
            flags=" " + "".join(f"{c['name']} " for c in checks if not c["ok"]),
            top_score=max((d["score"] for d in found), default=0.0))
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
    holder = claim_holder(question.id)
    if holder is not None and holder != user_id:
        raise ModerationError(f"question {question.id} is claimed by another editor")
    release(question.id, user_id)
    question.rejection_reason = (reason or None) if target == "rejected" else None
    set_status(question, target, by_user_id=user_id, reason=reason or None)
    db.session.flush()
    return question
