"""Owed work lives in the database: ``done_at`` on outbox rows, the reconciler
(``outbox.reconcile`` / ``sova outbox reconcile``), ``sova outbox status`` and requesting a
document again. SQLite, the in-memory broker, tasks run in-process; the same with a real
worker and a Redis restarted empty is tests/integration/test_owed_live.py."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.helpers import submit
from webapp.core.models import Document, OutboxMessage, utcnow
from webapp.extensions import db
from webapp.tasks.outbox import commit, mark_done, relay_pending, request_again
from webapp.tasks.owed import owed_status, reconcile


def _submit(client, n: int) -> int:
    return submit(
        client,
        {
            "question": f"Какой город называют северной столицей России? Вопрос номер {n}.",
            "answer": "Петроград",
            "authors": [{"name": f"Автор {n}", "city": "Минск"}],
            "email": f"owed{n}@example.org",
            "consent": True,
        },
    )["id"]


def _rows() -> list[OutboxMessage]:
    db.session.expire_all()
    return list(db.session.scalars(db.select(OutboxMessage).order_by(OutboxMessage.id)))


def _age_sent(seconds: float) -> None:
    """Pretend every handed-over row was handed over ``seconds`` ago."""
    db.session.execute(
        db.update(OutboxMessage)
        .where(OutboxMessage.sent_at.is_not(None))
        .values(sent_at=utcnow() - timedelta(seconds=seconds))
    )
    db.session.commit()


def test_lost_tasks_are_sent_again_once_overdue_and_done_ones_never(app, client):
    qid = _submit(client, 1)
    assert relay_pending() == 2  # precheck + notify.received handed to the broker
    assert [(r.task, r.args, r.attempts, r.done_at) for r in _rows()] == [
        ("moderation.precheck", [qid], 1, None),
        ("notify.received", [qid], 1, None),
    ]
    # not overdue yet: nothing is sent again
    assert reconcile() == {"resent": 0, "requeued": 0}
    status = owed_status()
    assert (status["in_flight"], status["overdue"], status["questions_received"]) == (2, 0, 1)

    # the broker lost both (restarted empty); 11 minutes later they are overdue
    _age_sent(660)
    status = owed_status()
    assert (status["in_flight"], status["overdue"]) == (0, 2)
    assert reconcile() == {"resent": 2, "requeued": 0}
    assert [r.attempts for r in _rows()] == [2, 2]

    # the worker runs the pre-check (sent as outbox-<id>-1): its row is done, the other not
    precheck_row, mail_row = _rows()
    celery = app.extensions["celery"]
    import workers.tasks  # noqa: F401  (registers the tasks)

    celery.tasks["moderation.precheck"].apply(args=[qid], task_id=f"outbox-{precheck_row.id}-1")
    assert _rows()[0].done_at is not None and _rows()[1].done_at is None
    _age_sent(660)
    assert reconcile() == {"resent": 1, "requeued": 0}
    assert [r.attempts for r in _rows()] == [2, 3]
    assert mark_done(f"outbox-{mail_row.id}-2") is True
    assert mark_done(f"outbox-{mail_row.id}-2") is False  # already done
    assert mark_done("not-an-outbox-task") is False
    _age_sent(6600)
    assert reconcile() == {"resent": 0, "requeued": 0}
    status = owed_status()
    assert (status["in_flight"], status["overdue"], status["questions_received"]) == (0, 0, 0)


def test_attempts_are_bounded_and_given_up_rows_are_reported(make_app):
    app = make_app(SOVA_OWED_MAX_ATTEMPTS=3, WTF_CSRF_ENABLED=False)
    with app.app_context():
        _submit(app.test_client(), 2)
        relay_pending()
        for expected in (2, 2, 0):
            _age_sent(700)
            assert reconcile()["resent"] == expected
        status = owed_status()
        assert (status["overdue"], status["given_up"]) == (0, 2)
        assert [r.attempts for r in _rows()] == [3, 3]


def test_owed_work_without_a_request_is_queued_once(app, client):
    """A question still ``received`` and a document still ``pending`` whose requests are
    not in the outbox (made before it knew ``done_at``, or handled without effect) are
    queued once overdue; not again while that request is open or after it was done."""
    qid = _submit(client, 3)
    db.session.execute(db.delete(OutboxMessage))
    old = utcnow() - timedelta(minutes=20)
    doc = Document(
        key="payment_register:2024-01-01:2024-01-31:v1",
        kind="payment_register",
        version=1,
        status="pending",
        created_at=old,
    )
    db.session.add(doc)
    from webapp.submissions.models import Question

    db.session.get(Question, qid).created_at = old
    db.session.commit()
    assert reconcile() == {"resent": 0, "requeued": 2}
    assert sorted((r.task, r.args) for r in _rows()) == [
        ("moderation.precheck", [qid]),
        ("prizes.render_register", [doc.id]),
    ]
    assert reconcile() == {"resent": 0, "requeued": 0}  # open requests: pass 1's business
    for row in _rows():  # both ran (here: without effect); the question stays received
        row.sent_at = row.done_at = utcnow()
    db.session.commit()
    assert reconcile() == {"resent": 0, "requeued": 0}
    assert len(_rows()) == 2


def test_requesting_a_document_again_queues_it_only_when_overdue(app):
    doc = Document(
        key="envelopes:game:1:v1",
        kind="envelopes",
        version=1,
        status="pending",
        created_at=utcnow(),
    )
    db.session.add(doc)
    db.session.flush()
    from webapp.tasks.outbox import enqueue

    enqueue("games.render_envelopes", doc.id)
    commit()
    assert request_again("games.render_envelopes", doc.id, since=doc.created_at) is False
    relay_pending()
    assert request_again("games.render_envelopes", doc.id, since=doc.created_at) is False
    _age_sent(601)  # handed over 10 minutes ago and never done: the broker lost it
    assert request_again("games.render_envelopes", doc.id, since=doc.created_at) is True
    commit()
    assert [(r.task, r.args, r.sent_at is None) for r in _rows()] == [
        ("games.render_envelopes", [doc.id], False),
        ("games.render_envelopes", [doc.id], True),
    ]


def test_outbox_reconcile_command(app, client):
    _submit(client, 4)
    relay_pending()
    _age_sent(3600)
    runner = app.test_cli_runner()
    out = runner.invoke(args=["outbox", "reconcile"])
    assert out.exit_code == 0 and json.loads(out.output) == {"resent": 2, "requeued": 0}
    status = json.loads(runner.invoke(args=["outbox", "status"]).output)
    assert (status["in_flight"], status["overdue"]) == (2, 0)


def test_a_resent_e_mail_task_sends_nothing_twice_and_leaves_in_doubt_rows_alone(
    make_app, smtp_sink
):
    """The reconciler resends the lost ``notify.received`` tasks of two questions. The first
    e-mail was delivered before its task died (ledger ``sent``): nothing more is sent. The
    second is in doubt (end of data written, no 250 recorded): nothing is sent, the row stays
    ``sending`` for ``sova mail stuck``. Both outbox rows are done afterwards."""
    from webapp.core.mail import MailLog, stuck

    url, received = smtp_sink
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=url)
    with app.app_context():
        client = app.test_client()
        first, second = _submit(client, 5), _submit(client, 6)
        relay_pending()
        import workers.tasks  # noqa: F401  (registers the tasks)

        celery = app.extensions["celery"]
        mails = {r.args[0]: r.id for r in _rows() if r.task == "notify.received"}
        celery.tasks["notify.received"].apply(args=[first], task_id=f"outbox-{mails[first]}-1")
        assert [m["To"] for m in received] == ["owed5@example.org"]
        now = utcnow()
        db.session.add(
            MailLog(
                key=f"received:{second}",
                message_id="<x@localhost>",
                recipient_hash="0" * 64,
                status="sending",
                attempt=1,
                task="notify.received",
                args=[second],
                created_at=now,
                claimed_at=now,
                lease_until=now,
                end_of_data_at=now,
            )
        )
        db.session.execute(
            db.update(OutboxMessage).where(OutboxMessage.id == mails[first]).values(done_at=None)
        )  # its worker died before marking it done
        db.session.commit()
        _age_sent(700)
        assert reconcile()["resent"] == 4  # both pre-checks and both e-mails
        for qid in (first, second):
            celery.tasks["notify.received"].apply(args=[qid], task_id=f"outbox-{mails[qid]}-2")
        assert [m["To"] for m in received] == ["owed5@example.org"]
        assert [r.key for r in stuck()] == [f"received:{second}"]
        assert all(r.done_at is not None for r in _rows() if r.task == "notify.received")
        assert owed_status()["mail_in_doubt"] == 1


def test_a_broker_that_lost_its_data_has_its_lost_tasks_sent_again_at_once(make_app, redis_url):
    """Each row handed to a Redis broker records the broker's epoch (``sova:broker-epoch``).
    After the broker lost its data (restarted empty: here its database flushed), a process
    started after the loss, which never saw the old broker (a worker restarted with it),
    sends again at once every row handed to the old epoch and not done, however young; and
    only once, since the resent rows record the new epoch. Done rows, rows handed to the new
    broker and a broker that keeps its messages (the embedded SQLAlchemy one) are left
    alone."""
    import redis

    from webapp.tasks.outbox import BROKER_EPOCH_KEY, after_broker_restart, broker_epoch

    broker = redis.Redis.from_url(redis_url)
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_BROKER_URL=redis_url)
    with app.app_context():
        first = _submit(app.test_client(), 3)
        assert relay_pending() == 2  # the first send makes the epoch
        old = broker.get(BROKER_EPOCH_KEY).decode()
        assert [r.broker_epoch for r in _rows()] == [old, old]
        assert after_broker_restart() == 0  # nothing lost
        assert reconcile() == {"resent": 0, "requeued": 0}  # 2 in flight, not overdue
        assert mark_done(f"outbox-{_rows()[0].id}-1") is True  # the pre-check ran
        broker.flushdb()  # what a restart without persistence does
    restarted = make_app(WTF_CSRF_ENABLED=False, SOVA_BROKER_URL=redis_url)
    with restarted.app_context():
        second = _submit(restarted.test_client(), 4)
        assert relay_pending() == 2  # handed to the new broker: a new epoch
        new = broker.get(BROKER_EPOCH_KEY).decode()
        assert new != old and broker_epoch() == new
        assert after_broker_restart() == 1  # the first question's e-mail
        assert [(r.task, r.args, r.attempts, r.broker_epoch) for r in _rows()] == [
            ("moderation.precheck", [first], 1, old),
            ("notify.received", [first], 2, new),
            ("moderation.precheck", [second], 1, new),
            ("notify.received", [second], 1, new),
        ]
        assert after_broker_restart() == 0  # once
    embedded = make_app(WTF_CSRF_ENABLED=False)
    with embedded.app_context():
        assert broker_epoch() is None
        assert after_broker_restart() == 0
