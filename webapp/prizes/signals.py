"""What the author's status page shows of prizes (a back-edge to submissions through the
``public_events`` signal, DESIGN "Features depend one way"): ``prize_owed`` when a prize
for the question exists, ``paid`` when it was paid. The status page shows both only after
the game's air date."""

from __future__ import annotations

from webapp.extensions import db
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.submissions.models import Question
from webapp.submissions.queries import public_events


@public_events.connect
def prize_events(question: Question) -> list[dict]:
    """``[{"status": "prize_owed" | "paid", "at": datetime}]`` for ``question``'s prizes."""
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
