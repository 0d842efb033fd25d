"""The sent-mail ledger: one row per logical e-mail, so that a task run again sends nothing twice.

A logical e-mail has a stable ``key`` chosen by the task (``received:<question id>``,
``decision:<status change id>``, ``my_link:<author id>:outbox:<outbox id>``). The worker's
send protocol (``workers.notify.send_mail``) drives a row through these steps, each in its
own committed transaction:

1. :func:`claim` — insert the row (status ``sending``, a Message-ID generated once and kept
   for every later attempt, ``attempt`` 1, a lease), or take over an abandoned ``sending``
   row (``attempt`` + 1, compare-and-set). A ``sent`` row, or one whose end of data may have
   reached the server, is not claimed.
2. the SMTP conversation up to the last line of the message body;
3. :func:`mark_end_of_data` — compare-and-set ``end_of_data_at`` for this attempt, *before*
   the end-of-data indicator (``<CRLF>.<CRLF>``) is written. An attempt that lost its claim
   to a newer one fails here and never writes the indicator, so at most one attempt per key
   can make the server accept the message (RFC 5321 §3.3: no end of data, no transaction);
4. the indicator; the server's ``250`` reply;
5. :func:`mark_sent` — ``status = sent``.

A row left ``sending`` with ``end_of_data_at`` set is *in doubt* (RFC 1047: the server may
have accepted the message just before the worker died). It is never re-sent automatically;
``sova mail stuck`` lists it and an operator decides (``sova mail resend KEY`` — the copy
carries the same Message-ID — or ``sova mail mark-sent KEY``). See docs/security.md
"E-mail: exactly once, and the window that remains".

The clear recipient address is never stored: ``recipient_hash`` is the keyed hash of the
normalised address (:func:`webapp.core.crypto.lookup_hash`, the same as ``author.email_hash``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import make_msgid

from flask import current_app
from sqlalchemy import JSON, Integer, String, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.crypto import lookup_hash
from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model, db
from webapp.tasks.outbox import commit, enqueue

OUTBOX_KEY_PART = ":outbox:"
"""Marks a key made from the outbox message id (``workers.notify.outbox_key``)."""

DEFAULT_LEASE_SECONDS = 60
"""How long a claim keeps other attempts away (``SOVA_MAIL_LEASE_SECONDS`` overrides).
Safety does not depend on it (the end-of-data compare-and-set does); only how soon a
re-delivered task may take over an attempt that died before its end of data."""


class MailError(Exception):
    """Bad operator input for a ledger command (unknown key, wrong status)."""


class MailBusy(Exception):
    """Another attempt holds a live lease on this key; ``retry_in`` seconds (float) until it
    expires."""

    def __init__(self, key: str, retry_in: float):
        super().__init__(f"mail {key!r} is being sent by another attempt")
        self.key, self.retry_in = key, retry_in


class MailLog(Model):
    """One logical e-mail. ``status``: ``sending`` (claimed; maybe in doubt, see
    ``end_of_data_at``), ``sent`` (the SMTP server answered 250 to the end of data, or the
    message was written to the log when no SMTP server is configured, or an operator marked
    it) or ``resent`` (an operator re-queued an outbox-keyed e-mail: a new row takes over).
    ``attempt`` is the fencing token of the current claim; ``task``/``args`` the Celery task
    that sends it (for ``sova mail resend``); ``reply`` the server's final reply text (it
    often names the server's queue id, for matching the MTA log)."""

    __tablename__ = "mail_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(120), unique=True)
    message_id: Mapped[str] = mapped_column(String(255))
    recipient_hash: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(12), index=True)
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    task: Mapped[str | None] = mapped_column(String(100))
    args: Mapped[list | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    lease_until: Mapped[datetime] = mapped_column(UTCDateTime)
    end_of_data_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reply: Mapped[str | None] = mapped_column(String(200))

    @property
    def in_doubt(self) -> bool:
        """True when the end of data may have reached the server but no 250 was recorded."""
        return self.status == "sending" and self.end_of_data_at is not None


@dataclass(frozen=True)
class Claim:
    """The right to send ``key`` once: row ``id``, fencing ``attempt``, the stable
    ``message_id`` (``<…@domain>``) to put in the Message-ID header."""

    id: int
    key: str
    attempt: int
    message_id: str


def _lease() -> timedelta:
    return timedelta(
        seconds=float(current_app.config.get("SOVA_MAIL_LEASE_SECONDS", DEFAULT_LEASE_SECONDS))
    )


def _commit() -> None:

    commit()


def recipient_hash(address: str) -> str:
    """Keyed hash (64 hex chars) of ``address`` stripped and lower-cased."""
    return lookup_hash(address.strip().lower())


def message_domain() -> str:
    """The domain of ``SOVA_MAIL_FROM`` (``sova@localhost`` by default) for Message-IDs."""
    sender = current_app.config.get("SOVA_MAIL_FROM", "sova@localhost")
    return sender.rsplit("@", 1)[-1].strip(" >") or "localhost"


def claim(key: str, to: str, task: str | None = None, args: list | None = None) -> Claim | None:
    """Claim ``key`` (≤ 120 chars) for sending to ``to``; ends the session's transaction
    with a commit in every case (the task's own writes must already be committed or be
    harmless to commit now), so no database lock is held during the SMTP conversation.

    Returns None when there is nothing to send: the row is ``sent``, or it is in doubt
    (end of data written by an earlier attempt, no 250 recorded — left to an operator).
    Raises :class:`MailBusy` while another attempt's lease is live. ``task``/``args`` are
    recorded on the first claim for ``sova mail resend``.
    """
    if not key or len(key) > 120:
        raise ValueError(f"mail key must be 1–120 characters: {key!r}")
    for _ in range(2):
        now = utcnow()
        row = db.session.scalar(
            db.select(MailLog).where(MailLog.key == key).execution_options(populate_existing=True)
        )
        if row is None:
            row = MailLog(
                key=key,
                message_id=make_msgid(domain=message_domain()),
                recipient_hash=recipient_hash(to),
                status="sending",
                attempt=1,
                task=task,
                args=args,
                created_at=now,
                claimed_at=now,
                lease_until=now + _lease(),
            )
            db.session.add(row)
            try:
                db.session.flush()
                made = Claim(row.id, key, 1, row.message_id)
                _commit()
            except IntegrityError:  # another attempt inserted it first: look again
                db.session.rollback()
                continue
            # no attribute access after the commit: it would open a new transaction (on
            # SQLite a write lock) and hold it through the whole SMTP conversation
            return made
        if row.status != "sending" or row.end_of_data_at is not None:
            _commit()
            return None
        if row.lease_until > now:
            retry_in = (row.lease_until - now).total_seconds()
            _commit()
            raise MailBusy(key, retry_in)
        ident, attempt, message_id = row.id, row.attempt, row.message_id
        taken = db.session.execute(  # type: ignore[attr-defined]  # a CursorResult at run time
            update(MailLog)
            .where(
                MailLog.id == ident,
                MailLog.attempt == attempt,
                MailLog.status == "sending",
                MailLog.end_of_data_at.is_(None),
            )
            .values(
                attempt=attempt + 1,
                claimed_at=now,
                lease_until=now + _lease(),
                recipient_hash=recipient_hash(to),
            )
            .execution_options(synchronize_session=False)
        ).rowcount
        _commit()
        if taken != 1:
            raise MailBusy(key, 0.5)  # another attempt took it over just now
        return Claim(ident, key, attempt + 1, message_id)
    raise MailBusy(key, 0.5)


def mark_end_of_data(c: Claim) -> bool:
    """Record (committed) that claim ``c`` is about to write the end-of-data indicator.
    False when ``c`` is no longer the current attempt: the caller must then drop the
    connection without writing it."""
    done = db.session.execute(  # type: ignore[attr-defined]  # a CursorResult at run time
        update(MailLog)
        .where(
            MailLog.id == c.id,
            MailLog.attempt == c.attempt,
            MailLog.status == "sending",
            MailLog.end_of_data_at.is_(None),
        )
        .values(end_of_data_at=utcnow())
        .execution_options(synchronize_session=False)
    ).rowcount
    _commit()
    return done == 1


def mark_sent(c: Claim, reply: str | None = None) -> None:
    """Record (committed) that the server accepted claim ``c``'s message (``reply``: its
    final reply text, cut to 200 chars)."""
    db.session.execute(
        update(MailLog)
        .where(MailLog.id == c.id, MailLog.attempt == c.attempt)
        .values(status="sent", sent_at=utcnow(), reply=(reply or "")[:200] or None)
        .execution_options(synchronize_session=False)
    )
    _commit()


def release(c: Claim, *, not_delivered: bool = False) -> None:
    """End claim ``c`` without a delivery so the next attempt need not wait for the lease.
    ``not_delivered``: the server answered the end of data with an error, so the message
    was definitely not accepted and ``end_of_data_at`` is cleared as well."""
    values: dict = {"lease_until": utcnow()}
    if not_delivered:
        values["end_of_data_at"] = None
    db.session.execute(
        update(MailLog)
        .where(MailLog.id == c.id, MailLog.attempt == c.attempt, MailLog.status == "sending")
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    _commit()


def already_sent(key: str) -> bool:
    """True when ``key`` needs no sending (``sent``, or in doubt and left to an operator):
    a task that must do work *before* ``send_mail`` (e.g. issue a new one-time link) checks
    this first."""
    row = db.session.scalar(db.select(MailLog).where(MailLog.key == key))
    return row is not None and (row.status != "sending" or row.end_of_data_at is not None)


# --- operator commands (``sova mail …``) -------------------------------------------------


def stuck(older_than: timedelta = timedelta(minutes=10)) -> list[MailLog]:
    """Rows still ``sending``: every one in doubt, and those claimed more than
    ``older_than`` ago (their task died or gave up). Oldest first."""
    cutoff = utcnow() - older_than
    return list(
        db.session.scalars(
            db.select(MailLog)
            .where(
                MailLog.status == "sending",
                (MailLog.end_of_data_at.is_not(None)) | (MailLog.claimed_at <= cutoff),
            )
            .order_by(MailLog.claimed_at, MailLog.id)
        )
    )


def _row(key: str) -> MailLog:
    row = db.session.scalar(db.select(MailLog).where(MailLog.key == key))
    if row is None:
        raise MailError(f"no e-mail with key {key!r}")
    return row


def _refuse_done(row: MailLog) -> None:
    if row.status == "sent":
        raise MailError(f"e-mail {row.key!r} was sent at {row.sent_at:%Y-%m-%d %H:%M:%S} UTC")
    if row.status == "resent":
        raise MailError(f"e-mail {row.key!r} was resent already (a new outbox message)")


def resend(key: str) -> MailLog:
    """Queue the task of a ``sending`` row again (outbox, after the caller's commit).

    A key of its own (``received:…``, ``decision:…``): the in-doubt mark is cleared and the
    task's next run claims the same row, so the copy has the same Message-ID. A key made
    from the outbox message (``…:outbox:<id>``): the new outbox message makes a new key and
    row, so this row becomes ``resent`` (closed). Raises MailError for an unknown key, a
    row already sent or resent, or one without a recorded task."""
    row = _row(key)
    _refuse_done(row)
    if not row.task:
        raise MailError(f"e-mail {key!r} has no recorded task: cannot resend")
    if OUTBOX_KEY_PART in row.key:
        row.status = "resent"
    else:
        row.end_of_data_at = None
    row.lease_until = utcnow()
    enqueue(row.task, *(row.args or []))
    return row


def mark_sent_by_operator(key: str) -> MailLog:
    """Mark a ``sending`` row ``sent`` (an operator found it delivered in the MTA log).
    Raises MailError for an unknown key or a row already sent or resent."""
    row = _row(key)
    _refuse_done(row)
    row.status, row.sent_at, row.reply = "sent", utcnow(), "marked sent by an operator"
    return row
