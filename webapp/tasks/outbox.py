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
import secrets
import time
from datetime import datetime, timedelta
from functools import cache

from flask import current_app
from sqlalchemy import Integer, bindparam, event, insert, text, update
from sqlalchemy.orm import Session

from webapp.core.models import OutboxMessage, utcnow
from webapp.core.request_id import current_request_id
from webapp.extensions import db
from webapp.tasks.registry import declare

log = logging.getLogger("sova.outbox")
_PENDING_KEY = "sova_outbox_pending"


def reconcile_every(config) -> timedelta:
    """``SOVA_RECONCILE_SECONDS`` (60): how often the beat runs ``outbox.reconcile``."""
    return timedelta(seconds=float(config.get("SOVA_RECONCILE_SECONDS", 60)))


#: The outbox's own periodic tasks (their bodies: ``webapp.tasks.sweeps``): resend what the
#: fast path did not send, every 30 s, and what the broker lost
#: (:func:`webapp.tasks.owed.reconcile`). The features declare theirs in
#: ``webapp/<feature>/tasks.py`` (``webapp.tasks.registry``).
SWEEP = declare("outbox.sweep", body="webapp.tasks.sweeps", schedule=timedelta(seconds=30))
RECONCILE = declare("outbox.reconcile", body="webapp.tasks.sweeps", schedule=reconcile_every)


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


def hand_over(connection, name: str, *ids: int) -> int:
    """Request task ``name`` (primary-key arguments ``ids``) in the transaction of
    ``connection`` as *handed over already*: to the requesting process itself, which does
    the work after the commit on a connection of its own and marks the row done in that
    work's transaction (:func:`done_on`). The row is written sent (``sent_at`` now, one
    attempt, no broker epoch), so no relay sends it while the process works; if the
    process never marks it (killed, its connection lost), the reconciliation sends it to a
    worker once it is :func:`owed_after` old (:func:`webapp.tasks.owed.reconcile`): the
    database, not the process, knows the work is owed. Returns the outbox row's id."""
    now = utcnow()
    return connection.execute(
        insert(OutboxMessage)
        .values(task=name, args=list(ids), created_at=now, sent_at=now, attempts=1)
        .returning(OutboxMessage.id)
    ).scalar_one()


def done_on(connection, outbox_id: int) -> bool:
    """Mark the outbox row ``outbox_id`` done in the transaction of ``connection`` (for
    :func:`hand_over`, the work's own, so the mark and the work commit together). Returns
    True when the row was marked now (False: gone, or done already)."""
    marked = connection.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == outbox_id, OutboxMessage.done_at.is_(None))
        .values(done_at=utcnow())
    )
    return marked.rowcount == 1


def track(ids: list[int] | tuple[int, ...]) -> None:
    """Register outbox rows that a Core statement inserted in the current transaction
    (``webapp.submissions.pg_intake``), so that :func:`commit` relays them like the rows
    of :func:`enqueue`. ``ids``: outbox_message primary keys."""
    db.session.info.setdefault(_PENDING_KEY, []).extend(ids)


def _celery():
    return current_app.extensions.get("celery")


#: The key Sova keeps in a Redis broker's database: the broker's *epoch*, a random token
#: made by the first process that finds the key missing (Redis restarted without
#: persistence, was flushed, or is new). Gone means the broker lost its data.
BROKER_EPOCH_KEY = "sova:broker-epoch"
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


@cache
def _redis(url: str):
    """One client (and connection pool) per broker URL and process; redis-py's pool makes
    new connections in a forked child, so a pool process never shares a socket."""
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def broker_epoch() -> str | None:
    """The current epoch of a Redis broker (32 hex digits): :data:`BROKER_EPOCH_KEY`, made
    now (``SET NX``, in the same ``MULTI`` as its ``GET``) when missing. None for brokers
    that keep their messages (the embedded SQLAlchemy one). Raises the client's error when
    Redis cannot be reached."""
    url = current_app.config["SOVA_BROKER_URL"]
    if not url.startswith(_REDIS_SCHEMES):
        return None
    with _redis(url).pipeline(transaction=True) as pipe:
        pipe.set(BROKER_EPOCH_KEY, secrets.token_hex(16), nx=True)
        pipe.get(BROKER_EPOCH_KEY)
        _, epoch = pipe.execute()
    return epoch.decode()


