"""The author's own writes: confirming authorship (the e-mailed link or an editor),
withdrawing a question, finding the author by e-mail. Flushes only."""

from __future__ import annotations

from flask_babel import gettext as _

from webapp.core.crypto import lookup_hash
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.submissions.models import Author, Question, QuestionStatusChange, set_status
from webapp.submissions.operations.validation import SubmissionError, normalise_email

#: Statuses a question can be withdrawn from: nothing decided for a game yet.
WITHDRAWABLE = ("received", "prechecked", "in_review", "approved")
#: Statuses in which «Мои вопросы» offers «Отозвать вопрос» until the game airs
#: (``webapp.archive.history.withdraw_offered``): the author sees such a question as
#: accepted until then (``webapp.archive.history.PUBLIC_STATUS``), so the button
#: must not vanish when it goes into a game's envelope or is asked in a game recorded
#: ahead; a withdrawal then is refused with :func:`no_longer_withdrawable`.
OFFERED_UNTIL_AIR = (*WITHDRAWABLE, "assigned", "played", "answered", "unanswered")


def no_longer_withdrawable() -> str:
    """The refusal of a withdrawal once a game took the question (or an editor rejected
    it): neutral, it says nothing about games."""
    return _("Этот вопрос уже нельзя отозвать.")


def withdraw(question: Question, author_id: int) -> Question:
    """The author withdraws a question not yet in a game (only by a confirmed link: an
    address typed into the form proves nothing). Raises SubmissionError; the refusal of a
    question a game took is :func:`no_longer_withdrawable`, the same as for any other
    status that cannot be withdrawn."""
    if author_id not in {qa.author_id for qa in question.authors if qa.confirmed_at}:
        raise SubmissionError({"question": [_("Это не ваш вопрос.")]})
    if question.status == "withdrawn":
        raise SubmissionError({"question": [_("Вопрос уже отозван.")]})
    if question.status not in WITHDRAWABLE:
        raise SubmissionError({"question": [no_longer_withdrawable()]})
    set_status(question, "withdrawn", reason="отозван автором")
    db.session.flush()
    return question


def confirm_authorship(
    question: Question, author_id: int | None, by_user_id: int | None = None
) -> bool:
    """Confirm that ``question`` is by author ``author_id`` (the person behind the
    address): by the e-mailed link (``by_user_id`` None) or by an editor. From then on the
    question shows in that author's «Мои вопросы». Idempotent (the first confirmation time
    stays). Returns False when the author is not on the question. Flushes only."""
    for qa in question.authors:
        if qa.author_id == author_id:
            if qa.confirmed_at is None:
                qa.confirmed_at = utcnow()
                set_note = "автор подтверждён редактором" if by_user_id else None
                if set_note:
                    question.history.append(
                        QuestionStatusChange(
                            from_status=question.status,
                            to_status=question.status,
                            by_user_id=by_user_id,
                            reason=set_note,
                            at=utcnow(),
                        )
                    )
                db.session.flush()
            return True
    return False


def author_by_email(email: str) -> Author | None:
    """The author with this (normalised) e-mail, or None."""
    errors: dict = {}
    normal = normalise_email(email, "email", errors, required=True)
    if not normal:
        return None
    return db.session.scalar(db.select(Author).filter_by(email_hash=lookup_hash(normal)))
