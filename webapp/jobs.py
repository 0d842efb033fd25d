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
from sqlalchemy import event, update
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

    A broker error leaves the row unsent for the sweeper (logged, never raised).
    The Celery task id is ``outbox-<id>`` so a resend is recognisable in logs.
    """
    celery = _celery()
    sent = 0
    for msg in messages:
        try:
            celery.send_task(msg.task, args=list(msg.args), task_id=f"outbox-{msg.id}-{msg.attempts}")
        except Exception:  # broker down: the sweeper retries
            log.warning("outbox %s (%s) not sent; the sweeper will retry", msg.id, msg.task,
                        exc_info=True)
            continue
        sent += 1
        db.session.execute(
            update(OutboxMessage).where(OutboxMessage.id == msg.id)
            .values(sent_at=utcnow(), attempts=OutboxMessage.attempts + 1)
        )
    return sent


def relay_ids(ids: list[int]) -> int:
    """Send the given outbox rows (if unsent) in a transaction of their own."""
    if not ids:
        return 0
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
