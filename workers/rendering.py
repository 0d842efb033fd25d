"""Render a Document row to a PDF file, once (shared by the games and prizes tasks)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from flask import current_app

from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.observability import RENDER_SECONDS
from workers.documents import render_pdf


def render_document(document_id: int | None, build) -> Document | None:
    """Render Document ``document_id`` into its file. ``build(doc)`` returns
    ``(template, context, allowed_files or None)`` for :func:`workers.documents.render_pdf`.

    Idempotent: a ready document whose file still has its SHA-256 is left alone, and a
    superseded one is never rendered. The file
    is written to a temporary name and renamed, so a killed worker leaves no half PDF.
    """
    doc = db.session.get(Document, document_id)
    if doc is None or doc.status == "superseded":  # a newer version is the one rendered
        return doc
    root = Path(current_app.config["SOVA_DOCUMENTS_PATH"])
    if doc.status == "ready" and doc.path and (root / doc.path).is_file():
        if hashlib.sha256((root / doc.path).read_bytes()).hexdigest() == doc.sha256:
            return doc
    try:
        template, context, allowed_files = build(doc)
        started = time.perf_counter()
        pdf = render_pdf(template, context, allowed_files=allowed_files)
        RENDER_SECONDS.labels(doc.kind).observe(time.perf_counter() - started)
    except Exception as exc:
        # Recorded for the producer's page; the task fails loudly in the worker log.
        db.session.rollback()
        doc = db.session.get_one(Document, document_id)
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
    db.session.flush()
    return doc
