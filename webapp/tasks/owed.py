"""Owed work: what the database knows is still to be done, and the beat job that gets the
broker to do it (``outbox.reconcile``, ``sova outbox reconcile``, ``sova outbox status``).

The outbox rows (:mod:`webapp.tasks.outbox`) carry ``done_at``, set by the worker when a task
returns (:func:`webapp.tasks.outbox.mark_done`); a row handed to the broker and not done after
:func:`webapp.tasks.outbox.owed_after` was lost (Redis restarted empty, a worker killed mid-task).
Kept apart from :mod:`webapp.tasks.outbox` because it reads the features' tables (questions,
documents, the mail ledger), and every feature imports ``webapp.tasks.outbox``.
"""

from __future__ import annotations

from datetime import timedelta

from webapp.core.mail import MailLog
from webapp.core.models import Document, OutboxMessage, utcnow
from webapp.extensions import db
from webapp.submissions.models import Question
from webapp.submissions.tasks import PRECHECK
from webapp.tasks.outbox import (
    SENT_COLUMNS,
    commit,
    enqueue,
    log,
    max_attempts,
    open_requests,
    owed_after,
    send,
)
from webapp.tasks.registry import document_tasks


def _unrequested(kind_rows, open_rows) -> list[tuple[str, int]]:
    """``[(task, id)]`` of ``kind_rows`` (``(task, id, created_at)``) without a request:
    none in the outbox, or only requests done before the thing was made. (An open request
    is pass 1's business: it is resent when overdue.)"""
    owed = []
    for task, ident, created in kind_rows:
        mark = open_rows.get((task, (ident,)))
        if mark is None or (mark[0] == "done" and mark[1] < created):
            owed.append((task, ident))
    return owed


def _domain_owed(now, lookback: timedelta, limit: int) -> list[tuple[str, int]]:
    """Questions still ``received`` (no pre-check report) and documents still ``pending``,
    made between ``lookback`` and the timeout ago, whose request is not in the outbox
    (made before it existed, or handled without effect): ``[(task, id)]``."""
    cutoff, since = now - owed_after(), now - lookback
    questions = [
        (PRECHECK, qid, created)
        for qid, created in db.session.execute(
            db.select(Question.id, Question.created_at)
            .where(
                Question.status == "received",
                Question.created_at <= cutoff,
                Question.created_at >= since,
            )
            .order_by(Question.id)
            .limit(limit)
        ).all()
    ]
    rendering = document_tasks()
    docs = []
    for ident, kind, prize_id, created in db.session.execute(
        db.select(Document.id, Document.kind, Document.prize_id, Document.created_at)
        .where(
            Document.status == "pending",
            Document.kind.in_(rendering),
            Document.created_at <= cutoff,
            Document.created_at >= since,
        )
        .order_by(Document.id)
        .limit(limit)
    ).all():
        task, attr = rendering[kind]
        arg = ident if attr == "id" else prize_id
        if arg is not None:
            docs.append((task, arg, created))
    if not questions and not docs:
        return []
    tasks = {PRECHECK} | {t for t, _, _ in docs}
    open_rows = open_requests(tasks, since - timedelta(minutes=1))
    owed = _unrequested(questions + docs, open_rows)
    return list(dict.fromkeys(owed))  # two documents of one prize: one request


def _lost(cutoff, limit: int) -> list:
    """Rows handed to the broker before ``cutoff`` and not done, with attempts left."""
    query = (
        db.select(*SENT_COLUMNS)
        .where(
            OutboxMessage.sent_at.is_not(None),
            OutboxMessage.sent_at <= cutoff,
            OutboxMessage.done_at.is_(None),
            OutboxMessage.attempts < max_attempts(),
        )
        .order_by(OutboxMessage.id)
        .limit(limit)
    )
    if db.engine.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return list(db.session.execute(query).all())


