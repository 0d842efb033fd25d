"""Queue work by task *name* through the transactional outbox.

``enqueue("moderation.precheck", question.id)`` writes an :class:`OutboxMessage` in the
current transaction, so the task exists if and only if the transaction commits. After the
commit the relay sends the new messages to the broker (fast path); the beat task
``outbox.sweep`` resends whatever is still unsent (broker down, process killed). The web
process therefore never imports ``workers`` and never needs WeasyPrint.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from flask import current_app
from sqlalchemy import event, text, update
from sqlalchemy.orm import Session

from webapp.core.models import OutboxMessage, utcnow
from webapp.extensions import db

log = logging.getLogger("sova.jobs")
_PENDING_KEY = "sova_outbox_pending"


def enqueue(name: str, *ids: int) -> OutboxMessage:
    """Request task ``name`` with primary-key arguments ``ids`` (ints) after commit."""
    if not all(isinstance(i, int) for i in ids):
        raise TypeError("tasks take primary keys (int) only")
    msg = OutboxMessage(task=name, args=list(ids), created_at=utcnow())
    db.session.add(msg)
    db.session.flush()
    db.session.info.setdefault(_PENDING_KEY, []).append(msg.id)
    return msg


def _celery():
    return current_app.extensions.get("celery")


def send(messages: list[OutboxMessage]) -> int:
    """Send outbox rows to the broker and mark them sent; returns how many were sent.

    One pooled producer (one broker connection) serves the whole batch. A broker error
    leaves the rest unsent for the sweeper (logged, never raised). The Celery task id is
    ``outbox-<id>-<attempt>`` so a resend is recognisable in logs.
    """
    celery = _celery()
    sent_ids: list[int] = []
    try:
        with celery.producer_pool.acquire(block=True, timeout=5) as producer:
            for msg in messages:
                celery.send_task(msg.task, args=list(msg.args), producer=producer,
                                 task_id=f"outbox-{msg.id}-{msg.attempts}")
                sent_ids.append(msg.id)
    except Exception:  # broker down: the sweeper retries
        log.warning("outbox: %d of %d messages not sent; the sweeper will retry",
                    len(messages) - len(sent_ids), len(messages), exc_info=True)
    if sent_ids:
        db.session.execute(
            update(OutboxMessage).where(OutboxMessage.id.in_(sent_ids))
            .values(sent_at=utcnow(), attempts=OutboxMessage.attempts + 1)
        )
    return len(sent_ids)


def relay_ids(ids: list[int]) -> int:
    """Send the given outbox rows (if unsent) in a transaction of their own."""
    if not ids:
        return 0
    if db.engine.dialect.name == "postgresql":
        # Only the "sent" marker is written here: losing it on a crash means one resend
        # by the sweeper (tasks are idempotent), so this commit need not wait for fsync.
        db.session.execute(text("SET LOCAL synchronous_commit = off"))
    rows = db.session.scalars(
        db.select(OutboxMessage).where(OutboxMessage.id.in_(ids), OutboxMessage.sent_at.is_(None))
    ).all()
    n = send(list(rows))
    db.session.commit()
    return n


def sweep(older_than: timedelta = timedelta(seconds=30), limit: int = 500) -> int:
    """Resend unsent rows older than ``older_than``; the beat runs it every 30 s."""
    cutoff = utcnow() - older_than
    rows = db.session.scalars(
        db.select(OutboxMessage)
        .where(OutboxMessage.sent_at.is_(None), OutboxMessage.created_at <= cutoff)
        .order_by(OutboxMessage.id).limit(limit)
    ).all()
    n = send(list(rows))
    db.session.commit()
    return n


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING_KEY, None)


def commit() -> None:
    """Commit the current transaction, then send the tasks it queued (fast path).

    The single commit point of a request, a task or a CLI command. A broker error after
    the commit is logged; the rows stay for the sweeper, the data is already safe.
    """
    ids = db.session.info.pop(_PENDING_KEY, [])
    db.session.commit()
    if not ids or not current_app.config.get("SOVA_OUTBOX_AUTOSEND") or _celery() is None:
        return
    try:
        relay_ids(ids)
    except Exception:
        db.session.rollback()
        log.warning("outbox relay failed; the sweeper will retry", exc_info=True)
