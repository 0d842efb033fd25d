"""The editing tests' question: made through the intake and pre-checked."""

from __future__ import annotations

from webapp.moderation.operations import (
    precheck,
)
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit


def make(n: int = 1, language: str | None = None, city: str = "Гродно") -> Question:
    q = create_question(
        {
            "question": f"Назовите столицу государства номер {n}, где правил король Миндовг.",
            "answer": "Новогрудок",
            "sources": ["https://example.org/m"],
            "authors": [(f"Автор {n}", city, f"a{n}@example.com")],
        },
        "web",
        language=language,
    )
    commit()
    precheck(q.id)
    commit()
    return q
