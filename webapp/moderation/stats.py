"""The editors' statistics page: intake per day and channel, acceptance rate, by city,
time to decision. Viewer questions only (the imported archive is left out).

Aggregated in the database: a fixed number of statements whatever the number of
questions, each returning a bounded number of rows (days × channels, cities, two middle
decisions), none returning a row per question."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import func, select, text

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.submissions.models import (
    Question,
    QuestionAuthor,
    ViewerQuestionDay,
)

#: The viewer questions (not the imported archive), word for word the predicate of the
#: partial index ``ix_question_viewer_created`` (migration 0030): a database takes a partial
#: index only for a statement that repeats its predicate, a literal, not a bound parameter.
VIEWER = text("question.channel <> 'archive'")

ACCEPTED = ("approved", "assigned", "played", "answered", "unanswered")
#: The decided questions, word for word the second predicate of the partial index
#: ``ix_question_viewer_decided`` (migration 0044; a literal, as :data:`VIEWER`).
DECIDED = text("question.first_decision_at IS NOT NULL")
#: The first authors, word for word the predicate of ``ix_question_author_first``.
FIRST_AUTHOR = text("question_author.position = 0")
NO_CITY = "—"


def _hours(first, created):
    """The SQL expression of the hours between two timestamps (float)."""
    if db.session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", first - created) / 3600.0
    return (func.julianday(first) - func.julianday(created)) * 24.0


def _decisions(since: datetime) -> dict:
    """``{"count", "median", "mean"}`` of the hours from receipt to the first decision
    (approved or rejected) of the viewer questions received since ``since``: each
    question's first decision is kept on it (``Question.first_decision_at``), so the
    window's decided questions are one range of ``ix_question_viewer_decided``; the median
    from the one or two middle decisions, computed as before from their timestamps."""
    window = (VIEWER, Question.created_at >= since, DECIDED)
    hours = _hours(Question.first_decision_at, Question.created_at)
    if db.session.get_bind().dialect.name == "postgresql":
        # one pass: the median as the mean of the one or two middle values, as below
        count, mean, median = db.session.execute(
            select(
                func.count(), func.avg(hours), func.percentile_cont(0.5).within_group(hours)
            ).where(*window)
        ).one()
        if not count:
            return {"count": 0, "median": None, "mean": None}
        return {"count": count, "median": round(median, 1), "mean": round(float(mean), 1)}
    count, mean = db.session.execute(select(func.count(), func.avg(hours)).where(*window)).one()
    if not count:
        return {"count": 0, "median": None, "mean": None}
    middle = db.session.execute(
        select(Question.created_at, Question.first_decision_at)
        .where(*window)
        .order_by(hours)
        .offset((count - 1) // 2)
        .limit(2 - count % 2)
    ).all()
    # ``at`` is never None here: the window holds decided questions only
    median = statistics.mean(
        (at - created).total_seconds() / 3600 for created, at in middle if at is not None
    )
    return {"count": count, "median": round(median, 1), "mean": round(float(mean), 1)}


def _first_day(since: datetime, cut: datetime) -> tuple[dict, dict]:
    """The window's first, partial local day (``since`` … ``cut``, the next local
    midnight), question by question: ``({channel: count}, {(city or "", status): count})``
    (at most a day's questions, through the partial index of the viewer questions)."""
    first_city = (
        select(QuestionAuthor.city)
        .where(QuestionAuthor.question_id == Question.id, FIRST_AUTHOR)
        .order_by(QuestionAuthor.id.desc())
        .limit(1)
        .scalar_subquery()
        .label("city")
    )
    intake: dict[str, int] = {}
    cities: dict[tuple[str, str], int] = {}
    for channel, status, city, count in db.session.execute(
        select(Question.channel, Question.status, first_city, func.count())
        .where(VIEWER, Question.created_at >= since, Question.created_at < cut)
        .group_by(Question.channel, Question.status, first_city)
    ):
        intake[channel] = intake.get(channel, 0) + count
        key = (city or "", status)
        cities[key] = cities.get(key, 0) + count
    return intake, cities


def summary(days: int = 30) -> dict:
    """``{"intake": [{"day": date, "channel": str, "count": int}] (last ``days`` days, days
    in ``SOVA_TIMEZONE``, sorted), "channels": [str], "accepted": int, "rejected": int,
    "acceptance_rate": float 0..1 | None, "cities": [{"city", "received", "accepted"}]
    (first author's city, «—» without one, most questions first), "decision_hours":
    {"count", "median", "mean"} (hours from receipt to the first decision, 1 place; None
    without decisions)}``. Every figure counts the viewer questions received in the last
    ``days`` days (the page's «За последние, дней»).

    The whole local days of the window (from the first midnight after ``now - days``,
    and any day after today: a clock ahead) are read from the day counts
    (:class:`~webapp.submissions.models.ViewerQuestionDay`: a few rows per day, however
    many questions); the partial first day question by question; the time to decision
    from each decided question's first decision, kept on it (a median needs every value:
    one range of ``ix_question_viewer_decided``)."""
    now = utcnow()
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    since = now - timedelta(days=days)
    first = since.astimezone(zone).date()
    cut = datetime.combine(first + timedelta(days=1), time(0), zone).astimezone(UTC)
    head_intake, head_cities = _first_day(since, cut)
    intake = {(first, c): n for c, n in head_intake.items()}
    counted = (ViewerQuestionDay.day > first, ViewerQuestionDay.count > 0)
    for on, channel, count in db.session.execute(
        select(ViewerQuestionDay.day, ViewerQuestionDay.channel, func.sum(ViewerQuestionDay.count))
        .where(*counted)
        .group_by(ViewerQuestionDay.day, ViewerQuestionDay.channel)
    ):
        intake[(on, channel)] = int(count)
    by_city = dict(head_cities)
    for city, status, count in db.session.execute(
        select(ViewerQuestionDay.city, ViewerQuestionDay.status, func.sum(ViewerQuestionDay.count))
        .where(*counted)
        .group_by(ViewerQuestionDay.city, ViewerQuestionDay.status)
    ):
        by_city[(city, status)] = by_city.get((city, status), 0) + int(count)
    cities: dict[str, list[int]] = {}
    accepted = rejected = 0
    for (city, status), count in by_city.items():
        row = cities.setdefault(city or NO_CITY, [0, 0])
        row[0] += count
        if status in ACCEPTED:
            row[1] += count
            accepted += count
        elif status == "rejected":
            rejected += count
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
