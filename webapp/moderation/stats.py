"""The editors' statistics page: intake per day and channel, acceptance rate, by city,
time to decision. Viewer questions only (the imported archive is left out).

Aggregated in the database: four statements whatever the number of questions, each built
once (bind parameters: a request only fills them in). The intake chart reads a row per day
and channel; the rest whole months from counts kept per month
(:class:`~webapp.submissions.models.ViewerQuestionMonth`,
:class:`~webapp.submissions.models.ViewerDecisionMonth`) and the whole days of the
window's first, partial month from counts kept per day
(:class:`~webapp.submissions.models.ViewerQuestionDay`,
:class:`~webapp.submissions.models.ViewerDecisionDay`: the shorter of that month's days
inside or outside the window, the month's row less the days outside); only the window's
first, partial day (for the time to decision the shorter of its part inside or outside the
window) and the median's one hour are read question by question, and on PostgreSQL the
hours to decision are binned in SQL: what a request reads and computes is bounded by days,
channels, cities and hours to decision, plus one day's and one hour's questions."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from functools import cache
from typing import cast
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import (
    BigInteger,
    Integer,
    Numeric,
    String,
    bindparam,
    extract,
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
    ViewerDecisionDay,
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
#: The decided viewer questions, word for word the second predicate of the partial index
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


def days_from(day: date) -> dict:
    """The bind parameters that read the local days from ``day`` on (and any after today:
    a clock ahead) from a day table and its month table: ``{"d_sign", "d_from", "d_to",
    "m_from"}``, the day rows ``d_from <= day < d_to`` counted ``d_sign`` times (1 or -1)
    and the month rows from ``m_from``. Of ``day``'s month the shorter part is read by
    day: the days from ``day`` to its end, or the month's row less the days before
    ``day`` (at most 15 days' rows)."""
    month = day.replace(day=1)
    end = _next_month(month)
    if (end - day) <= (day - month):
        return {"d_sign": 1, "d_from": day, "d_to": end, "m_from": end}
    return {"d_sign": -1, "d_from": month, "d_to": day, "m_from": month}


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

_SPAN = Question.first_decision_at - Question.created_at


@cache
def _middle_statement(ascending: tuple[bool, ...]):
    """PostgreSQL: the statement of :func:`_middle` for one hour (or two), each read from
    its lower end (``ascending``) or its upper end; parameters ``since`` and, for the
    ``n``-th hour, ``lo_n``, ``hi_n`` (its bounds, timedelta), ``skip_n``, ``take_n``."""
    reads = [
        select(_SPAN.label("span"))
        .where(
            VIEWER,
            Question.created_at >= bindparam("since"),
            DECIDED,
            _SPAN >= bindparam(f"lo_{n}"),
            _SPAN < bindparam(f"hi_{n}"),
        )
        .order_by(_SPAN if up else _SPAN.desc())
        .offset(bindparam(f"skip_{n}", type_=Integer))
        .limit(bindparam(f"take_{n}", type_=Integer))
        .subquery()
        for n, up in enumerate(ascending)
    ]
    if len(reads) == 1:
        return select(reads[0].c.span)
    return union_all(*(select(r.c.span) for r in reads))


#: SQLite (a small deployment's database) has no exact time span: the middle hours'
#: questions with a margin for its float hours (parameters ``since``, ``lo``, ``hi``: hours),
#: cut exactly in Python.
_SQLITE_MIDDLE = select(Question.created_at, Question.first_decision_at).where(
    VIEWER,
    Question.created_at >= bindparam("since"),
    DECIDED,
    _hours(Question.first_decision_at, Question.created_at) >= bindparam("lo"),
    _hours(Question.first_decision_at, Question.created_at) < bindparam("hi"),
)


def _middle(since: datetime, parts: list[Part]) -> list[int]:
    """The exact times (microseconds) of the middle ranks ``parts`` (one hour, or the last
    of one hour and the first of the next) among the decided viewer questions received since
    ``since``, in one statement: only those hours' questions are read (PostgreSQL: from the
    nearer end of each hour's range of ``ix_question_viewer_decision_time``)."""
    if db.session.get_bind().dialect.name == "postgresql":
        ascending: list[bool] = []
        values: dict = {"since": since}
        for n, (hour, rank, count, take) in enumerate(parts):
            up = rank + take / 2 <= count / 2
            ascending.append(up)
            values |= {
                f"lo_{n}": timedelta(hours=hour),
                f"hi_{n}": timedelta(hours=hour + 1),
                f"skip_{n}": rank if up else count - rank - take,
                f"take_{n}": take,
            }
        spans = db.session.scalars(_middle_statement(tuple(ascending)), values).all()
        return sorted(micros(s) for s in spans)
    by_hour: dict[int, list[int]] = {hour: [] for hour, *_ in parts}
    values = {"since": since, "lo": min(by_hour) - 0.01, "hi": max(by_hour) + 1.01}
    for created, at in db.session.execute(_SQLITE_MIDDLE, values):
        us = micros(cast(datetime, at) - created)
        if us // HOUR_US in by_hour:
            by_hour[us // HOUR_US].append(us)
    out: list[int] = []
    for hour, rank, _count, take in parts:
        out += sorted(by_hour[hour])[rank : rank + take]
    return out


def _sign(name: str):
    return bindparam(name, type_=Integer)


#: The hours to decision of the whole days and months (:func:`days_from`'s parameters):
#: ``(hour, count, micros)`` per hour, the day rows counted with their sign.
_TABLE_BINS = union_all(
    select(
        ViewerDecisionDay.hour,
        func.sum(ViewerDecisionDay.count) * _sign("d_sign"),
        func.sum(ViewerDecisionDay.micros) * _sign("d_sign"),
    )
    .where(ViewerDecisionDay.day >= bindparam("d_from"), ViewerDecisionDay.day < bindparam("d_to"))
    .group_by(ViewerDecisionDay.hour),
    select(
        ViewerDecisionMonth.hour,
        func.sum(ViewerDecisionMonth.count),
        func.sum(ViewerDecisionMonth.micros),
    )
    .where(ViewerDecisionMonth.month >= bindparam("m_from"))
    .group_by(ViewerDecisionMonth.hour),
)

_QUESTIONS_PART = (
    VIEWER,
    Question.created_at >= bindparam("q_from"),
    Question.created_at < bindparam("q_to"),
    DECIDED,
)

#: SQLite: the partial day's decided questions one by one (parameters ``q_from``,
#: ``q_to``), binned in Python (the exact span is Python's: SQLite's hours are floats).
_SQLITE_QUESTIONS = select(Question.created_at, Question.first_decision_at).where(*_QUESTIONS_PART)


def _pg_bins():
    """PostgreSQL: every bin of the window in one statement, ``(hour, count, micros)`` per
    hour: the partial day's decided questions (``q_from`` … ``q_to``, counted ``q_sign``
    times) binned in SQL by their exact microseconds (``extract(epoch …)`` is numeric),
    with :data:`_TABLE_BINS`."""
    us = cast_(extract("epoch", _SPAN) * 1_000_000, BigInteger)
    spans = select(us.label("us")).where(*_QUESTIONS_PART).subquery()
    hour = cast_(func.floor(cast_(spans.c.us, Numeric) / HOUR_US), Integer)
    rows = union_all(
        select(
            hour.label("hour"),
            func.count() * _sign("q_sign"),
            func.sum(spans.c.us) * _sign("q_sign"),
        ).group_by(hour),
        *_TABLE_BINS.selects,
    ).subquery()
    columns = list(rows.c)
    return select(columns[0], func.sum(columns[1]), func.sum(columns[2])).group_by(columns[0])


_PG_BINS = _pg_bins()


def _decisions(since: datetime, zone: ZoneInfo) -> dict:
    """``{"count", "median", "mean"}`` of the hours from receipt to the first decision
    (approved or rejected) of the viewer questions received since ``since``.

    The bins of hours to decision, one statement: the local day of ``since`` question by
    question, the part of it inside the window or, when shorter, the part outside taken
    off; the later days as :func:`days_from` reads them, from
    :class:`ViewerDecisionDay` and :class:`ViewerDecisionMonth`. The median: the hour
    holding the middle rank(s) found in these bins, then the exact one or two middle times
    among that hour's questions of the window alone."""
    first = since.astimezone(zone).date()
    midnight = _local_midnight(first, zone)
    cut = _local_midnight(first + timedelta(days=1), zone)
    if cut - since <= since - midnight:
        sign, values = 1, {"q_from": since, "q_to": cut, **days_from(first + timedelta(days=1))}
    else:
        sign, values = -1, {"q_from": midnight, "q_to": since, **days_from(first)}
    bins = _Bins()
    if db.session.get_bind().dialect.name == "postgresql":
        for hour, count, us in db.session.execute(_PG_BINS, {"q_sign": sign, **values}):
            bins.add(hour, int(count), int(us))
    else:
        for hour, count, us in db.session.execute(_TABLE_BINS, values):
            bins.add(hour, int(count), int(us))
        for created, at in db.session.execute(_SQLITE_QUESTIONS, values):
            span = micros(cast(datetime, at) - created)
            bins.add(span // HOUR_US, sign, sign * span)
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


_FIRST_CITY = (
    select(QuestionAuthor.city)
    .where(QuestionAuthor.question_id == Question.id, FIRST_AUTHOR)
    .order_by(QuestionAuthor.id.desc())
    .limit(1)
    .scalar_subquery()
    .label("city")
)

#: The window's first, partial local day question by question (parameters ``since``,
#: ``cut``): ``(channel, status, first author's city, count)``.
_FIRST_DAY = (
    select(Question.channel, Question.status, _FIRST_CITY, func.count())
    .where(
        VIEWER, Question.created_at >= bindparam("since"), Question.created_at < bindparam("cut")
    )
    .group_by(Question.channel, Question.status, _FIRST_CITY)
)


def _first_day(since: datetime, cut: datetime) -> tuple[dict, dict]:
    """The window's first, partial local day (``since`` … ``cut``, the next local
    midnight), question by question: ``({channel: count}, {(city or "", status): count})``
    (at most a day's questions, through the partial index of the viewer questions)."""
    intake: dict[str, int] = {}
    cities: dict[tuple[str, str], int] = {}
    for channel, status, city, count in db.session.execute(
        _FIRST_DAY, {"since": since, "cut": cut}
    ):
        intake[channel] = intake.get(channel, 0) + count
        key = (city or "", status)
        cities[key] = cities.get(key, 0) + count
    return intake, cities


_NONE = (null(), null())

#: One statement: the intake chart's days after ``first`` (a row per day and channel), the
#: statuses and cities of the later days as :func:`days_from` reads them, by day from
#: :class:`ViewerQuestionDay` and by month from :class:`ViewerQuestionMonth`.
_LATER_DAYS = union_all(
    select(
        ViewerIntakeDay.day,
        ViewerIntakeDay.channel,
        cast_(null(), String),
        cast_(null(), String),
        ViewerIntakeDay.count,
    ).where(ViewerIntakeDay.day > bindparam("first"), ViewerIntakeDay.count > 0),
    select(
        *_NONE,
        ViewerQuestionDay.city,
        ViewerQuestionDay.status,
        func.sum(ViewerQuestionDay.count) * _sign("d_sign"),
    )
    .where(ViewerQuestionDay.day >= bindparam("d_from"), ViewerQuestionDay.day < bindparam("d_to"))
    .group_by(ViewerQuestionDay.city, ViewerQuestionDay.status),
    select(
        *_NONE,
        ViewerQuestionMonth.city,
        ViewerQuestionMonth.status,
        func.sum(ViewerQuestionMonth.count),
    )
    .where(ViewerQuestionMonth.month >= bindparam("m_from"))
    .group_by(ViewerQuestionMonth.city, ViewerQuestionMonth.status),
)


def intake_table(summary_: dict) -> list[dict]:
    """The intake of :func:`summary` as the page shows it, a row per day (a column per
    channel of ``summary_["channels"]``, in that order): ``[{"day": date, "counts": [int],
    "total": int}]``, oldest first; a day without questions has no row. As many rows as
    the window has days, whatever the number of questions (a row per day and channel
    would grow with the channels a busy day fills)."""
    column = {c: i for i, c in enumerate(summary_["channels"])}
    rows: dict = {}
    for entry in summary_["intake"]:
        counts = rows.setdefault(entry["day"], [0] * len(column))
        counts[column[entry["channel"]]] += entry["count"]
    return [{"day": d, "counts": n, "total": sum(n)} for d, n in sorted(rows.items())]


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
    later days as :func:`days_from` reads them, from the day counts
    (:class:`~webapp.submissions.models.ViewerQuestionDay`) and
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
    values = {"first": first, **days_from(first + timedelta(days=1))}
    for on, channel, city, status, count in db.session.execute(_LATER_DAYS, values):
        if on is not None:
            intake[(on, channel)] = count
        else:
            by_city[(city, status)] = by_city.get((city, status), 0) + int(count)
    cities: dict[str, list[int]] = {}
    accepted = rejected = 0
    for (city, status), count in by_city.items():
        if not count:
            continue  # the month's row less the days outside: nothing left in the window
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
