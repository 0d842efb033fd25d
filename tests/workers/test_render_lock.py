"""A render holds no database lock: on SQLite every transaction takes the write lock at its
start (BEGIN IMMEDIATE), and a render of many copies inside one (48 s for 20 copies) made
the other tasks, the web and the processes' heartbeats fail with «database is locked»."""

from __future__ import annotations

import sqlite3

from sqlalchemy.engine import make_url

from tests.workers.agreement import agreement_context
from webapp.core.models import Document, utcnow
from webapp.extensions import db
from workers import rendering


def test_another_writer_gets_the_database_while_a_document_renders(app, monkeypatch):
    doc = Document(
        key="gift_agreement:lock-test:v1",
        kind="gift_agreement",
        version=1,
        status="pending",
        created_at=utcnow(),
    )
    db.session.add(doc)
    db.session.commit()
    path = make_url(app.config["SQLALCHEMY_DATABASE_URI"]).database
    seen: list[str] = []
    real_render = rendering.render_pdf

    def render_while_another_writes(template, context, **kwargs):
        # another process's writer, waiting not at all: it fails if the render holds the lock
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("UPDATE document SET error = 'touched' WHERE id = ?", (doc_id,))
            other.execute("COMMIT")
            seen.append("written")
        except sqlite3.OperationalError as exc:
            seen.append(str(exc))
        finally:
            other.close()
        return real_render(template, context, **kwargs)

    doc_id = doc.id
    monkeypatch.setattr(rendering, "render_pdf", render_while_another_writes)
    rendered = rendering.render_document(
        doc_id, lambda d: ("gift_agreement.html", agreement_context(), None)
    )
    db.session.commit()
    assert seen == ["written"]
    assert rendered.status == "ready" and rendered.sha256 and rendered.error is None
