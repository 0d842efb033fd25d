"""Gift agreement rendering task."""

from celery import shared_task

from webapp.extensions import db
from webapp.jobs import commit
from webapp.prizes.models import Prize
from webapp.prizes.queries import agreement_context
from workers.rendering import render_document


@shared_task(name="prizes.issue_agreement", ignore_result=True, acks_late=True,
             soft_time_limit=120, time_limit=180)
def issue_agreement(prize_id: int) -> int | None:
    """Render the gift agreement of Prize ``prize_id`` (number fixed at close; idempotent).
    Marks the agreement and the prize ``agreement_issued``. Returns the document id."""
    prize = db.session.get(Prize, prize_id)
    if prize is None or prize.agreement is None:
        return None
    agreement = prize.agreement
    render_document(agreement.document_id, "gift_agreement.html",
                    lambda _doc: agreement_context(prize))
    agreement.status = "issued"
    if prize.status == "owed":
        prize.status = "agreement_issued"
    commit()
    return agreement.document_id
