"""The queue tests' question: made through the intake, dated `days_old` days back, pre-checked."""

from __future__ import annotations

from datetime import timedelta

from webapp.core.models import utcnow
from webapp.moderation.operations import precheck
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
