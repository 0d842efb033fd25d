"""Envelope and host-card rendering task."""

from celery import shared_task

from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.queries import envelope_context
from webapp.jobs import commit
from workers.rendering import render_document

TEMPLATES = {"envelopes": "envelope.html", "host_cards": "host_card.html"}


@shared_task(name="games.render_envelopes", ignore_result=True, acks_late=True,
             soft_time_limit=120, time_limit=180)
def render_envelopes(document_id: int) -> int | None:
    """Render the envelopes or host cards Document ``document_id`` (idempotent)."""

    def context(doc):
        game = db.session.get(Game, doc.game_id)
        return envelope_context(game, with_answers=doc.kind == "host_cards",
                                serial=f"{game.id}-{doc.kind}-{doc.version}")

    from webapp.core.models import Document

    doc = db.session.get(Document, document_id)
    if doc is None:
        return None
    render_document(document_id, TEMPLATES[doc.kind], context)
    commit()
    return document_id
