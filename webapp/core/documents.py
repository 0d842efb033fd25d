"""Requesting a rendered document: the one way a feature asks for a PDF.

A :class:`~webapp.core.models.Document` row is the database's record that a document is
owed (``pending``) until its task renders it (``ready`` or ``failed``); the task is the one
its kind's declaration names (``renders`` in ``webapp/<feature>/tasks.py``,
``webapp.tasks.registry``) and is queued through the outbox in the caller's transaction,
so the row and its request exist together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.tasks.outbox import enqueue, request_again
from webapp.tasks.registry import renderer


@dataclass(frozen=True)
class Owner:
    """What a document belongs to: its game (the game page lists the game's documents) and,
    for a prize's paperwork, its prize."""

    game_id: int | None = None
    prize_id: int | None = None


def request_document(
    kind: str, key: str, owner: Owner, *, version: int = 1, task_arg: int | None = None
) -> tuple[Document, bool]:
    """The Document ``key`` of ``kind`` and whether it was made now.

    A new key makes a ``pending`` row for ``owner`` (flushed: it has its id) and queues
    its kind's rendering task through the outbox, with the row's attribute the task takes
    (its id, or its prize's id), or ``task_arg`` for a task that takes another row's id
    (the vote's result). A key already known is that row: still pending, its rendering is
    queued again only when the earlier request is overdue
    (:func:`webapp.tasks.outbox.request_again`); rendered, failed or superseded, nothing
    is queued. So asking twice is harmless. The caller commits. LookupError for a kind no
    task renders; ValueError when the task's argument is missing."""
    render = renderer(kind)
    doc = db.session.scalar(db.select(Document).filter_by(key=key))
    if doc is not None:
        if doc.status == "pending":
            request_again(render.name, _argument(render.takes, doc, task_arg), since=doc.created_at)
        return doc, False
    doc = Document(
        key=key,
        kind=kind,
        game_id=owner.game_id,
        prize_id=owner.prize_id,
        version=version,
        status="pending",
        created_at=utcnow(),
    )
    db.session.add(doc)
    db.session.flush()
    enqueue(render.name, _argument(render.takes, doc, task_arg))
    return doc, True


def _argument(takes: str | None, doc: Document, task_arg: int | None) -> int:
    """The rendering task's one argument: the Document attribute ``takes``, or ``task_arg``
    when the task takes another row's id (``takes`` None)."""
    arg = task_arg if takes is None else getattr(doc, takes)
    if not isinstance(arg, int):
        raise ValueError(f"document {doc.key!r}: its rendering task needs {takes or 'task_arg'}")
    return arg
