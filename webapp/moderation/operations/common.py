"""What the moderation operations share: Russian labels of statuses, fields and checks,
``ModerationError`` and ``ClaimConflict``, an editor's claim on a question."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation.models import (
    QuestionClaim,
)

#: Russian names of a question's statuses (``webapp.domain.question_states.STATES``) in
#: messages to staff: «вопрос в статусе «в архиве»».
STATUS_NAMES = {
    "received": "получен",
    "prechecked": "проверен автоматически",
    "in_review": "на рассмотрении",
    "approved": "одобрен",
    "rejected": "отклонён",
    "assigned": "в игре",
    "played": "сыгран",
    "answered": "отвечен знатоками",
    "unanswered": "не отвечен",
    "withdrawn": "отозван автором",
    "archived": "в архиве",
}
#: Russian names of the editable fields (``EDITABLE``) in messages to staff.
FIELD_LABELS = {
    "question": "Вопрос",
    "answer": "Ответ",
    "accepted": "Зачёт",
    "rejected": "Незачёт",
    "comment": "Комментарий",
    "sources": "Источники",
    "handout": "Раздаточный материал",
}
#: Russian names of the pre-check rows (``run_checks``), shown on the question page.
CHECK_LABELS = {
    "question_present": "текст вопроса",
    "answer_present": "ответ",
    "question_length": "длина вопроса",
    "answer_length": "длина ответа",
    "author_present": "автор",
    "sources_present": "источники",
    "language": "язык вопроса",
    "obscene_words": "нецензурные слова",
    "author_in_text": "анонимность",
    "handout_missing": "раздаточный материал",
    "images_missing": "изображения",
    "answer_leak": "слова ответа в вопросе",
    "reading_time": "время чтения",
    "names_to_stress": "ударения",
}


def status_label(status: str | None) -> str:
    """The Russian name of a question status (:data:`STATUS_NAMES`); unknown → as is."""
    return STATUS_NAMES.get(status or "", status or "—")


# An editor's claim on a question lapses after this long without renewal.
CLAIM_TTL = timedelta(minutes=15)


class ModerationError(OperationError, ValueError):
    """A decision the question's status does not allow (HTTP 409, ``{"message": …}``)."""

    status = 409


class ClaimConflict(ModerationError):
    """Another editor holds a live claim on the question (HTTP 409)."""


def claim_holder(question_id: int) -> int | None:
    """The user id holding a live (unexpired) claim on the question, or None."""
    return db.session.scalar(
        select(QuestionClaim.user_id).where(
            QuestionClaim.question_id == question_id, QuestionClaim.expires_at > utcnow()
        )
    )


def claim(question_id: int, user_id: int, ttl: timedelta = CLAIM_TTL) -> QuestionClaim:
    """Claim a question for ``user_id`` until now + ``ttl`` (renews the caller's own claim;
    takes over an expired one). One editor per question: the row's primary key is the
    question id, so of two editors claiming at once exactly one insert or conditional
    update succeeds; the other gets ClaimConflict. Flushes only."""
    now = utcnow()
    values = {"user_id": user_id, "claimed_at": now, "expires_at": now + ttl}
    taken = db.session.execute(
        update(QuestionClaim)
        .where(
            QuestionClaim.question_id == question_id,
            or_(QuestionClaim.user_id == user_id, QuestionClaim.expires_at <= now),
        )
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult at run time
        try:
            with db.session.begin_nested():
                db.session.execute(insert(QuestionClaim).values(question_id=question_id, **values))
        except IntegrityError:
            raise ClaimConflict(f"вопрос № {question_id} взят другим редактором") from None
    db.session.expire_all()
    return db.session.get_one(QuestionClaim, question_id)


def release(question_id: int, user_id: int | None) -> bool:
    """Drop ``user_id``'s claim on the question (True if there was one). Flushes only."""
    if user_id is None:
        return False
    gone = db.session.execute(
        delete(QuestionClaim)
        .where(QuestionClaim.question_id == question_id, QuestionClaim.user_id == user_id)
        .execution_options(synchronize_session=False)
    )
    return gone.rowcount == 1  # type: ignore[attr-defined]  # a CursorResult at run time
