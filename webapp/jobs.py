"""Queue work by task *name* through the transactional outbox.

``enqueue("moderation.precheck", question.id)`` writes an :class:`OutboxMessage` in the
current transaction, so the task exists if and only if the transaction commits. After the
commit the relay sends the new messages to the broker (fast path); the beat task
``outbox.sweep`` resends whatever is still unsent (broker down, process killed). The web
process therefore never imports ``workers`` and never needs WeasyPrint.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import datetime, timedelta
from functools import cache

from flask import current_app
from sqlalchemy import Integer, bindparam, event, text, update
from sqlalchemy.orm import Session

from webapp.core.models import OutboxMessage, utcnow
from webapp.core.request_id import current_request_id
from webapp.extensions import db

log = logging.getLogger("sova.jobs")
_PENDING_KEY = "sova_outbox_pending"

#: The outbox's own periodic tasks (``workers.outbox``): resend what the fast path did not
#: send, and what the broker lost (:func:`webapp.owed.reconcile`). The features declare
#: theirs in ``webapp/<feature>/tasks.py``; the beat's schedule is assembled from all of
#: them (``webapp.celery.beat_schedule``).
SWEEP = "outbox.sweep"
RECONCILE = "outbox.reconcile"
TASKS = (SWEEP, RECONCILE)


def beat(config) -> dict[str, dict]:
    """The outbox's beat entries: the sweep every 30 s, the reconciliation every
    ``SOVA_RECONCILE_SECONDS`` (60)."""
    return {
        "outbox-sweep": {"task": SWEEP, "schedule": timedelta(seconds=30)},
        "outbox-reconcile": {
            "task": RECONCILE,
            "schedule": timedelta(seconds=float(config.get("SOVA_RECONCILE_SECONDS", 60))),
        },
    }


def enqueue(name: str, *ids: int) -> OutboxMessage:
    """Request task ``name`` with primary-key arguments ``ids`` (ints) after commit.

    The row is added to the session (inserted at the next flush, not now: one flush per
    transaction is cheaper than one per message). Raises TypeError for non-int arguments.
    """
    if not all(isinstance(i, int) for i in ids):
        raise TypeError("tasks take primary keys (int) only")

    msg = OutboxMessage(
        task=name, args=list(ids), created_at=utcnow(), request_id=current_request_id()
    )
    db.session.add(msg)
    db.session.info.setdefault(_PENDING_KEY, []).append(msg)
    return msg


def track(ids: list[int] | tuple[int, ...]) -> None:
    """Register outbox rows that a Core statement inserted in the current transaction
    (``webapp.submissions.pg_intake``), so that :func:`commit` relays them like the rows
    of :func:`enqueue`. ``ids``: outbox_message primary keys."""
    db.session.info.setdefault(_PENDING_KEY, []).extend(ids)


def _celery():
    return current_app.extensions.get("celery")


def send(messages: list) -> int:
    """Send outbox rows to the broker and mark them sent; returns how many were sent.

    ``messages``: rows with ``id``, ``task``, ``args`` and ``attempts`` (OutboxMessage
    objects or plain rows of those columns).

    One pooled producer (one broker connection) serves the whole batch, and on Redis the
    messages go in one pipeline (kombu's ``Producer.batch``: one round trip instead of one
    per message and one Redis client object per message). The rows are marked sent only
    when the whole batch was delivered; a broker error leaves them all unsent for the
    sweeper (logged, never raised; a message that did arrive is then sent again, which
    the idempotent tasks absorb). The Celery task id is ``outbox-<id>-<attempt>`` so a
    resend is recognisable in logs.
    """
    if not messages:
        return 0
    celery = _celery()
    sent_ids: list[int] = []
    try:
        with celery.producer_pool.acquire(block=True, timeout=5) as producer:
            with producer.batch(max_size=len(messages)):
                for msg in messages:
                    rid = getattr(msg, "request_id", None)
                    celery.send_task(
                        msg.task,
                        args=list(msg.args),
                        producer=producer,
                        task_id=f"outbox-{msg.id}-{msg.attempts}",
                        headers={"sova_request_id": rid} if rid else None,
                        # the repr Celery would compute, without saferepr
                        argsrepr=repr(list(msg.args)),
                        kwargsrepr="{}",
                    )
        sent_ids = [msg.id for msg in messages]
    except Exception:  # broker down: the sweeper retries
        log.warning(
            "outbox: %d messages not sent; the sweeper will retry", len(messages), exc_info=True
        )
    if sent_ids:
        db.session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id.in_(sent_ids))
            .values(sent_at=utcnow(), attempts=OutboxMessage.attempts + 1),
            execution_options={"synchronize_session": False},
        )
    return len(sent_ids)


def _marker_commit_without_fsync() -> None:
    """PostgreSQL: this transaction writes only the "sent" markers; losing them on a crash
    means one resend by the sweeper (tasks are idempotent), so its commit need not wait
    for fsync."""
    if db.engine.dialect.name == "postgresql":
        db.session.execute(text("SET LOCAL synchronous_commit = off"))


SENT_COLUMNS = (
    OutboxMessage.id,
    OutboxMessage.task,
    OutboxMessage.args,
    OutboxMessage.attempts,
    OutboxMessage.request_id,
)


def relay_ids(ids: list[int]) -> int:
    """Send the given outbox rows (if unsent) in a transaction of their own."""
    if not ids:
        return 0
    _marker_commit_without_fsync()
    rows = db.session.execute(
        db.select(*SENT_COLUMNS).where(OutboxMessage.id.in_(ids), OutboxMessage.sent_at.is_(None))
    ).all()
    n = send(list(rows))
    db.session.commit()
    return n


@cache
def _unsent_statement(cutoff: bool, postgres: bool):
    """The ``SELECT`` of :func:`_unsent` (built once per process: the relay runs it 20
    times a second), with the parameters ``limit`` and, if ``cutoff``, ``cutoff``."""
    query = db.select(*SENT_COLUMNS).where(OutboxMessage.sent_at.is_(None))
    if cutoff:
        query = query.where(OutboxMessage.created_at <= bindparam("cutoff"))
    query = query.order_by(OutboxMessage.id).limit(bindparam("limit", type_=Integer))
    if postgres:
        query = query.with_for_update(skip_locked=True)
    return query


def _unsent(limit: int, cutoff=None) -> list:
    """Unsent rows (``id``, ``task``, ``args``, ``attempts``; plain rows, no ORM objects to
    build), oldest first; on PostgreSQL locked ``FOR UPDATE SKIP LOCKED`` so that a relay
    process and the sweeper never send the same row at the same moment. Run on the
    session's connection, in its transaction, as a Core statement (no ORM execution
    layer: these are plain rows)."""
    query = _unsent_statement(cutoff is not None, db.engine.dialect.name == "postgresql")
    params: dict = {"limit": limit} if cutoff is None else {"limit": limit, "cutoff": cutoff}
    return list(db.session.connection().execute(query, params).all())


def sweep(older_than: timedelta = timedelta(seconds=30), limit: int = 500) -> int:
    """Resend unsent rows older than ``older_than``; the beat runs it every 30 s."""
    n = send(_unsent(limit, utcnow() - older_than))
    db.session.commit()  # the broker has them: save the "sent" markers now
    return n


def relay_pending(limit: int = 500) -> int:
    """Send up to ``limit`` unsent rows of any age in one transaction; returns how many.

    The body of the relay process (:func:`relay_forever`); the marker commit does not
    wait for fsync on PostgreSQL (a lost marker means one harmless resend).
    """
    _marker_commit_without_fsync()
    n = send(_unsent(limit))
    db.session.commit()
    return n


def heartbeat_path(role: str):
    """``<instance>/<role>-<host name>.heartbeat``: a file the process touches while it
    works (``sova health relay`` on the same host reads its age; the host name keeps app
    hosts that share the instance folder apart)."""
    import socket
    from pathlib import Path

    return (
        Path(current_app.config["SOVA_INSTANCE_PATH"]) / f"{role}-{socket.gethostname()}.heartbeat"
    )


def relay_forever(interval: float = 0.05, limit: int = 500, rounds: int | None = None) -> int:
    """The outbox relay process (``sova outbox relay``): poll for unsent rows every
    ``interval`` seconds (at once again while a full batch was found) and send them.

    Used when ``SOVA_OUTBOX_AUTOSEND`` is off, so that the web request ends at its commit
    instead of also talking to the broker (docs/performance.md, «Viewer submissions»).
    ``rounds``: stop after that many polls (tests); None runs until killed. Returns the
    number of messages sent. Database or broker errors are logged and retried. Each
    successful poll touches the heartbeat file (:func:`heartbeat_path`, at most once a
    second): ``sova health relay`` fails when it is older than 30 s.
    """
    total, done = 0, 0
    beat = heartbeat_path("relay")
    last_beat = 0.0
    while rounds is None or done < rounds:
        done += 1
        try:
            n = relay_pending(limit)
            if time.monotonic() - last_beat >= 1.0:  # alive and the database answered
                beat.touch()
                last_beat = time.monotonic()
        except Exception:
            db.session.rollback()
            log.warning("outbox relay: poll failed; retrying", exc_info=True)
            n = 0
            time.sleep(1.0)
        total += n
        if n < limit:
            time.sleep(interval)
    return total


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING_KEY, None)


def commit() -> None:
    """Commit the current transaction, then send the tasks it queued (fast path).

    What the three edges call: a request's (``webapp.core.edge``), a task's
    (``webapp.celery.SovaTask``) and a CLI command's (``webapp.core.transaction``). A broker
    error after the commit is logged; the rows stay for the sweeper, the data is already
    safe.
    """
    pending = db.session.info.get(_PENDING_KEY)
    if pending:
        db.session.flush()
    ids = [m if isinstance(m, int) else m.id for m in db.session.info.pop(_PENDING_KEY, [])]
    ids = [i for i in ids if i is not None]
    db.session.commit()
    if not ids or not current_app.config.get("SOVA_OUTBOX_AUTOSEND") or _celery() is None:
        return
    try:
        relay_ids(ids)
    except Exception:
        db.session.rollback()
        log.warning("outbox relay failed; the sweeper will retry", exc_info=True)


# --- owed work: what the database knows is still to be done --------------------------------

_OUTBOX_TASK_ID = re.compile(r"^outbox-(\d+)-\d+$")


def owed_after() -> timedelta:
    """``SOVA_OWED_AFTER_SECONDS`` (default 600): how long a task handed to the broker may
    stay not done before it is taken as lost and sent again. Longer than the longest task
    time limit (``prizes.render_register``: 360 s), so a task still running is not resent
    just because it is slow."""
    return timedelta(seconds=float(current_app.config.get("SOVA_OWED_AFTER_SECONDS", 600)))


def max_attempts() -> int:
    return int(current_app.config.get("SOVA_OWED_MAX_ATTEMPTS", 10))


def mark_done(task_id: str | None) -> bool:
    """Record that the outbox task ``task_id`` (``outbox-<id>-<attempt>``) returned: its row
    gets ``done_at`` in a transaction of its own. Other ids (a task not sent by the relay)
    are ignored. A database error is logged, not raised: the row then stays owed and the
    idempotent task runs once more. Returns True when a row was marked now."""
    match = _OUTBOX_TASK_ID.match(task_id or "")
    if not match:
        return False
    try:
        n = db.session.execute(  # type: ignore[attr-defined]  # a CursorResult at run time
            update(OutboxMessage)
            .where(OutboxMessage.id == int(match.group(1)), OutboxMessage.done_at.is_(None))
            .values(done_at=utcnow())
            .execution_options(synchronize_session=False)
        ).rowcount
        _marker_commit_without_fsync()
        db.session.commit()
    except Exception:
        db.session.rollback()
        log.warning("outbox: could not mark %s done; it may run once more", task_id, exc_info=True)
        return False
    return n == 1


def open_requests(tasks: set[str], since) -> dict[tuple[str, tuple], tuple[str, datetime]]:
    """``{(task, args): ("open", last sent or made) | ("done", done at)}`` over the outbox
    rows for ``tasks`` made since ``since``; an open row wins over done ones, else the
    latest. Tells whether a question or document has a live request, or was handled after
    it was made."""
    rows = db.session.execute(
        db.select(
            OutboxMessage.task,
            OutboxMessage.args,
            OutboxMessage.created_at,
            OutboxMessage.sent_at,
            OutboxMessage.done_at,
        ).where(OutboxMessage.task.in_(tasks), OutboxMessage.created_at >= since)
    ).all()
    latest: dict[tuple[str, tuple], tuple[str, datetime]] = {}
    for task, args, created, sent, done in rows:
        key = (task, tuple(args or ()))
        mark = ("open", sent or created) if done is None else ("done", done)
        prev = latest.get(key)
        if (
            prev is None
            or (prev[0] == "done" and mark[0] == "open")
            or (prev[0] == mark[0] and mark[1] > prev[1])
        ):
            latest[key] = mark
    return latest


def request_again(task: str, *ids: int, since=None) -> bool:
    """Queue ``task(*ids)`` again when the earlier request is overdue: no row for it is
    open (not done) and younger than :func:`owed_after` (sent or made). ``since``: when the
    thing was first requested (bounds the look-up). Returns True when queued (the caller
    commits)."""
    now = utcnow()
    since = since or now - timedelta(days=2)
    rows = open_requests({task}, since - timedelta(minutes=1))
    mark = rows.get((task, tuple(ids)))
    if mark is not None and mark[0] == "open" and mark[1] > now - owed_after():
        return False
    enqueue(task, *ids)
    return True
