"""The statistics' count tables as stored and as a recount from scratch makes them (the
tests of the statistics compare the two after every kind of write)."""

from __future__ import annotations

from sqlalchemy import select

from webapp.extensions import db
from webapp.submissions.day_counts import Deltas, day_keys
from webapp.submissions.models import (
    Question,
    ViewerDecisionMonth,
    ViewerIntakeDay,
    ViewerQuestionDay,
    ViewerQuestionMonth,
)


def recount() -> dict:
    """Every count table from scratch: every viewer question's key (non-zero rows only)."""
    ids = db.session.scalars(select(Question.id)).all()
    deltas = Deltas()
    for key in day_keys(db.session.connection(), ids).values():
        deltas.add(key, 1)
    return {
        "day": {k: n for k, n in deltas.days.items() if n},
        "intake": {k: n for k, n in deltas.intake.items() if n},
        "month": {k: n for k, n in deltas.months.items() if n},
        "decision": {k: tuple(v) for k, v in deltas.decisions.items() if v != [0, 0]},
    }


def stored() -> dict:
    def rows(model, *key):
        return {
            tuple(getattr(r, k) for k in key): r.count
            for r in db.session.scalars(select(model).where(model.count != 0))
        }

    return {
        "day": rows(ViewerQuestionDay, "day", "channel", "status", "city"),
        "intake": rows(ViewerIntakeDay, "day", "channel"),
        "month": rows(ViewerQuestionMonth, "month", "status", "city"),
        "decision": {
            (r.month, r.hour): (r.count, r.micros)
            for r in db.session.scalars(
                select(ViewerDecisionMonth).where(
                    (ViewerDecisionMonth.count != 0) | (ViewerDecisionMonth.micros != 0)
                )
            )
        },
    }