def send(messages: list) -> int:
    """Send outbox rows to the broker and mark them sent; returns how many were sent.

    ``messages``: rows with ``id``, ``task``, ``args`` and ``attempts`` (OutboxMessage
    objects or plain rows of those columns). Each row sent records the broker's epoch
    (:func:`broker_epoch`, read before the batch is handed over), so that a broker that
    loses its data is noticed by the rows it lost (:func:`after_broker_restart`).

    One pooled producer (one broker connection) serves the whole batch, and on Redis the
    messages go in one pipeline (kombu's ``Producer.batch``: one round trip instead of one
    per message and one Redis client object per message), the default queue declared once
    for the batch rather than once per message. The rows are marked sent only
    when the whole batch was delivered; a broker error leaves them all unsent for the
    sweeper (logged, never raised; a message that did arrive is then sent again, which
    the idempotent tasks absorb). The Celery task id is ``outbox-<id>-<attempt>`` so a
    resend is recognisable in logs.
    """
    if not messages:
        return 0
    celery = _celery()
    sent_ids: list[int] = []
    epoch = None
    try:
        epoch = broker_epoch()
        with celery.producer_pool.acquire(block=True, timeout=5) as producer:
            with producer.batch(max_size=len(messages)):
                # Every task goes to the default queue: declared once per connection
                # (kombu's cache), not bound and looked up again for each message.
                producer.maybe_declare(celery.amqp.default_queue)
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
                        declare=(),
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
            .values(sent_at=utcnow(), attempts=OutboxMessage.attempts + 1, broker_epoch=epoch),
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
    second): ``sova health relay`` fails when it is older than 30 s. Every
    ``SOVA_HEARTBEAT_SECONDS`` (10), as the workers and the beat do, it also sends again
    what a Redis broker lost by restarting empty (:func:`after_broker_restart`).
    """
    total, done = 0, 0
    beat = heartbeat_path("relay")
    last_beat = 0.0
    every = float(current_app.config.get("SOVA_HEARTBEAT_SECONDS", 10))
    last_epoch_check = -every
    while rounds is None or done < rounds:
        done += 1
        try:
            if time.monotonic() - last_epoch_check >= every:
                last_epoch_check = time.monotonic()
                total += after_broker_restart(limit)
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
    (``webapp.tasks.celery.SovaTask``) and a CLI command's (``webapp.core.transaction``). A broker
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


def after_broker_restart(limit: int = 500) -> int:
    """Send again at once, in batches of ``limit``, every outbox row handed to a Redis
    broker and not done whose recorded epoch (``outbox_message.broker_epoch``) is not the
    broker's current one (:func:`broker_epoch`): the broker lost its data since (restarted
    without persistence, flushed), and those tasks with it. Returns how many were sent.

    Any process may call it whenever it likes, whatever order the broker and the processes
    restarted in: the database, not the process, remembers which epoch each task went to.
    The workers and the beat call it at every heartbeat (``webapp.tasks.heartbeat``,
    ``SOVA_HEARTBEAT_SECONDS``) and the relay as often (:func:`relay_forever`). A resent row
    records the new epoch, so it is sent once however many processes notice together (on
    PostgreSQL the rows are locked ``FOR UPDATE SKIP LOCKED``). Rows that were handed to
    the new broker are never resent; rows without an epoch (another broker, or handed
    over before epochs were recorded) and rows without attempts left are left to
    :func:`webapp.tasks.owed.reconcile`. A task that was running on a worker at the restart may
    run once more (tasks are idempotent; an e-mail keeps its ledger key). Commits; raises
    the client's error when Redis cannot be reached (the heartbeat logs it and tries
    again at its next beat)."""
    epoch = broker_epoch()
    if epoch is None:
        return 0
    om = OutboxMessage
    query = (
        db.select(*SENT_COLUMNS)
        .where(
            om.done_at.is_(None),
            om.sent_at.is_not(None),
            om.broker_epoch.is_not(None),
            om.broker_epoch != epoch,
            om.attempts < max_attempts(),
        )
        .order_by(om.id)
        .limit(limit)
    )
    if db.engine.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    total = 0
    try:
        while True:
            lost = list(db.session.execute(query).all())
            sent = send(lost)
            db.session.commit()  # the broker has them: save the new epoch at once
            total += sent
            if sent < limit:
                break
    finally:
        db.session.rollback()  # nothing left open (SQLite would hold its lock)
    if total:
        log.warning(
            "broker restarted empty (epoch now %s): %d task(s) handed to it and not done"
            " sent again",
            epoch,
            total,
        )
    return total


def mark_done(task_id: str | None) -> bool:
    """Record that the outbox task ``task_id`` (``outbox-<id>-<attempt>``) returned: its row
    gets ``done_at`` in a transaction of its own. Other ids (a task not sent by the relay)
    are ignored. A database error is logged, not raised: the row then stays owed and the
    idempotent task runs once more. Returns True when a row was marked now."""
    match = _OUTBOX_TASK_ID.match(task_id or "")
    if not match:
        return False
    try:
        marked = done_on(db.session.connection(), int(match.group(1)))
        _marker_commit_without_fsync()
        db.session.commit()
    except Exception:
        db.session.rollback()
        log.warning("outbox: could not mark %s done; it may run once more", task_id, exc_info=True)
        return False
    return marked


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
