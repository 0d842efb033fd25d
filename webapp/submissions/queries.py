"""Reads for intake: the author's status page."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from blinker import Namespace

from webapp.extensions import db
from webapp.submissions.models import Question, QuestionAuthor

# What the author sees for each internal status: honest, and no game leaks.
PUBLIC_STATUS = {
    "received": "received",
    "prechecked": "in_review",
    "in_review": "in_review",
    "approved": "accepted",
    "assigned": "accepted",
    "rejected": "not_accepted",
    "used": "used",  # history rows written before the state machine
    "played": "used",
    "answered": "used",
    "unanswered": "used",
    "withdrawn": "withdrawn",
    "archived": "archived",
}


_TOKEN = re.compile(r"[A-Za-z0-9_-]+")

#: Texts per ``IN (…)`` of :func:`texts_present` (far below SQLite's parameter limit).
TEXTS_PER_QUERY = 500


def texts_present(texts: list[str]) -> int:
    """How many of the distinct question ``texts`` some stored question (any status, the
    archive too) has word for word: a packet imported again is found by its texts, whatever
    its file is called. One statement per :data:`TEXTS_PER_QUERY` texts."""
    wanted = sorted(set(texts))
    found = 0
    for i in range(0, len(wanted), TEXTS_PER_QUERY):
        chunk = wanted[i : i + TEXTS_PER_QUERY]
        found += len(
            db.session.scalars(
                db.select(Question.text).where(Question.text.in_(chunk)).distinct()
            ).all()
        )
    return found


def latest_language(author_id: int) -> str | None:
    """The stored language code (``ru``/``be``/``en``, as the page it was sent from) of the
    author's latest question that has one, or None: what Sova writes to the author in when
    nothing else says (the "my questions" link, the payee's e-mails)."""
    return db.session.scalar(
        db.select(Question.language)
        .join(Question.authors)
        .where(QuestionAuthor.author_id == author_id, Question.language.is_not(None))
        .order_by(Question.id.desc())
        .limit(1)
    )


def by_token(token: str) -> Question | None:
    """The question behind a status link, or None (also for anything that is not a
    ``secrets.token_urlsafe`` string: a NUL, say, which PostgreSQL refuses in a query)."""
    if not token or len(token) > 64 or not _TOKEN.fullmatch(token):
        return None
    return db.session.scalar(db.select(Question).filter_by(public_token=token))


# Later features add public events to a question's history without submissions importing
# them (DESIGN: a back-edge uses a signal): a receiver returns ``[{"status", "at"}]``,
# e.g. prizes' ``prize_owed`` and ``paid``.
public_events = Namespace().signal("sova.question-public-events")

# Whether a question's game has aired (the embargo, ``webapp.games.publication``), asked
# the same way: ``published.send(question, now=now)``; a receiver returns the air time of
# the game the question was asked in when that game is published at ``now``, else None.
# No receiver: never aired.
published = Namespace().signal("sova.question-published")


# What «Мои вопросы» shows of a question once its game has aired (the archive answers,
# ``webapp.archive.queries``): ``archive_entries.send(question, author_id=…, now=…)``; a
# receiver returns ``{"game_id", "outcome", "prize", "currency", "public"}`` or None.
archive_entries = Namespace().signal("sova.question-archive-entry")


def archive_entry(question: Question, author_id: int, now: datetime | None = None) -> dict | None:
    """What the viewer ``author_id`` may see of ``question``'s game once it has aired: the
    game's id (its page in the archive), the outcome (``answered``/``unanswered``), the
    viewer's prize (Decimal or None) and its currency, and ``public`` (False: held back,
    not in the archive); None before the air (or when no receiver is connected)."""
    for _receiver, result in archive_entries.send(question, author_id=author_id, now=now):
        if result:
            return result
    return None


def aired_at(question: Question, now: datetime | None = None) -> datetime | None:
    """The air time (UTC) of the game ``question`` was asked in, if that game is published
    at ``now`` (closed, its air time passed: :func:`webapp.games.publication.question_published`);
    else None."""
    times = [result for _receiver, result in published.send(question, now=now) if result]
    return max(times) if times else None


def has_aired(question: Question, now: datetime | None = None) -> bool:
    """True if the game ``question`` was asked in is published at ``now`` (:func:`aired_at`)."""
    return aired_at(question, now) is not None


def public_history(question: Question, now: datetime | None = None) -> list[dict]:
    """The author's view of the history: ``[{"status": str, "at": datetime (UTC),
    "air_date": date or None}]``, in the order it happened.

    Internal steps that would reveal the game (``assigned``) are shown as ``accepted``;
    ``used`` — and every event other features add through :data:`public_events` (prize
    owed, paid) — appears only once the game is published (:func:`has_aired`: closed and
    its air time before ``now``). ``used`` is dated by the game's air time, and its
    ``air_date`` is that day in the season's zone: the author sees the question played on
    the day of the broadcast, not when the game was played or closed (a game recorded
    ahead, a live game closed after midnight). The added events are dated no earlier than
    the air. Consecutive repeats are merged; ``air_date`` is None on every other entry.
    """
    aired = aired_at(question, now)
    events: list[dict[str, Any]] = [
        {"status": PUBLIC_STATUS.get(c.to_status, c.to_status), "at": c.at, "order": c.at}
        for c in question.history
    ]
    if aired:
        extras = [e for _receiver, extra in public_events.send(question) for e in extra or []]
        events.extend({**e, "order": e["at"], "at": max(e["at"], aired)} for e in extras)
    events.sort(key=itemgetter("order"))
    out: list[dict] = []
    for event in events:
        status, at = event["status"], event["at"]
        if status == "used" and not aired:
            status = "accepted"
        elif status == "used":
            at = aired
        if out and out[-1]["status"] == status:
            continue
        out.append(
            {
                "status": status,
                "at": at.astimezone(UTC),
                "air_date": aired.date() if aired and status == "used" else None,
            }
        )
    return out
