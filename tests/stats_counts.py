"""The statistics' count tables as stored and as a recount from scratch makes them (the
tests of the statistics compare the two after every kind of write), and the page's figures
computed question by question (:func:`oracle`, what every statistics test compares
``stats.summary`` with)."""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import timedelta
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import select

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import stats
from webapp.submissions.day_counts import Deltas, day_keys
from webapp.submissions.models import (
    Question,
    QuestionAuthor,
    QuestionCityCount,
    ViewerDecisionDay,
    ViewerDecisionMonth,
    ViewerIntakeDay,
    ViewerQuestionDay,
    ViewerQuestionMonth,
)


def recount() -> dict:
    """Every count table from scratch: every question's key (non-zero rows only)."""
    ids = db.session.scalars(select(Question.id)).all()
    deltas = Deltas()
    for key in day_keys(db.session.connection(), ids).values():
        deltas.add(key, 1)
    return {
        "day": {k: n for k, n in deltas.days.items() if n},
        "intake": {k: n for k, n in deltas.intake.items() if n},
        "month": {k: n for k, n in deltas.months.items() if n},
        "decision": {k: tuple(v) for k, v in deltas.decisions.items() if v != [0, 0]},
        "city": {k: n for k, n in deltas.cities.items() if n},
        "decision_day": {k: tuple(v) for k, v in deltas.decision_days.items() if v != [0, 0]},
    }


def city_counts() -> dict[tuple[str, str], int]:
    """``{(status, city): questions}`` question by question (the oracle of
    :class:`QuestionCityCount`): every question not archived, once per city its authors
    gave as written."""
    status = dict(db.session.execute(select(Question.id, Question.status)).all())
    cities: dict[int, set[str]] = {}
    for qid, city in db.session.execute(select(QuestionAuthor.question_id, QuestionAuthor.city)):
        if city is not None:
            cities.setdefault(qid, set()).add(city)
    out: Counter = Counter()
    for qid, found in cities.items():
        if status[qid] != "archived":
            for city in found:
                out[(status[qid], city)] += 1
    return dict(out)


def stored() -> dict:
    def rows(model, *key):
        return {
            tuple(getattr(r, k) for k in key): r.count
            for r in db.session.scalars(select(model).where(model.count != 0))
        }

    def decisions(model, key):
        return {
            (getattr(r, key), r.hour): (r.count, r.micros)
            for r in db.session.scalars(
                select(model).where((model.count != 0) | (model.micros != 0))
            )
        }

    return {
        "day": rows(ViewerQuestionDay, "day", "channel", "status", "city"),
        "intake": rows(ViewerIntakeDay, "day", "channel"),
        "month": rows(ViewerQuestionMonth, "month", "status", "city"),
        "city": rows(QuestionCityCount, "status", "city"),
        "decision": decisions(ViewerDecisionMonth, "month"),
        "decision_day": decisions(ViewerDecisionDay, "day"),
    }


def oracle(days: int) -> dict:
    """:func:`stats.summary` computed question by question in Python."""
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    since = utcnow() - timedelta(days=days)
    first_city = (
        select(QuestionAuthor.city)
        .where(QuestionAuthor.question_id == Question.id, QuestionAuthor.position == 0)
        .order_by(QuestionAuthor.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    intake: Counter = Counter()
    cities: dict[str, list[int]] = {}
    accepted = rejected = 0
    hours = []
    for created, channel, status, city, decided in db.session.execute(
        select(
            Question.created_at,
            Question.channel,
            Question.status,
            first_city,
            Question.first_decision_at,
        ).where(Question.channel != "archive", Question.created_at >= since)
    ):
        intake[(created.astimezone(zone).date(), channel)] += 1
        row = cities.setdefault(city or stats.NO_CITY, [0, 0])
        row[0] += 1
        if status in stats.ACCEPTED:
            row[1] += 1
            accepted += 1
        rejected += status == "rejected"
        if decided is not None:
            hours.append((decided - created).total_seconds() / 3600)
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
        "decision_hours": {
            "count": len(hours),
            "median": round(statistics.median(hours), 1),
            "mean": round(statistics.fmean(hours), 1),
        }
        if hours
        else {"count": 0, "median": None, "mean": None},
    }