def reconcile(limit: int = 500, lookback: timedelta = timedelta(hours=48)) -> dict:
    """The beat job ``outbox.reconcile``: send again what the broker lost.

    1. Outbox rows sent more than :func:`owed_after` ago and not done (Redis restarted
       empty, a worker killed mid-task, a task that failed) are sent again, at most
       ``SOVA_OWED_MAX_ATTEMPTS`` times in all (then ``sova outbox status`` shows them as
       given up). The Celery task id is ``outbox-<id>-<attempt>``: the e-mail ledger key of
       an outbox-keyed e-mail (``workers.notify.outbox_key``) stays the same, so an e-mail
       sent or in doubt is not sent again (``webapp.core.mail``).
    2. Questions still ``received`` and documents still ``pending`` that are overdue and
       have no request in the outbox get a new one (:func:`enqueue`).

    A Redis broker that restarted empty is noticed sooner, by the epoch each row records
    (:func:`webapp.tasks.outbox.after_broker_restart`).

    Idempotent tasks make a resend of work that was only slow harmless. Commits; returns
    ``{"resent": n, "requeued": n}``.
    """
    now = utcnow()
    lost = _lost(now - owed_after(), limit)
    resent = send(lost)
    # Both commits are kept on purpose: the broker has the resent messages now, so their
    # "sent" markers are saved at once, whatever happens to step 2.
    db.session.commit()
    requeued = _domain_owed(now, lookback, limit)
    for task, ident in requeued:
        enqueue(task, ident)
    commit()
    if resent or requeued:
        log.warning(
            "outbox reconcile: %d lost task(s) sent again, %d owed task(s) queued",
            resent,
            len(requeued),
        )
    return {"resent": resent, "requeued": len(requeued)}


def owed_status() -> dict:
    """What is owed, read from the database (``sova outbox status``, ``/metrics``):

    ``waiting`` / ``oldest_seconds``: outbox rows not yet handed to the broker, age of the
    oldest; ``in_flight``: handed over, not done, not yet overdue; ``overdue``: handed over
    and not done for longer than :func:`owed_after` (the reconciler sends them again);
    ``given_up``: overdue with no attempts left (an operator looks); ``questions_received``:
    questions without their pre-check report; ``documents_pending``; ``mail_sending``:
    e-mails claimed and not sent, not in doubt; ``mail_in_doubt``: e-mails whose delivery
    is in doubt (``sova mail stuck``)."""
    now = utcnow()
    cutoff = now - owed_after()
    count = db.func.count

    def scalar(query):
        return db.session.scalar(query) or 0

    om = OutboxMessage
    waiting, oldest = db.session.execute(
        db.select(count(), db.func.min(om.created_at)).where(om.sent_at.is_(None))
    ).one()
    not_done = (
        db.select(count()).select_from(om).where(om.sent_at.is_not(None), om.done_at.is_(None))
    )
    status = {
        "waiting": waiting,
        "oldest_seconds": round((now - oldest).total_seconds(), 1) if oldest else 0.0,
        "in_flight": scalar(not_done.where(om.sent_at > cutoff)),
        "overdue": scalar(not_done.where(om.sent_at <= cutoff, om.attempts < max_attempts())),
        "given_up": scalar(not_done.where(om.sent_at <= cutoff, om.attempts >= max_attempts())),
        "questions_received": scalar(
            db.select(count()).select_from(Question).where(Question.status == "received")
        ),
        "documents_pending": scalar(
            db.select(count()).select_from(Document).where(Document.status == "pending")
        ),
        "mail_sending": scalar(
            db.select(count())
            .select_from(MailLog)
            .where(MailLog.status == "sending", MailLog.end_of_data_at.is_(None))
        ),
        "mail_in_doubt": scalar(
            db.select(count())
            .select_from(MailLog)
            .where(MailLog.status == "sending", MailLog.end_of_data_at.is_not(None))
        ),
    }
    db.session.rollback()  # read only: end the transaction (SQLite holds a write lock)
    return status
