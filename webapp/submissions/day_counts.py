"""The statistics' day counts of viewer questions (:class:`~webapp.submissions.models.
ViewerQuestionDay`) and each question's first decision time, kept exact in the transaction of
every write: two flush hooks for what the ORM writes (:func:`register_day_counts`, connected
once by the app factory) and :func:`count_questions` / :func:`note_decisions` for the Core
writers (the bulk import, the tests' and the benches' generated data)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import date
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import bindparam, delete, event, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from webapp.submissions.models import (
    Question,
    QuestionAuthor,
    QuestionStatusChange,
    ViewerQuestionDay,
)

DayKey = tuple[date, str, str, str]


def day_keys(connection, ids) -> dict[int, DayKey]:
    """``{question id: (local day, channel, status, first author's city or "")}`` of the
    viewer questions among ``ids`` as the database holds them now (one statement per
    thousand ids)."""
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    first_city = (
        select(QuestionAuthor.city)
        .where(QuestionAuthor.question_id == Question.id, QuestionAuthor.position == 0)
        .order_by(QuestionAuthor.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    ids = sorted(ids)
    out: dict[int, DayKey] = {}
    for start in range(0, len(ids), 1000):
        for qid, created, channel, status, city in connection.execute(
            select(
                Question.id, Question.created_at, Question.channel, Question.status, first_city
            ).where(Question.id.in_(ids[start : start + 1000]), Question.channel != "archive")
        ):
            out[qid] = (created.astimezone(zone).date(), channel, status, city or "")
    return out


def add_day_counts(connection, deltas: Mapping[DayKey, int]) -> None:
    """Add ``deltas`` to the rows of :class:`ViewerQuestionDay` (one upsert statement;
    keys in order, so two transactions lock shared rows in the same order)."""
    rows = [
        {"day": d, "channel": c, "status": s, "city": city, "count": n}
        for (d, c, s, city), n in sorted(deltas.items())
        if n
    ]
    if not rows:
        return
    insert = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    stmt = insert(ViewerQuestionDay).values(rows)
    v = ViewerQuestionDay
    connection.execute(
        stmt.on_conflict_do_update(
            index_elements=[v.day, v.channel, v.status, v.city],
            set_={"count": v.count + stmt.excluded.count},
        )
    )


def count_questions(connection, ids, before: Mapping[int, DayKey] | None = None) -> None:
    """Bring the day counts in step with questions ``ids`` written by Core statements:
    ``before`` their keys before the write (:func:`day_keys`; none for new questions)."""
    before = before or {}
    after = day_keys(connection, ids)
    deltas: Counter[DayKey] = Counter()
    for qid in set(before) | set(after):
        old, new = before.get(qid), after.get(qid)
        if old != new:
            if old is not None:
                deltas[old] -= 1
            if new is not None:
                deltas[new] += 1
    add_day_counts(connection, deltas)


def _touched(session) -> set[int]:
    """The ids of the questions whose day key this flush may change: every question new,
    changed or deleted, and the question of every author link new, changed or deleted."""
    ids: set[int] = set()
    for o in (*session.new, *session.dirty, *session.deleted):
        if isinstance(o, Question):
            qid = o.id
        elif isinstance(o, QuestionAuthor):
            qid = o.question_id
            if qid is None and o.question is not None:
                qid = o.question.id
        else:
            continue
        if qid is not None:
            ids.add(qid)
    return ids


_BEFORE = "viewer_question_day.before"


def _day_keys_before(session, _context, _instances) -> None:
    ids = _touched(session)
    session.info[_BEFORE] = day_keys(session.connection(), ids) if ids else {}


#: The status changes that are decisions (the statistics' time to decision).
DECISIONS = ("approved", "rejected")


def note_decisions(connection, changes) -> None:
    """Keep ``Question.first_decision_at`` the earliest decision of each question, for
    ``changes`` ``[(question id, to_status, at)]`` just written (Core writers call it too)."""
    rows = [{"qid": q, "at": at} for q, to, at in changes if to in DECISIONS]
    if rows:
        connection.execute(
            update(Question)
            .where(
                Question.id == bindparam("qid"),
                or_(
                    Question.first_decision_at.is_(None),
                    Question.first_decision_at > bindparam("at"),
                ),
            )
            .values(first_decision_at=bindparam("at")),
            rows,
        )


def _day_counts_after(session, _context) -> None:
    note_decisions(
        session.connection(),
        [
            (o.question_id, o.to_status, o.at)
            for o in session.new
            if isinstance(o, QuestionStatusChange)
        ],
    )
    before = session.info.pop(_BEFORE, None)
    if before is None:
        return
    ids = _touched(session) | set(before)
    if ids:
        count_questions(session.connection(), ids, before)


def register_day_counts() -> None:
    """Connect the two flush hooks to every session (once, however many apps are made)."""
    if not event.contains(Session, "before_flush", _day_keys_before):
        event.listen(Session, "before_flush", _day_keys_before)
        event.listen(Session, "after_flush", _day_counts_after)


def recount_day_counts(connection, batch: int = 5000) -> int:
    """Count every viewer question's day again from scratch, in ``SOVA_TIMEZONE`` as it is
    now (the counts follow the zone they were made in: after the setting changes, the
    days of the statistics page are the old zone's until this runs). The caller's
    transaction: the statistics never see the table half-filled. Returns how many viewer
    questions were counted."""
    connection.execute(delete(ViewerQuestionDay))
    ids = connection.scalars(
        select(Question.id).where(Question.channel != "archive").order_by(Question.id)
    ).all()
    for start in range(0, len(ids), batch):
        count_questions(connection, ids[start : start + batch])
    return len(ids)
