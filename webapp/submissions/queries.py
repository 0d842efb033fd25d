"""Reads for intake: the author's status page."""

from __future__ import annotations

from datetime import date

from webapp.extensions import db
from webapp.submissions.models import Question

# What the author sees for each internal status (issue: honest status, no game leaks).
PUBLIC_STATUS = {
    "received": "received",
    "prechecked": "in_review",
    "in_review": "in_review",
    "approved": "accepted",
    "assigned": "accepted",
    "rejected": "not_accepted",
    "used": "used",  # history rows written before the state machine (issue 4)
    "played": "used",
    "answered": "used",
    "unanswered": "used",
    "withdrawn": "withdrawn",
    "archived": "archived",
}


def by_token(token: str) -> Question | None:
    """The question behind a status link, or None."""
    if not token or len(token) > 64:
        return None
    return db.session.scalar(db.select(Question).filter_by(public_token=token))


def public_history(question: Question, today: date | None = None) -> list[dict]:
    """The author's view of the history: ``[{"status": str, "at": datetime}]``.

    Internal steps that would reveal the game (``assigned``) are shown as ``accepted``;
    ``used`` appears only once the game has aired (``question.aired_on`` before ``today``).
    Consecutive repeats are merged.
    """
    out: list[dict] = []
    for change in question.history:
        status = PUBLIC_STATUS.get(change.to_status, change.to_status)
        aired = question.aired_on
        if status == "used" and (aired is None or aired >= (today or date.today())):
            status = "accepted"
        if out and out[-1]["status"] == status:
            continue
        out.append({"status": status, "at": change.at})
    return out
