"""Reads for intake: stored texts, the author's language, the question behind a status link."""

from __future__ import annotations

import re

from sqlalchemy import Text, any_, bindparam, select
from sqlalchemy.dialects.postgresql import ARRAY

from webapp.extensions import db
from webapp.submissions.models import Question, QuestionAuthor

_TOKEN = re.compile(r"[A-Za-z0-9_-]+")

#: Texts per ``IN (…)`` of :func:`texts_present` on SQLite (far below its parameter limit).
TEXTS_PER_QUERY = 500


def texts_present(texts: list[str]) -> int:
    """How many of the distinct question ``texts`` some stored question (any status, the
    archive too) has word for word: a packet imported again is found by its texts, whatever
    its file is called. PostgreSQL: one statement, ``text = ANY(:texts)`` with the texts
    as one array parameter (the hash index of ``question.text`` answers it; hundreds of
    ``IN (…)`` parameters made a statement psycopg parsed anew each time). SQLite: one
    statement per :data:`TEXTS_PER_QUERY` texts."""
    wanted = sorted(set(texts))
    if not wanted:
        return 0
    if db.session.get_bind().dialect.name == "postgresql":
        among = Question.text == any_(bindparam("texts", wanted, type_=ARRAY(Text)))
        return len(db.session.scalars(select(Question.text).where(among).distinct()).all())
    found = 0
    for i in range(0, len(wanted), TEXTS_PER_QUERY):
        chunk = wanted[i : i + TEXTS_PER_QUERY]
        found += len(
            db.session.scalars(
                select(Question.text).where(Question.text.in_(chunk)).distinct()
            ).all()
        )
    return found


def latest_language(author_id: int) -> str | None:
    """The stored language code (``ru``/``be``/``en``, as the page it was sent from) of the
    author's latest question that has one, or None: what Sova writes to the author in when
    nothing else says (the "my questions" link, the payee's e-mails)."""
    return db.session.scalar(
        db.select(Question.language)
        .join(Question.authors)
        .where(QuestionAuthor.author_id == author_id, Question.language.is_not(None))
        .order_by(Question.id.desc())
        .limit(1)
    )


def by_token(token: str) -> Question | None:
    """The question behind a status link, or None (also for anything that is not a
    ``secrets.token_urlsafe`` string: a NUL, say, which PostgreSQL refuses in a query)."""
    if not token or len(token) > 64 or not _TOKEN.fullmatch(token):
        return None
    return db.session.scalar(db.select(Question).filter_by(public_token=token))
