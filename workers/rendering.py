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
    superseded one is never rendered. ``build`` only reads; the render itself runs outside
    a transaction (the session is committed before it), so it holds no database lock. The
    file is written to a temporary name and renamed, so a killed worker leaves no half PDF.
    Flushes the ready row; the caller's task edge commits it. A failed render is committed
    as ``failed`` before the exception goes on.
    """
    doc = db.session.get(Document, document_id)
    if doc is None or doc.status == "superseded":  # a newer version is the one rendered
        return doc
    root = Path(current_app.config["SOVA_DOCUMENTS_PATH"])
    if doc.status == "ready" and doc.path and (root / doc.path).is_file():
        if hashlib.sha256((root / doc.path).read_bytes()).hexdigest() == doc.sha256:
            return doc
    kind = doc.kind
    try:
        template, context, allowed_files = build(doc)
        # The render (tens of seconds for many copies) runs outside any transaction: on
        # SQLite every transaction holds the database's write lock from its start (BEGIN
        # IMMEDIATE), and a render inside one kept the web, the other tasks and the
        # processes' heartbeats waiting until they failed with «database is locked». Only
        # reads happened so far; this commit writes nothing of its own. Kept on purpose:
        # the one commit in the middle of a render task; the task edge
        # (webapp.tasks.celery.SovaTask) commits the file's row after the render.
        db.session.commit()
        started = time.perf_counter()
        pdf = render_pdf(template, context, allowed_files=allowed_files)
        RENDER_SECONDS.labels(kind).observe(time.perf_counter() - started)
    except Exception as exc:
        # Recorded for the producer's page; the task fails loudly in the worker log. Kept
        # on purpose: the task raises, and the task edge (webapp.tasks.celery.SovaTask) rolls
        # back what a raising task wrote, so the failure is committed here, on its own.
        db.session.rollback()
        doc = db.session.get_one(Document, document_id)
        doc.status, doc.error = "failed", f"{type(exc).__name__}: {exc}"[:500]
        db.session.commit()
        raise
    doc = db.session.get_one(Document, document_id)
    if doc.status == "superseded":  # a newer version was made while this one rendered
        return doc
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
