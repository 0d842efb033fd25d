"""Owed work with a real worker: the relay hands pre-checks, e-mails and a
document to a private Redis, Redis restarts empty, and the workers, finding another broker epoch, get every one
of them done exactly once (the reconciliation, :func:`webapp.tasks.owed.reconcile`, then finds
nothing owed); a worker killed mid-task is replaced by the reconciliation, not by the broker's
visibility timeout (the workers here run with the production 900 s).

PostgreSQL (a fresh database), a private ``redis-server`` on a free port, real ``celery
worker`` processes and an aiosmtpd sink: the fixtures of tests/fixtures/faults.py.
"""

from __future__ import annotations

import time
from datetime import date

import pytest

from tests.fixtures.faults import blocked_precheck, in_review_changes, report_counts, submit_fault
from tests.helpers import wait_for

pytestmark = pytest.mark.integration

PRODUCTION_VISIBILITY = 900
OWED_AFTER = 2  # seconds, for the reconciliation run in this process


def _db(app, fn):
    from webapp.extensions import db

    with app.app_context():
        try:
            return fn(db)
        finally:
            db.session.remove()


def _status(app) -> dict:
    from webapp.tasks.owed import owed_status

    return _db(app, lambda db: owed_status())


def _reconcile(app) -> dict:
    from webapp.tasks.owed import reconcile

    return _db(app, lambda db: reconcile())


def _queued(redis_server) -> int:
    import redis

    return redis.Redis.from_url(redis_server.url).llen("celery")


def test_redis_restarted_empty_after_the_handover_everything_runs_exactly_once(faults, smtp_sink):
    from webapp.core.models import Document
    from webapp.prizes.register import request_register_pdf
    from webapp.tasks.outbox import commit

    app, workers, redis_server = faults
    url, received = smtp_sink
    workers.env["SOVA_SMTP_URL"] = url
    app.config["SOVA_OWED_AFTER_SECONDS"] = OWED_AFTER
    client = app.test_client()
    ids = []
    for i in range(20):
        resp = submit_fault(client, i)
        assert resp.status_code == 201, resp.get_json()
        ids.append(resp.get_json()["id"])

    def register(db):
        doc = request_register_pdf(date(2024, 1, 1), date(2024, 1, 31))
        commit()
        return doc.id

    doc_id = _db(app, register)
    assert _queued(redis_server) == 41  # 20 pre-checks, 20 e-mails, 1 register: handed over
    status = _status(app)
    assert (
        status["waiting"],
        status["in_flight"],
        status["questions_received"],
        status["documents_pending"],
    ) == (0, 41, 20, 1)

    redis_server.stop()  # no persistence: every handed-over task is gone
    redis_server.start()
    assert _queued(redis_server) == 0
    # the workers' first heartbeat finds another broker epoch and resends what is owed at
    # once (webapp.tasks.outbox.after_broker_restart): no reconciliation is waited for
    workers.start(visibility_timeout=PRODUCTION_VISIBILITY)

    def doc_status(db):
        return db.session.get(Document, doc_id).status

    wait_for(
        lambda: (
            set(report_counts(app, ids).values()) == {1}
            and len(received) == 20
            and _db(app, doc_status) == "ready"
        ),
        120,
        "the lost work to be done",
    )
    wait_for(lambda: _status(app)["in_flight"] == 0, 30, "every task marked done")
    time.sleep(OWED_AFTER + 1)
    assert _reconcile(app) == {"resent": 0, "requeued": 0}  # nothing owed any more
    time.sleep(2)
    assert report_counts(app, ids) == {qid: 1 for qid in ids}
    assert all(in_review_changes(app, qid) == 1 for qid in ids)
    assert sorted(m["To"] for m in received) == sorted(f"viewer{i}@example.org" for i in range(20))
    assert _status(app) == {
        "waiting": 0,
        "oldest_seconds": 0.0,
        "in_flight": 0,
        "overdue": 0,
        "given_up": 0,
        "questions_received": 0,
        "documents_pending": 0,
        "mail_sending": 0,
        "mail_in_doubt": 0,
    }


def test_worker_killed_mid_task_is_replaced_by_the_reconciliation(faults, smtp_sink):
    """Kills: the worker (SIGKILL of its process group) inside a pre-check's transaction.
    The broker would hand the message back only after 900 s; the reconciliation sends it
    again once overdue and a fresh worker runs it: one report, one e-mail."""
    app, workers, redis_server = faults
    url, received = smtp_sink
    workers.env["SOVA_SMTP_URL"] = url
    app.config["SOVA_OWED_AFTER_SECONDS"] = OWED_AFTER
    qid, lock, tx, proc = blocked_precheck(
        app, workers, redis_server, {"visibility_timeout": PRODUCTION_VISIBILITY}
    )
    workers.kill(proc)
    tx.rollback()
    lock.close()
    workers.start(visibility_timeout=PRODUCTION_VISIBILITY)
    wait_for(lambda: len(received) == 1, 60, "the e-mail (still queued) to be sent")
    time.sleep(OWED_AFTER + 2)
    assert report_counts(app, [qid]) == {qid: 0}  # the killed worker's message is held
    assert redis_server.unacked() == 1
    assert _reconcile(app) == {"resent": 1, "requeued": 0}
    wait_for(lambda: report_counts(app, [qid])[qid] == 1, 60, "the pre-check to run again")
    wait_for(lambda: _status(app)["in_flight"] == 0, 30, "the pre-check marked done")
    time.sleep(OWED_AFTER + 1)
    assert _reconcile(app) == {"resent": 0, "requeued": 0}
    assert report_counts(app, [qid]) == {qid: 1}
    assert in_review_changes(app, qid) == 1
    assert len(received) == 1
