"""The queue tests' data: a question made through the intake, dated `days_old` days back,
pre-checked; and a generated queue of 1 500 questions on PostgreSQL with an editor's client."""

from __future__ import annotations

from datetime import timedelta

from tests.scale_data import add_questions
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation.operations import precheck
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit


def make(text, answer, city, channel, days_old=0, sources=("https://example.org/s",)):
    q = create_question(
        {
            "question": text,
            "answer": answer,
            "sources": list(sources),
            "authors": [("Мария Лис", city, f"{city}@example.com")],
        },
        channel,
    )
    q.created_at = utcnow() - timedelta(days=days_old)
    commit()
    precheck(q.id)
    commit()
    return q


def pg_editor_queue(pg_app):
    """1 500 generated questions on PostgreSQL, 1 313 of them not archived, and an editor's
    client: ``(client, the ids the queue lists by default, in its order)``."""
    from webapp.accounts.operations import create_user

    add_questions(1500, seed=5)
    create_user("pg-editor@test.local", "editor", password="pg-editor-pw")
    db.session.commit()
    client = pg_app.test_client()
    resp = client.post("/login", data={"email": "pg-editor@test.local", "password": "pg-editor-pw"})
    assert resp.status_code == 302
    expected = db.session.scalars(
        db.select(Question.id)
        .where(Question.status != "archived")
        .order_by(Question.created_at, Question.id)
    ).all()
    assert len(expected) == 1313
    return client, expected
