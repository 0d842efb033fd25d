"""The editors' statistics page: intake per day and channel, acceptance rate, by city,
time to decision. Viewer questions only (the imported archive is left out).

Aggregated in the database: four statements whatever the number of questions. The intake
chart reads a row per day and channel; the rest whole months from counts kept per month
(:class:`~webapp.submissions.models.ViewerQuestionMonth`,
:class:`~webapp.submissions.models.ViewerDecisionMonth`); only the window's first, partial
month (by day, or question by question for the time to decision: the shorter of its part
inside or outside the window) and the median's one hour are read question by question, so
what grows with the data is half a month's and one hour's decided questions, not a
year's."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import cast
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import (
    BigInteger,
    CompoundSelect,
    Integer,
    String,
    func,
    null,
    select,
    text,
    union_all,
)
from sqlalchemy import cast as cast_

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.submissions.day_counts import HOUR_US, micros
from webapp.submissions.models import (
    Question,
    QuestionAuthor,
    ViewerDecisionMonth,
    ViewerIntakeDay,
    ViewerQuestionDay,
    ViewerQuestionMonth,
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
    """The SQL expression of the hours between two timestamps (float, SQLite)."""
    return (func.julianday(first) - func.julianday(created)) * 24.0


def _local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), zone).astimezone(UTC)


def _next_month(day: date) -> date:
    return (day.replace(day=1) + timedelta(days=32)).replace(day=1)


class _Bins:
    """Decided questions by whole hours to decision: ``{hour: count}`` and the sum of the
    exact times in microseconds."""

    def __init__(self) -> None:
        self.counts: Counter[int] = Counter()
        self.micros = 0

    def add(self, hour: int, count: int, micros: int) -> None:
        self.counts[hour] += count
        self.micros += micros


#: One hour's part of the median: ``(hour, rank among that hour's questions of the window,
#: how many they are, how many ranks from there)``.
Part = tuple[int, int, int, int]


def _middle(since: datetime, parts: list[Part]) -> list[int]:
    """The exact times (microseconds) of the middle ranks ``parts`` (one hour, or the last
    of one hour and the first of the next) among the decided viewer questions received since
    ``since``, in one statement: only those hours' questions are read (PostgreSQL: from the
    nearer end of each hour's range of ``ix_question_viewer_decision_time``)."""
    window = (VIEWER, Question.created_at >= since, DECIDED)
    if db.session.get_bind().dialect.name == "postgresql":
        span = Question.first_decision_at - Question.created_at
        reads = []
        for hour, rank, count, take in parts:
            ascending = rank + take / 2 <= count / 2
            reads.append(
                select(span.label("span"))
                .where(*window, span >= timedelta(hours=hour), span < timedelta(hours=hour + 1))
                .order_by(span if ascending else span.desc())
                .offset(rank if ascending else count - rank - take)
                .limit(take)
                .subquery()
            )
        statement = union_all(*(select(r.c.span) for r in reads)) if len(reads) > 1 else None
        spans = db.session.scalars(
            statement if statement is not None else select(reads[0].c.span)
        ).all()
        return sorted(micros(s) for s in spans)
    # SQLite (a small deployment's database) has no exact time span: those hours' questions
    # with a margin for its float hours, cut exactly here
    hours = _hours(Question.first_decision_at, Question.created_at)
    by_hour: dict[int, list[int]] = {hour: [] for hour, *_ in parts}
    for created, at in db.session.execute(
        select(Question.created_at, Question.first_decision_at).where(
            *window, hours >= min(by_hour) - 0.01, hours < max(by_hour) + 1.01
        )
    ):
        us = micros(cast(datetime, at) - created)
        if us // HOUR_US in by_hour:
            by_hour[us // HOUR_US].append(us)
    out: list[int] = []
    for hour, rank, _count, take in parts:
        out += sorted(by_hour[hour])[rank : rank + take]
    return out


def _decisions(since: datetime, zone: ZoneInfo) -> dict:
    """``{"count", "median", "mean"}`` of the hours from receipt to the first decision
    (approved or rejected) of the viewer questions received since ``since``.

    The whole local months after the one of ``since`` (and any later: a clock ahead) from
    :class:`ViewerDecisionMonth`; the month of ``since`` question by question, the part of
    it inside the window or, when shorter, the month's row less the part outside. The
    median: the hour holding the middle rank(s) found in these bins, then the exact one or
    two middle times among that hour's questions of the window alone."""
    month = since.astimezone(zone).date().replace(day=1)
    start, end = _local_midnight(month, zone), _local_midnight(_next_month(month), zone)
    # the first month's part question by question and the later months' hours, one
    # statement: a question's row has its two times, an hour's row its count and sum
    if end - since > since - start:
        sign, spans, later = -1, (start, since), ViewerDecisionMonth.month >= month
    else:
        sign, spans, later = 1, (since, end), ViewerDecisionMonth.month > month
    none = (null(), null())
    rows: CompoundSelect = union_all(
        select(
            Question.created_at,
            Question.first_decision_at,
            cast_(null(), Integer),
            cast_(null(), Integer),
            cast_(null(), BigInteger),
        ).where(VIEWER, Question.created_at >= spans[0], Question.created_at < spans[1], DECIDED),
        select(
            *none,
            ViewerDecisionMonth.hour,
            func.sum(ViewerDecisionMonth.count),
            func.sum(ViewerDecisionMonth.micros),
        )
        .where(later)
        .group_by(ViewerDecisionMonth.hour),
    )
    bins = _Bins()
    for created, at, hour, count, us in db.session.execute(rows):
        if created is not None:
            span = micros(cast(datetime, at) - created)
            bins.add(span // HOUR_US, sign, sign * span)
        else:
            bins.add(hour, int(count), int(us))
    count = sum(bins.counts.values())
    if not count:
        return {"count": 0, "median": None, "mean": None}
    wanted = sorted({(count - 1) // 2, count // 2})  # the one or two middle ranks
    parts: list[Part] = []
    below = 0
    for hour in sorted(h for h, n in bins.counts.items() if n > 0):
        n = bins.counts[hour]
        inside = [r - below for r in wanted if below <= r < below + n]
        if inside:
            parts.append((hour, inside[0], n, len(inside)))
            wanted = wanted[len(inside) :]
        below += n
        if not wanted:
            break
    found = _middle(since, parts)
    # the nearest float of the exact hours, rounded as the float of a database's mean is
    median = float(Fraction(sum(found), len(found) * HOUR_US))
    mean = float(Fraction(bins.micros, count * HOUR_US))
    return {"count": count, "median": round(median, 1), "mean": round(mean, 1)}


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

    The window's first, partial local day is read question by question; the intake of
    the later days (and any day after today: a clock ahead) from
    :class:`~webapp.submissions.models.ViewerIntakeDay`; the statuses and cities of the
    rest of the first day's month from the day counts
    (:class:`~webapp.submissions.models.ViewerQuestionDay`), of the later months from
    :class:`~webapp.submissions.models.ViewerQuestionMonth`; the time to decision as
    :func:`_decisions` says."""
    now = utcnow()
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    since = now - timedelta(days=days)
    first = since.astimezone(zone).date()
    cut = _local_midnight(first + timedelta(days=1), zone)
    head_intake, head_cities = _first_day(since, cut)
    intake = {(first, c): n for c, n in head_intake.items()}
    by_city = dict(head_cities)
    # one statement: the intake chart's days (a row per day and channel), the statuses and
    # cities of the rest of the first day's month by day and of the later months whole
    month = _next_month(first)
    none = (null(), null())
    rows: CompoundSelect = union_all(
        select(
            ViewerIntakeDay.day,
            ViewerIntakeDay.channel,
            cast_(null(), String),
            cast_(null(), String),
            ViewerIntakeDay.count,
        ).where(ViewerIntakeDay.day > first, ViewerIntakeDay.count > 0),
        select(
            *none,
            ViewerQuestionDay.city,
            ViewerQuestionDay.status,
            func.sum(ViewerQuestionDay.count),
        )
        .where(ViewerQuestionDay.day > first, ViewerQuestionDay.day < month)
        .group_by(ViewerQuestionDay.city, ViewerQuestionDay.status),
        select(
            *none,
            ViewerQuestionMonth.city,
            ViewerQuestionMonth.status,
            func.sum(ViewerQuestionMonth.count),
        )
        .where(ViewerQuestionMonth.month >= month)
        .group_by(ViewerQuestionMonth.city, ViewerQuestionMonth.status),
    )
    for on, channel, city, status, count in db.session.execute(rows):
        if on is not None:
            intake[(on, channel)] = count
        else:
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
        "decision_hours": _decisions(since, zone),
    }
