"""The editors' statistics page: intake per day and channel, acceptance rate, by city,
time to decision. Viewer questions only (the imported archive is left out)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import timedelta
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import select

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.submissions.models import Question, QuestionAuthor, QuestionStatusChange

ACCEPTED = ("approved", "assigned", "played", "answered", "unanswered")
DECIDED = ("approved", "rejected")


def summary(days: int = 30) -> dict:
    """``{"intake": [{"day": date, "channel": str, "count": int}] (last ``days`` days, days
    in ``SOVA_TIMEZONE``, sorted), "channels": [str], "accepted": int, "rejected": int,
    "acceptance_rate": float 0..1 | None, "cities": [{"city", "received", "accepted"}]
    (first author's city, most questions first), "decision_hours": {"count", "median",
    "mean"} (hours from receipt to the first decision, 1 place; None without decisions)}``.
    """
    since = utcnow() - timedelta(days=days)
    rows = db.session.execute(
        select(Question.id, Question.created_at, Question.channel, Question.status).where(
            Question.channel != "archive"
        )
    ).all()
    intake: Counter = Counter()
    zone = ZoneInfo(current_app.config["SOVA_TIMEZONE"])
    for r in rows:
        if r.created_at >= since:
            intake[(r.created_at.astimezone(zone).date(), r.channel)] += 1
    accepted = sum(1 for r in rows if r.status in ACCEPTED)
    rejected = sum(1 for r in rows if r.status == "rejected")
    first_city = dict(
        db.session.execute(
            select(QuestionAuthor.question_id, QuestionAuthor.city).where(
                QuestionAuthor.position == 0
            )
        ).all()
    )
    cities: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        city = first_city.get(r.id) or "—"
        cities[city][0] += 1
        cities[city][1] += r.status in ACCEPTED
    created = {r.id: r.created_at for r in rows}
    first_decision: dict[int, object] = {}
    for qid, at in db.session.execute(
        select(QuestionStatusChange.question_id, QuestionStatusChange.at)
        .where(QuestionStatusChange.to_status.in_(DECIDED))
        .order_by(QuestionStatusChange.at)
    ):
        if qid in created and qid not in first_decision:
            first_decision[qid] = at
    hours = [(at - created[qid]).total_seconds() / 3600 for qid, at in first_decision.items()]
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
            "median": round(statistics.median(hours), 1) if hours else None,
            "mean": round(statistics.mean(hours), 1) if hours else None,
        },
    }
