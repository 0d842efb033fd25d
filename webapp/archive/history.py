"""A question's public history, read in one place: what its author sees of it on the status
page, in «Мои вопросы» and through the status API.

This room sits above submissions, games and prizes, so it reads each directly: the
question's status changes (submissions), whether the game it was asked in is published
(the embargo, :mod:`webapp.games.publication`) and its prizes (prizes). Nothing of a game
shows before that game is published."""

from __future__ import annotations

from datetime import UTC, datetime
from operator import itemgetter
from typing import Any
from zoneinfo import ZoneInfo

from webapp.extensions import db
from webapp.games.publication import is_published, played_in
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.submissions.models import Question
from webapp.submissions.operations import OFFERED_UNTIL_AIR, WITHDRAWABLE

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


def aired_at(question: Question, now: datetime | None = None) -> datetime | None:
    """The air time of the game ``question`` was asked in, in its season's zone (the
    instant is the stored UTC one), if that game is published at ``now`` (closed, its air
    time given and passed: :func:`webapp.games.publication.is_published`); else None."""
    game = played_in(question)
    if game is None or game.air_at is None or not is_published(game, now):
        return None
    return game.air_at.astimezone(ZoneInfo(game.season.timezone))


def prize_events(question: Question) -> list[dict]:
    """``[{"status": "prize_owed" | "paid", "at": datetime}]`` for ``question``'s prizes:
    ``prize_owed`` when a prize for it exists, ``paid`` when one was paid."""
    prizes = db.session.scalars(
        db.select(Prize).where(Prize.question_id == question.id).order_by(Prize.id)
    ).all()
    if not prizes:
        return []
    events = [{"status": "prize_owed", "at": min(p.created_at for p in prizes)}]
    paid_at = db.session.scalar(
        db.select(db.func.min(PrizeStatusChange.created_at)).where(
            PrizeStatusChange.prize_id.in_([p.id for p in prizes]),
            PrizeStatusChange.to_status == "paid",
        )
    )
    if paid_at is not None:
        events.append({"status": "paid", "at": paid_at})
    return events


def public_history(question: Question, now: datetime | None = None) -> list[dict]:
    """The author's view of the history: ``[{"status": str, "at": datetime (UTC),
    "air_date": date or None}]``, in the order it happened.

    Internal steps that would reveal the game (``assigned``) are shown as ``accepted``;
    ``used`` — and the prize events (:func:`prize_events`: prize owed, paid) — appear only
    once the game is published (:func:`aired_at`: closed and its air time before ``now``).
    ``used`` is dated by the game's air time, and its ``air_date`` is that day in the
    season's zone: the author sees the question played on the day of the broadcast, not
    when the game was played or closed (a game recorded ahead, a live game closed after
    midnight). The prize events are dated no earlier than the air. Consecutive repeats are
    merged; ``air_date`` is None on every other entry.
    """
    aired = aired_at(question, now)
    events: list[dict[str, Any]] = [
        {"status": PUBLIC_STATUS.get(c.to_status, c.to_status), "at": c.at, "order": c.at}
        for c in question.history
    ]
    if aired:
        events.extend(
            {**e, "order": e["at"], "at": max(e["at"], aired)} for e in prize_events(question)
        )
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


def withdraw_offered(question: Question, now: datetime | None = None) -> bool:
    """Whether «Мои вопросы» shows «Отозвать вопрос» for ``question`` at ``now``: in
    ``WITHDRAWABLE``, or in ``OFFERED_UNTIL_AIR`` while its game has not aired
    (:func:`aired_at`, the embargo). The button changes only at the air, never at the
    assignment or the game (``webapp.submissions.operations.withdraw`` refuses a question a
    game took)."""
    if question.status in WITHDRAWABLE:
        return True
    return question.status in OFFERED_UNTIL_AIR and aired_at(question, now) is None
