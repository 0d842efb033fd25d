"""Envelope and host-card rendering task."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from flask import current_app

from webapp.core.models import Document
from webapp.extensions import db
from webapp.games import tasks
from webapp.games.models import Game
from webapp.games.operations import rules_note
from webapp.games.operations.pace import game_rate
from webapp.games.queries import envelope_context, handout_files, printed_copies
from webapp.tasks.registry import task
from workers.rendering import render_document

TEMPLATES = {
    "envelopes": "envelope.html",
    "host_cards": "host_card.html",
    "sector13_card": "host_card.html",
}


def game_documents(document: Document) -> tuple[str, dict, dict[str, Path]]:
    """``(template, context, allowed_files)`` of an envelopes / host-cards Document: every
    printed copy (its serial in the footer), handout images from the instance uploads. A
    ``sector13_card`` (the 2009 draw, ``webapp.games.operations.draw_sector13``) is the host
    card of the sector-13 envelope alone."""
    game = db.session.get_one(Game, document.game_id)
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    images = handout_files(game, uploads)
    serials = [c.serial for c in printed_copies(document.id)]
    serial = serials[0] if serials else f"{game.id}-{document.kind}-{document.version}"
    only = {cast(int, game.table_sector13)} if document.kind == "sector13_card" else None
    context = envelope_context(
        game,
        with_answers=document.kind != "envelopes",
        serial=serial,
        copies=serials or None,
        images=images,
        only_sectors=only,
        reading_rate=game_rate(game),
    )
    if document.kind != "envelopes":  # the host reads the game's own rules (2023 §4.12.1)
        context["rules_note"] = rules_note(game)
    return TEMPLATES[document.kind], context, images


@task(
    tasks.RENDER_ENVELOPES,
    acks_late=True,
    soft_time_limit=120,
    time_limit=180,
)
def render_envelopes(document_id: int) -> int | None:
    """Render the envelopes or host cards Document ``document_id`` with the handout images
    as ``allowed_files`` (idempotent; see :func:`workers.rendering.render_document`)."""
    if render_document(document_id, game_documents) is None:
        return None
    return document_id
