"""The statistics' counts of viewer questions (:class:`~webapp.submissions.models.
ViewerQuestionDay`, :class:`~webapp.submissions.models.ViewerIntakeDay`,
:class:`~webapp.submissions.models.ViewerQuestionMonth`,
:class:`~webapp.submissions.models.ViewerDecisionMonth`,
:class:`~webapp.submissions.models.ViewerDecisionDay`), the queue's counts by status
and author's city (:class:`~webapp.submissions.models.QuestionCityCount`) and each
question's first decision time, kept exact in the transaction of every write: two flush hooks for what the ORM writes (:func:`register_day_counts`, connected
once by the app factory) and :func:`count_questions` / :func:`note_decisions` for the Core
writers (the bulk import, the tests' and the benches' generated data)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import date, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import bindparam, delete, event, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from webapp.submissions.models import (
    Question,
    QuestionAuthor,
    QuestionCityCount,
    QuestionStatusChange,
    ViewerDecisionDay,
    ViewerDecisionMonth,
    ViewerIntakeDay,
    ViewerQuestionDay,
    ViewerQuestionMonth,
)

#: The count tables, every one filled from the questions' keys (:class:`Key`).
COUNT_TABLES = (
    ViewerQuestionDay,
    ViewerIntakeDay,
    ViewerQuestionMonth,
    ViewerDecisionMonth,
    QuestionCityCount,
    ViewerDecisionDay,
)

#: The status whose questions :class:`QuestionCityCount` leaves out (the archive: the
#: queue by city of the archive counts its rows, up to its cap).
UNCOUNTED_STATUS = "archived"
#: The questions :func:`day_keys` reads: the viewer questions (the statistics) and every
#: question not archived (the queue's counts by city).
KEYED = or_(Question.channel != "archive", Question.status != UNCOUNTED_STATUS)

DayKey = tuple[date, str, str, str]

#: The microseconds of an hour: :class:`ViewerDecisionMonth`'s and
#: :class:`ViewerDecisionDay`'s bins.
HOUR_US = 3_600_000_000


class Key(NamedTuple):
    """What the counts know of one question: its local day, channel, status, first
    author's city (``""`` without one), the exact time from receipt to its first decision
    in microseconds (None before one), whether it is a viewer question (``channel <>
    'archive'``: the statistics count only those) and the cities its authors gave (every
    link's, as written; None left out: the queue's counts by city)."""

    day: date
    channel: str
    status: str
    city: str
    decision: int | None
    viewer: bool = True
    cities: frozenset[str] = frozenset()

    @property
    def month(self) -> date:
        return self.day.replace(day=1)


def micros(span: timedelta) -> int:
    """A time span in whole microseconds (exact: a timedelta holds no finer)."""
    return span // timedelta(microseconds=1)


def day_keys(connection, ids) -> dict[int, Key]:
    """``{question id: Key}`` of the questions among ``ids`` that are viewer questions or
    not archived (:data:`KEYED`), as the database holds them now (two statements per
    thousand ids: the questions, their authors' cities)."""
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    first_city = (
        select(QuestionAuthor.city)
        .where(QuestionAuthor.question_id == Question.id, QuestionAuthor.position == 0)
        .order_by(QuestionAuthor.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    ids = sorted(ids)
    out: dict[int, Key] = {}
    for start in range(0, len(ids), 1000):
        for qid, created, channel, status, city, decided in connection.execute(
            select(
                Question.id,
                Question.created_at,
                Question.channel,
                Question.status,
                first_city,
                Question.first_decision_at,
            ).where(Question.id.in_(ids[start : start + 1000]), KEYED)
        ):
            out[qid] = Key(
                created.astimezone(zone).date(),
                channel,
                status,
                city or "",
                None if decided is None else micros(decided - created),
                channel != "archive",
            )
        cities: dict[int, set[str]] = {}
        for qid, city in connection.execute(
            select(QuestionAuthor.question_id, QuestionAuthor.city).where(
                QuestionAuthor.question_id.in_(ids[start : start + 1000]),
                QuestionAuthor.city.is_not(None),
            )
        ):
            cities.setdefault(qid, set()).add(city)
        for qid, found in cities.items():
            if qid in out:
                out[qid] = out[qid]._replace(cities=frozenset(found))
    return out


class Deltas:
    """The changes to the count tables that some questions' keys moving make."""

    def __init__(self) -> None:
        self.days: Counter[DayKey] = Counter()
        self.intake: Counter[tuple[date, str]] = Counter()
        self.months: Counter[tuple[date, str, str]] = Counter()
        self.decisions: dict[tuple[date, int], list[int]] = {}
        self.cities: Counter[tuple[str, str]] = Counter()
        self.decision_days: dict[tuple[date, int], list[int]] = {}

    def add(self, key: Key, sign: int) -> None:
        if key.status != UNCOUNTED_STATUS:
            for city in key.cities:
                self.cities[(key.status, city)] += sign
        if not key.viewer:
            return
        self.days[(key.day, key.channel, key.status, key.city)] += sign
        self.intake[(key.day, key.channel)] += sign
        self.months[(key.month, key.status, key.city)] += sign
        if key.decision is not None:
            hour = key.decision // HOUR_US
            for row in (
                self.decisions.setdefault((key.month, hour), [0, 0]),
                self.decision_days.setdefault((key.day, hour), [0, 0]),
            ):
                row[0] += sign
                row[1] += sign * key.decision


def _upsert(connection, model, keys: tuple[str, ...], rows: list[dict], sums: tuple[str, ...]):
    insert = pg_insert if connection.dialect.name == "postgresql" else sqlite_insert
    stmt = insert(model).values(rows)
    return stmt.on_conflict_do_update(
        index_elements=[getattr(model, k) for k in keys],
        set_={s: getattr(model, s) + getattr(stmt.excluded, s) for s in sums},
    )


def _decision_rows(key: str, bins: dict[tuple[date, int], list[int]]) -> list[dict]:
    """The upsert rows of decision bins ``{(month or day, hour): [count, micros]}``, keyed
    ``key`` (``"month"`` or ``"day"``), in key order, those that change nothing left out."""
    return [
        {key: on, "hour": h, "count": n, "micros": us}
        for (on, h), (n, us) in sorted(bins.items())
        if n or us
    ]


def add_counts(connection, deltas: Deltas) -> None:
    """Add ``deltas`` to the count tables: one ``count + delta`` upsert per table that
    changes (keys in order, so two transactions lock shared rows in the same order), on
    PostgreSQL all of them in one statement (the others as data-modifying ``WITH``
    clauses: a decision moves four tables for one round trip)."""
    d = deltas
    upserts = []
    rows = [
        {"day": day, "channel": c, "status": s, "city": city, "count": n}
        for (day, c, s, city), n in sorted(d.days.items())
        if n
    ]
    if rows:
        upserts.append(
            _upsert(
                connection,
                ViewerQuestionDay,
                ("day", "channel", "status", "city"),
                rows,
                ("count",),
            )
        )
    rows = [{"day": day, "channel": c, "count": n} for (day, c), n in sorted(d.intake.items()) if n]
    if rows:
        upserts.append(_upsert(connection, ViewerIntakeDay, ("day", "channel"), rows, ("count",)))
    rows = [
        {"month": m, "status": s, "city": city, "count": n}
        for (m, s, city), n in sorted(d.months.items())
        if n
    ]
    if rows:
        upserts.append(
            _upsert(connection, ViewerQuestionMonth, ("month", "status", "city"), rows, ("count",))
        )
    rows = _decision_rows("month", d.decisions)
    if rows:
        upserts.append(
            _upsert(connection, ViewerDecisionMonth, ("month", "hour"), rows, ("count", "micros"))
        )
    rows = [{"status": s, "city": c, "count": n} for (s, c), n in sorted(d.cities.items()) if n]
    if rows:
        upserts.append(_upsert(connection, QuestionCityCount, ("status", "city"), rows, ("count",)))
    rows = _decision_rows("day", d.decision_days)
    if rows:
        upserts.append(
            _upsert(connection, ViewerDecisionDay, ("day", "hour"), rows, ("count", "micros"))
        )
    if not upserts:
        return
    if connection.dialect.name == "postgresql":
        *ctes, last = upserts
        connection.execute(last.add_cte(*(u.cte(f"counts_{n}") for n, u in enumerate(ctes))))
        return
    for upsert in upserts:
        connection.execute(upsert)


def count_questions(connection, ids, before: Mapping[int, Key] | None = None) -> None:
    """Bring the count tables in step with questions ``ids`` written by Core statements:
    ``before`` their keys before the write (:func:`day_keys`; none for new questions)."""
    before = before or {}
    after = day_keys(connection, ids)
    deltas = Deltas()
    for qid in set(before) | set(after):
        old, new = before.get(qid), after.get(qid)
        if old != new:
            if old is not None:
                deltas.add(old, -1)
            if new is not None:
                deltas.add(new, 1)
    add_counts(connection, deltas)


def _touched(session) -> set[int]:
    """The ids of the questions whose day key this flush may change: every question new,
    changed or deleted, the question of every author link new, changed or deleted and of
    every status change written."""
    ids: set[int] = set()
    for o in (*session.new, *session.dirty, *session.deleted):
        if isinstance(o, Question):
            qid = o.id
        elif isinstance(o, QuestionStatusChange):
            # a decision moves the question's time to decision (its first_decision_at); one
            # appended to an existing question's history comes with the question changed
            qid = o.question_id
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


def note_decisions(connection, changes, *, count: bool = True) -> None:
    """Keep ``Question.first_decision_at`` the earliest decision of each question, for
    ``changes`` ``[(question id, to_status, at)]`` just written (Core writers call it too),
    and the time-to-decision counts with it (``count``; the flush hook counts the flush's
    questions itself, once)."""
    rows = [{"qid": q, "at": at} for q, to, at in changes if to in DECISIONS]
    if rows:
        before = day_keys(connection, {r["qid"] for r in rows}) if count else None
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
        if before is not None:
            count_questions(connection, before, before)


def _day_counts_after(session, _context) -> None:
    note_decisions(
        session.connection(),
        [
            (o.question_id, o.to_status, o.at)
            for o in session.new
            if isinstance(o, QuestionStatusChange)
        ],
        count=False,
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
    """Count every viewer question again from scratch (every count table), in ``SOVA_TIMEZONE`` as it is
    now (the counts follow the zone they were made in: after the setting changes, the
    days of the statistics page are the old zone's until this runs), and every question
    not archived by status and city (:class:`QuestionCityCount`). The caller's
    transaction: the statistics never see the table half-filled. Returns how many viewer
    questions were counted."""
    for table in COUNT_TABLES:
        connection.execute(delete(table))
    ids = connection.scalars(select(Question.id).where(KEYED).order_by(Question.id)).all()
    for start in range(0, len(ids), batch):
        count_questions(connection, ids[start : start + batch])
    return connection.scalar(
        select(func.count()).select_from(Question).where(Question.channel != "archive")
    )
