"""Prize tasks: gift agreements, prize commission minutes (rendered here, never in web)."""

from celery import shared_task

from webapp.extensions import db
from webapp.jobs import commit
from webapp.prizes.models import Prize
from webapp.prizes.operations import change_status
from webapp.prizes.queries import agreement_context, minutes_context
from workers.rendering import render_document


@shared_task(name="prizes.issue_agreement", ignore_result=True, acks_late=True,
             soft_time_limit=120, time_limit=180)
def issue_agreement(prize_id: int) -> int | None:
    """Render the current version of the gift agreement of Prize ``prize_id`` (number fixed
    at close; idempotent: a ready file is not rendered again). Marks the agreement
    ``issued`` and the prize ``agreement_issued`` (recorded, by the system) unless it is
    already further on. Returns the document id."""
    prize = db.session.get(Prize, prize_id)
    if prize is None or prize.agreement is None:
        return None
    agreement = prize.agreement
    render_document(agreement.document_id, "gift_agreement.html",
                    lambda _doc: agreement_context(prize, _payee_address(prize)))
    if agreement.status == "pending":
        agreement.status = "issued"
    if prize.status in ("owed", "details_requested", "details_received"):
        change_status(prize, "agreement_issued", None,
                      f"договор {agreement.number} выписан")
    commit()
    return agreement.document_id


def _payee_address(prize: Prize) -> str:
    return ""


@shared_task(name="prizes.render_minutes", ignore_result=True, acks_late=True,
             soft_time_limit=120, time_limit=180)
def render_minutes(prize_id: int) -> int | None:
    """Render the prize commission minutes of a Crystal Owl prize (2023 §4.11.2–§4.11.5;
    idempotent). Returns the document id, None if the prize has none."""
    from webapp.core.models import Document

    doc = db.session.scalar(db.select(Document).where(
        Document.prize_id == prize_id, Document.kind == "commission_minutes")
        .order_by(Document.version.desc()))
    prize = db.session.get(Prize, prize_id)
    if doc is None or prize is None:
        return None
    render_document(doc.id, "commission_minutes.html", lambda _doc: minutes_context(prize))
    commit()
    return doc.id
