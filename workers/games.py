"""Envelope and host-card rendering task."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from celery import shared_task
from flask import current_app

from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.queries import envelope_context, handout_files, printed_copies
from webapp.jobs import commit
from workers.documents import render_pdf

TEMPLATES = {"envelopes": "envelope.html", "host_cards": "host_card.html"}


def game_documents(document: Document) -> tuple[str, dict, dict[str, Path]]:
    """``(template, context, allowed_files)`` of an envelopes / host-cards Document: every
    printed copy (its serial in the footer), handout images from the instance uploads."""
    game = db.session.get(Game, document.game_id)
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    images = handout_files(game, uploads)
    serials = [c.serial for c in printed_copies(document.id)]
    serial = serials[0] if serials else f"{game.id}-{document.kind}-{document.version}"
    context = envelope_context(game, with_answers=document.kind == "host_cards",
                               serial=serial, copies=serials or None, images=images)
    return TEMPLATES[document.kind], context, images


@shared_task(name="games.render_envelopes", ignore_result=True, acks_late=True,
             soft_time_limit=120, time_limit=180)
def render_envelopes(document_id: int) -> int | None:
    """Render the envelopes or host cards Document ``document_id`` (idempotent: a ready
    document whose file still has its SHA-256 is left alone; the file is written to a
    temporary name and renamed). Like ``workers.rendering.render_document``, plus the
    handout images as ``allowed_files``."""
    doc = db.session.get(Document, document_id)
    if doc is None:
        return None
    root = Path(current_app.config["SOVA_DOCUMENTS_PATH"])
    if doc.status == "ready" and doc.path and (root / doc.path).is_file():
        if hashlib.sha256((root / doc.path).read_bytes()).hexdigest() == doc.sha256:
            return document_id
    try:
        template, context, images = game_documents(doc)
        pdf = render_pdf(template, context, allowed_files=images)
    except Exception as exc:
        db.session.rollback()
        doc = db.session.get(Document, document_id)
        doc.status, doc.error = "failed", f"{type(exc).__name__}: {exc}"[:500]
        db.session.commit()
        raise
    rel = f"{doc.kind}/{doc.key.replace(':', '_')}.pdf"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(pdf)
    os.replace(tmp, path)
    doc.path, doc.sha256 = rel, hashlib.sha256(pdf).hexdigest()
    doc.status, doc.rendered_at, doc.error = "ready", utcnow(), None
    commit()
    return document_id
