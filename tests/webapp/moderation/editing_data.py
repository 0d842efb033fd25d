"""The editing tests' question: made through the intake and pre-checked."""

from __future__ import annotations

from webapp.moderation.operations import (
    precheck,
)
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit


def prechecked(fields: dict, language: str | None = None) -> Question:
    """A site question of ``fields`` (``create_question``'s), committed, then pre-checked."""
    q = create_question(fields, "web", language=language)
    commit()
    precheck(q.id)
    commit()
    return q


def make(n: int = 1, language: str | None = None, city: str = "Гродно") -> Question:
    return prechecked(
        {
            "question": f"Назовите столицу государства номер {n}, где правил король Миндовг.",
            "answer": "Новогрудок",
            "sources": ["https://example.org/m"],
            "authors": [(f"Автор {n}", city, f"a{n}@example.com")],
        },
        language,
    )
