"""The editors' statistics page: intake per day and channel, acceptance rate, by city,
time to decision. Viewer questions only (the imported archive is left out).

Aggregated in the database: a fixed number of statements whatever the number of
questions, each returning a bounded number of rows (days × channels, cities, two middle
decisions), none returning a row per question."""

from __future__ import annotations

import statistics
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import Date, case, cast, func, select, text

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.submissions.models import Question, QuestionAuthor, QuestionStatusChange

#: The viewer questions (not the imported archive), word for word the predicate of the
#: partial index ``ix_question_viewer_created`` (migration 0030): a database takes a partial
#: index only for a statement that repeats its predicate, a literal, not a bound parameter.
VIEWER = text("question.channel <> 'archive'")

ACCEPTED = ("approved", "assigned", "played", "answered", "unanswered")
#: The decisions, word for word the predicate of the partial index
#: ``ix_question_status_change_decided`` (migration 0040; a literal, as :data:`VIEWER`).
DECIDED = text("question_status_change.to_status IN ('approved', 'rejected')")
#: The first authors, word for word the predicate of ``ix_question_author_first``.
FIRST_AUTHOR = text("question_author.position = 0")
NO_CITY = "—"


def _midnights(first: date, last: date, zone: ZoneInfo) -> list[datetime]:
    """The UTC instants of the local midnights that start ``first`` … ``last`` + 1 day."""
    days = (last - first).days + 2
    return [
        datetime.combine(first + timedelta(days=i), time(0), zone).astimezone(UTC)
        for i in range(days)
    ]


def _intake(since: datetime, now: datetime, zone: ZoneInfo) -> dict[tuple[date, str], int]:
    """``{(local day, channel): count}`` of the viewer questions received since ``since``,
    one GROUP BY. PostgreSQL names each row's local day itself (``timezone()``: exact in any
    zone, summer time included); SQLite, which knows no zone, numbers it by a CASE over the
    UTC instants of the local midnights (a comparison per day of the window and row: fine
    for the small databases SQLite serves), plus the rare rows dated after today (a clock
    ahead) one by one."""
    viewer = (VIEWER, Question.created_at >= since)
    out: dict[tuple[date, str], int] = {}
    if db.session.get_bind().dialect.name == "postgresql":
        local = cast(func.timezone(zone.key, Question.created_at), Date).label("day")
        for on, channel, count in db.session.execute(
            select(local, Question.channel, func.count())
            .where(*viewer)
            .group_by(local, Question.channel)
        ):
            out[(on, channel)] = count
        return out
    first = since.astimezone(zone).date()
    bounds = _midnights(first, now.astimezone(zone).date(), zone)
    day = case(
        *((Question.created_at < b, i - 1) for i, b in enumerate(bounds[1:], 1)), else_=-1
    ).label("day")
    for n, channel, count in db.session.execute(
        select(day, Question.channel, func.count()).where(*viewer).group_by(day, Question.channel)
    ):
        if n >= 0:
            out[(first + timedelta(days=n), channel)] = count
    for created, channel in db.session.execute(
        select(Question.created_at, Question.channel).where(
            *viewer, Question.created_at >= bounds[-1]
        )
    ):
        key = (created.astimezone(zone).date(), channel)
        out[key] = out.get(key, 0) + 1
    return out


def _hours(first, created):
    """The SQL expression of the hours between two timestamps (float)."""
    if db.session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", first - created) / 3600.0
    return (func.julianday(first) - func.julianday(created)) * 24.0


def _decisions(since: datetime) -> dict:
    """``{"count", "median", "mean"}`` of the hours from receipt to the first decision
    (approved or rejected) of the viewer questions received since ``since``; the median
    from the one or two middle decisions, computed as before from their timestamps."""
    # the window's viewer questions first (the partial index), then their first decision
    # each (the status changes by question): nothing outside the window is read
    decided = (
        select(
            Question.created_at.label("created"),
            func.min(QuestionStatusChange.at).label("at"),
        )
        .join(QuestionStatusChange, QuestionStatusChange.question_id == Question.id)
        .where(VIEWER, Question.created_at >= since, DECIDED)
        .group_by(Question.id, Question.created_at)
        .subquery()
    )
    hours = _hours(decided.c.at, decided.c.created)
    if db.session.get_bind().dialect.name == "postgresql":
        # one pass: the median as the mean of the one or two middle values, as below
        count, mean, median = db.session.execute(
            select(func.count(), func.avg(hours), func.percentile_cont(0.5).within_group(hours))
        ).one()
        if not count:
            return {"count": 0, "median": None, "mean": None}
        return {"count": count, "median": round(median, 1), "mean": round(float(mean), 1)}
    count, mean = db.session.execute(select(func.count(), func.avg(hours))).one()
    if not count:
        return {"count": 0, "median": None, "mean": None}
    middle = db.session.execute(
        select(decided.c.created, decided.c.at)
        .order_by(hours)
        .offset((count - 1) // 2)
        .limit(2 - count % 2)
    ).all()
    median = statistics.mean(
        (_aware(at) - _aware(created)).total_seconds() / 3600 for created, at in middle
    )
    return {"count": count, "median": round(median, 1), "mean": round(float(mean), 1)}


def _aware(value: datetime) -> datetime:
    """A timestamp read through a subquery's column as UTC-aware (SQLite gives naive UTC)."""
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def summary(days: int = 30) -> dict:
    """``{"intake": [{"day": date, "channel": str, "count": int}] (last ``days`` days, days
    in ``SOVA_TIMEZONE``, sorted), "channels": [str], "accepted": int, "rejected": int,
    "acceptance_rate": float 0..1 | None, "cities": [{"city", "received", "accepted"}]
    (first author's city, «—» without one, most questions first), "decision_hours":
    {"count", "median", "mean"} (hours from receipt to the first decision, 1 place; None
    without decisions)}``. Every figure counts the viewer questions received in the last
    ``days`` days (the page's «За последние, дней»): each statement reads them through the
    partial index of the viewer questions by receipt time (``ix_question_viewer_created``),
    so the page's cost follows the window, not the archive."""
    now = utcnow()
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    since = now - timedelta(days=days)
    intake = _intake(since, now, zone)
    first_city = (
        select(QuestionAuthor.city)
        .where(QuestionAuthor.question_id == Question.id, FIRST_AUTHOR)
        .order_by(QuestionAuthor.id.desc())
        .limit(1)
        .scalar_subquery()
        .label("city")
    )
    is_accepted = case((Question.status.in_(ACCEPTED), 1), else_=0)
    is_rejected = case((Question.status == "rejected", 1), else_=0)
    cities: dict[str, list[int]] = {}
    accepted = rejected = 0
    for city, received, acc, rej in db.session.execute(
        select(first_city, func.count(), func.sum(is_accepted), func.sum(is_rejected))
        .where(VIEWER, Question.created_at >= since)
        .group_by(first_city)
    ):
        row = cities.setdefault(city or NO_CITY, [0, 0])
        row[0] += received
        row[1] += int(acc or 0)
        accepted += int(acc or 0)
        rejected += int(rej or 0)
    return {
        "intake": [{"day": d, "channel": c, "count": n} for (d, c), n in sorted(intake.items())],
        "channels": sorted({c for _, c in intake}),
        "accepted": accepted,
        "rejected": rejected,
        "acceptance_rate": round(accepted / (accepted + rejected), 3)
        if accepted + rejected
        else None,
        "cities": [
            {"city": c, "received": v[0], "accepted": v[1]}
            for c, v in sorted(cities.items(), key=lambda kv: (-kv[1][0], kv[0]))
        ],
        "decision_hours": _decisions(since),
    }
