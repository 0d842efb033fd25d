"""Infrastructure models shared by every feature: the transactional outbox and documents.

Types: :class:`UTCDateTime` stores timezone-aware datetimes in UTC and always returns them
aware (SQLite keeps no zone); money columns are ``Numeric(12, 2)`` read as ``Decimal``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import JSON, DateTime, Integer, Numeric, String, TypeDecorator, func
from sqlalchemy.orm import Mapped, mapped_column

from webapp.extensions import Model


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC; naive input is refused (ValueError), output is aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime refused: store timezone-aware times only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


Money = Numeric(12, 2, asdecimal=True)


def money_column(**kwargs) -> Mapped[Decimal]:
    """A ``Numeric(12, 2)`` column read as ``Decimal`` (never float)."""
    return mapped_column(Money, **kwargs)


class OutboxMessage(Model):
    """A task requested inside a business transaction; sent to Celery only after commit.

    ``task``: a Celery task name (``"moderation.precheck"``); ``args``: a JSON list of
    primary keys. The relay (:mod:`webapp.tasks.outbox`) marks ``sent_at``; the beat sweeper
    resends rows still unsent. Tasks are idempotent, so a resend is harmless.
    ``done_at``: the task returned (set by the worker, :func:`webapp.tasks.outbox.mark_done`); a
    row sent but not done after ``SOVA_OWED_AFTER_SECONDS`` is owed work that the broker
    lost (restarted empty, worker killed) and is sent again by ``outbox.reconcile``.
    ``attempts``: how many times it was handed to the broker. ``broker_epoch``: the epoch of
    the Redis broker it was last handed to (:func:`webapp.tasks.outbox.broker_epoch`; None on a
    broker that keeps its messages): a row not done whose epoch is no longer the broker's
    was lost with the broker's data and is sent again at once
    (:func:`webapp.tasks.outbox.after_broker_restart`). ``request_id``: the HTTP request (or task)
    that queued it, sent along as the task header ``sova_request_id``.
    """

    __tablename__ = "outbox_message"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    task: Mapped[str] = mapped_column(String(100))
    args: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    broker_epoch: Mapped[str | None] = mapped_column(String(32))
    request_id: Mapped[str | None] = mapped_column(String(64))


class Document(Model):
    """A rendered PDF or a stored scan: ``kind`` (envelopes, host_cards, sector13_card,
    gift_agreement, commission_minutes, payment_register, signed_scan), ``key`` unique per
    kind and owner and version (``"envelopes:game:5:v1"``), ``status`` pending/ready/failed,
    or superseded (a newer version of the same kind and prize was made while this one was
    still pending: it will never be rendered and is owed by nobody),
    ``sha256`` of the file, ``path`` relative to ``SOVA_DOCUMENTS_PATH``.
    """

    __tablename__ = "document"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(120), unique=True)
    kind: Mapped[str] = mapped_column(String(40))
    game_id: Mapped[int | None] = mapped_column(Integer, index=True)
    prize_id: Mapped[int | None] = mapped_column(Integer, index=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    sha256: Mapped[str | None] = mapped_column(String(64))
    path: Mapped[str | None] = mapped_column(String(300))
    error: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    rendered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ProcessHeartbeat(Model):
    """A long-running process saying it is alive, in the database (``sova health``): one row
    per ``role`` (``worker``, ``beat``) and ``node`` (a worker's Celery node name,
    ``celery@<host>``; beat's host name). ``beat_at`` is set every
    ``SOVA_HEARTBEAT_SECONDS`` by a thread of the process's main (not pool) process, so it
    goes on while the pool renders; ``busy``: tasks running at that moment; ``pid`` and
    ``started_at`` of the process. A warm shutdown deletes the row."""

    __tablename__ = "process_heartbeat"

    role: Mapped[str] = mapped_column(String(20), primary_key=True)
    node: Mapped[str] = mapped_column(String(200), primary_key=True)
    pid: Mapped[int] = mapped_column(Integer)
    busy: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    beat_at: Mapped[datetime] = mapped_column(UTCDateTime)


__all__ = [
    "Document",
    "ProcessHeartbeat",
    "Money",
    "OutboxMessage",
    "UTCDateTime",
    "func",
    "money_column",
    "utcnow",
]
