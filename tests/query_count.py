"""Counting the SQL statements a piece of code sends: ``with statements(db.engine) as
sent: …`` then ``len(sent)`` (each statement's SQL text, in order). SQLAlchemy's
``before_cursor_execute`` event, so every statement counts once, ORM or Core, whatever
the dialect (a server-side cursor's further FETCHes are not statements of their own)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event


@contextmanager
def statements(engine) -> Iterator[list[str]]:
    sent: list[str] = []

    def record(_conn, _cursor, statement, _parameters, _context, _executemany):
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)
