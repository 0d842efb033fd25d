"""Fault tests: real PostgreSQL, Redis and Celery worker processes.

Each test says what it kills and asserts counts read back from the database. The machine's
shared Redis (6379) and PostgreSQL (5432) are never stopped: the broker here is a private
``redis-server`` and the restart test runs its own PostgreSQL cluster, each on a free port
picked at start (two suites may run at once); both are stopped in the fixtures' teardown. Skipped without
SOVA_TEST_DATABASE_URL / SOVA_TEST_REDIS_URL (the conftest fixtures), failed under CI=true.
The private broker, the worker processes and the app they share are the fixtures of
``tests/fixtures/faults.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.fixtures.faults import (
    ROOT,
    VISIBILITY_TIMEOUT,
    Workers,
    blocked_precheck,
    in_review_changes,
    port_free,
    report_counts,
    submit_fault,
)
from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ
from tests.helpers import free_port, wait_for

pytestmark = pytest.mark.integration

# --- worker faults -------------------------------------------------------------------------


def test_worker_sigkilled_during_precheck_runs_it_again_exactly_once(faults):
    """Kills: the worker process group (SIGKILL) while a pre-check is inside its transaction.
    Then a fresh worker gets the unacknowledged message after the visibility timeout."""
    app, workers, redis_server = faults
    qid, lock, tx, proc = blocked_precheck(app, workers, redis_server, {})
    workers.kill(proc)
    tx.rollback()
    lock.close()
    assert report_counts(app, [qid]) == {qid: 0}
    workers.start()
    wait_for(lambda: report_counts(app, [qid])[qid] == 1, 60, "the pre-check to run again")
    time.sleep(VISIBILITY_TIMEOUT + 2)  # any further redelivery would show up now
    assert report_counts(app, [qid]) == {qid: 1}
    assert in_review_changes(app, qid) == 1
    assert redis_server.unacked() == 0


def test_task_outliving_the_visibility_timeout_has_its_effect_once(faults):
    """Kills nothing: the pre-check is held (table lock) for 3 × the visibility timeout, so
    the broker hands the same message to the worker's second process while the first still
    runs. Both finish; the database keeps one report."""
    app, workers, redis_server = faults
    qid, lock, tx, _ = blocked_precheck(app, workers, redis_server, {"concurrency": 2})
    time.sleep(3 * VISIBILITY_TIMEOUT)
    tx.rollback()
    lock.close()
    wait_for(lambda: report_counts(app, [qid])[qid] == 1, 60, "the pre-check")
    wait_for(lambda: redis_server.unacked() == 0, 60, "every delivery to be acknowledged")
    assert report_counts(app, [qid]) == {qid: 1}
    assert in_review_changes(app, qid) == 1


def test_rolled_back_transaction_never_runs_its_task(faults):
    """Kills: the transaction (rollback after ``enqueue``). A worker runs throughout; the
    outbox keeps nothing and the task never runs, also after a sweep."""
    from webapp.core.models import OutboxMessage
    from webapp.extensions import db
    from webapp.submissions.models import Question
    from webapp.tasks.outbox import enqueue, sweep

    app, workers, _ = faults
    workers.start()
    resp = submit_fault(app.test_client(), 2)
    qid = resp.get_json()["id"]
    wait_for(lambda: report_counts(app, [qid])[qid] == 1, 60, "the first pre-check")
    with app.app_context():
        before = db.session.scalar(db.select(db.func.count()).select_from(OutboxMessage))
        question = db.session.get(Question, qid)
        question.comment = "изменено и отменено"
        msg = enqueue("moderation.precheck", qid)
        db.session.flush()  # the row is really inserted inside the transaction
        assert msg.id is not None
        db.session.rollback()
        assert db.session.scalar(db.select(db.func.count()).select_from(OutboxMessage)) == before
        assert sweep(older_than=__import__("datetime").timedelta(0)) == 0
        assert db.session.get(Question, qid).comment != "изменено и отменено"
        db.session.remove()
    time.sleep(3)
    assert report_counts(app, [qid]) == {qid: 1}
    assert in_review_changes(app, qid) == 1


EVENTS = LOSE_3_6_WITH_LOST_BLITZ

TOPICS = [
    "астрономии",
    "ботанике",
    "географии",
    "истории",
    "литературе",
    "музыке",
    "физике",
    "химии",
    "живописи",
    "кино",
    "спорту",
    "архитектуре",
    "медицине",
    "математике",
    "лингвистике",
    "кулинарии",
]


def _kill_mid_task(workers, redis_server, proc, pending) -> None:
    """SIGKILL ``proc`` once it holds a message and ``pending()`` is still true (the task's
    effect is not complete), then check that the kill really interrupted the work."""
    wait_for(lambda: redis_server.unacked() >= 1, 60, "the worker to take the task")
    time.sleep(0.3)
    workers.kill(proc)
    assert pending(), "the task finished before the kill: nothing was interrupted"


def test_worker_sigkilled_while_rendering_envelopes_and_agreements(faults):
    """Kills: the worker (SIGKILL of its process group) in the middle of envelope rendering,
    and again in the middle of gift-agreement rendering. Each time a fresh worker gets the
    unacknowledged message after the visibility timeout; afterwards every document exists
    once and is ready, agreement numbers have no gaps, and each prize has one
    ``agreement_issued`` record."""
    import sqlalchemy as sa

    from webapp.accounts.operations import create_user
    from webapp.core.models import Document
    from webapp.extensions import db
    from webapp.prizes.models import GiftAgreement, Prize, PrizeStatusChange
    from webapp.tasks.outbox import commit

    app, workers, redis_server = faults
    client = app.test_client()
    with app.app_context():
        tokens = {
            role: create_user(f"{role}@fault.local", role, with_token=True)[1]
            for role in ("editor", "producer", "host")
        }
        second_editor = create_user("chief@fault.local", "chief_editor")[0].id
        commit()
        db.session.remove()

    def call(method, path, role, **kw):
        return client.open(
            path, method=method.upper(), headers={"Authorization": f"Bearer {tokens[role]}"}, **kw
        )

    def count(stmt):
        with app.app_context():
            n = db.session.scalar(stmt)
            db.session.remove()
        return n

    worker = workers.start()
    ids = []
    for i, topic in enumerate(TOPICS):
        resp = client.post(
            "/api/v1/submissions",
            json={
                "question": f"Вопрос по {topic}: назовите то, о чём думал автор номер {i}.",
                "answer": f"Ответ про {topic}",
                "authors": [{"name": f"Автор {topic}"}],
                "email": f"author{i}@example.org",
                "consent": True,
            },
        )
        assert resp.status_code == 201, resp.get_json()
        ids.append(resp.get_json()["id"])
    wait_for(lambda: all(n == 1 for n in report_counts(app, ids).values()), 90, "pre-checks")
    for qid in ids:
        resp = call(
            "post", f"/api/v1/questions/{qid}/decision", "editor", json={"decision": "approve"}
        )
        assert resp.status_code == 200, resp.get_json()
    with app.app_context():  # the second editor's sources sign-off
        from webapp.moderation.operations import sign_off
        from webapp.submissions.models import Question

        for qid in ids:
            sign_off(db.session.get(Question, qid), second_editor)
        commit()
        db.session.remove()
    season = call(
        "post",
        "/api/v1/seasons",
        "producer",
        json={"name": "Сезон отказов", "ruleset": "2023", "currency": "BYN"},
    ).json["id"]
    game = call(
        "post",
        "/api/v1/games",
        "producer",
        json={
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-04",
            "team": "Команда",
            "table": {"blitz": 4, "superblitz": None, "sector13": None},
        },
    ).json["id"]
    assigned = call("post", f"/api/v1/games/{game}/assign", "producer")
    assert assigned.status_code == 200, assigned.json

    # 1. envelopes: kill mid-render
    game_docs = sa.select(sa.func.count()).select_from(Document).where(Document.game_id == game)
    ready_docs = game_docs.where(Document.status == "ready")
    assert call("post", f"/api/v1/games/{game}/envelopes", "producer").status_code == 202
    _kill_mid_task(workers, redis_server, worker, lambda: count(ready_docs) < 2)
    worker = workers.start()
    wait_for(lambda: count(ready_docs) == 2, 120, "envelopes and host cards ready")
    time.sleep(VISIBILITY_TIMEOUT + 2)
    assert count(game_docs) == 2 and count(ready_docs) == 2
    assert redis_server.unacked() == 0

    # 2. the game, close, agreements: kill mid-render
    for event in EVENTS:
        assert call("post", f"/api/v1/games/{game}/events", "host", json=event).status_code == 201
    closed = call("post", f"/api/v1/games/{game}/close", "producer")
    assert closed.status_code == 200, closed.json
    prizes = len(closed.json["prizes"])
    assert prizes == 6
    agreements_ready = (
        sa.select(sa.func.count())
        .select_from(GiftAgreement)
        .join(Document, Document.id == GiftAgreement.document_id)
        .join(Prize, Prize.id == GiftAgreement.prize_id)
        .where(Prize.game_id == game, Document.status == "ready")
    )
    _kill_mid_task(workers, redis_server, worker, lambda: count(agreements_ready) < prizes)
    workers.start()
    wait_for(lambda: count(agreements_ready) == prizes, 180, "every agreement ready")
    time.sleep(VISIBILITY_TIMEOUT + 2)
    with app.app_context():
        numbers = sorted(
            db.session.scalars(
                sa.select(GiftAgreement.number)
                .join(Prize, Prize.id == GiftAgreement.prize_id)
                .where(Prize.game_id == game)
            )
        )
        issued = db.session.execute(
            sa.select(PrizeStatusChange.prize_id, sa.func.count())
            .join(Prize, Prize.id == PrizeStatusChange.prize_id)
            .where(Prize.game_id == game, PrizeStatusChange.to_status == "agreement_issued")
            .group_by(PrizeStatusChange.prize_id)
        ).all()
        agreement_docs = db.session.scalar(
            sa.select(sa.func.count())
            .select_from(Document)
            .where(Document.kind == "gift_agreement")
        )
        db.session.remove()
    prefix = numbers[0].rsplit("-", 1)[0]  # the season's series, e.g. "S1"
    assert numbers == [f"{prefix}-{n:04d}" for n in range(1, prizes + 1)]
    assert len(issued) == prizes and all(n == 1 for _, n in issued)
    assert agreement_docs == prizes
    assert redis_server.unacked() == 0


def test_worker_sigkilled_while_sending_mail_delivers_it_once(faults, tmp_path):
    """Kills: the worker (SIGKILL) while it is inside the SMTP conversation of the
    "question received" e-mail (our aiosmtpd server holds the RCPT reply). The message is
    delivered again by a fresh worker; the SMTP server receives exactly one complete
    message for that address."""
    pytest.importorskip("aiosmtpd")
    from aiosmtpd.controller import Controller

    app, workers, redis_server = faults
    hold = threading.Event()
    delivered: list[str] = []

    class Handler:
        first = True

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            import asyncio

            if Handler.first:
                Handler.first = False
                while not hold.is_set():
                    await asyncio.sleep(0.05)
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            delivered.extend(envelope.rcpt_tos)
            return "250 Message accepted"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    smtp = Controller(Handler(), hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        workers.env["SOVA_SMTP_URL"] = f"smtp://127.0.0.1:{port}"
        app.config["SOVA_SMTP_URL"] = workers.env["SOVA_SMTP_URL"]
        proc = workers.start()
        resp = submit_fault(app.test_client(), 500)
        assert resp.status_code == 201
        qid = resp.get_json()["id"]
        wait_for(lambda: redis_server.unacked() >= 1, 60, "the worker to take a task")
        wait_for(lambda: not Handler.first, 60, "the worker to reach the SMTP RCPT step")
        workers.kill(proc)
        hold.set()
        assert delivered == []
        workers.start()
        wait_for(lambda: delivered, 60, "the e-mail to be sent again")
        time.sleep(VISIBILITY_TIMEOUT + 2)
        assert delivered == ["viewer500@example.org"]
        assert report_counts(app, [qid]) == {qid: 1}
        # the killed attempt's claim (no end of data) was taken over by attempt 2
        assert [row[:4] for row in mail_rows(app)] == [(f"received:{qid}", "sent", 2, False)]
    finally:
        smtp.stop()


def mail_rows(app) -> list[tuple]:
    """Every sent-mail ledger row as ``(key, status, attempt, in doubt, Message-ID)``."""
    from webapp.core.mail import MailLog
    from webapp.extensions import db

    with app.app_context():
        rows = [
            (r.key, r.status, r.attempt, r.in_doubt, r.message_id)
            for r in db.session.scalars(db.select(MailLog).order_by(MailLog.id))
        ]
        db.session.remove()
    return rows


class HeldSink:
    """An aiosmtpd server (``start()``/``stop()``, ``url``) that keeps every complete message
    it is given (``messages``: email.message.Message) and, for the first one only, holds
    its reply to the end of data until ``release`` is set (``in_data`` is set meanwhile)."""

    def __init__(self):
        from aiosmtpd.controller import Controller

        self.messages, self.connections = [], 0
        self.in_data, self.release = threading.Event(), threading.Event()
        self.port = free_port()
        self.url = f"smtp://127.0.0.1:{self.port}"
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        self.connections += 1
        session.host_name = hostname
        return responses

    async def handle_DATA(self, server, session, envelope):
        import asyncio
        import email

        self.messages.append(email.message_from_bytes(envelope.original_content))
        if len(self.messages) == 1:
            self.in_data.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
        return "250 2.0.0 Ok: queued"


def lock_waiters(conn) -> int:
    """Sessions of this test's database waiting for a lock (read through ``conn``, which
    may be inside a transaction: the statistics snapshot is cleared first)."""
    import sqlalchemy as sa

    conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
    return conn.execute(
        sa.text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock'"
        )
    ).scalar()


def _task_returned(workers, n: int, task: str, value: str) -> bool:
    """True once worker ``n``'s log shows ``task`` finished returning ``value``."""
    import re

    log = (workers.tmp / f"worker{n}.log").read_text(errors="replace")
    return (
        re.search(rf"Task {re.escape(task)}\[[^\]]+\] succeeded in [0-9.]+s: {value}", log)
        is not None
    )


@pytest.mark.parametrize("moment", ["server_holds_the_data", "server_accepted_it"])
def test_worker_sigkilled_at_the_end_of_data_never_sends_the_mail_twice(faults, moment):
    """Kills: the worker (SIGKILL) inside the RFC 1047 window of the "question received"
    e-mail — ``server_holds_the_data``: the whole message incl. the end of data is with our
    aiosmtpd server, which has not answered yet; ``server_accepted_it``: the server answered
    250 but the worker is blocked (this test holds the ledger row's lock) before it
    commits ``sent``. A fresh worker gets the message again and sends nothing: the server
    has exactly one message, the ledger one row, in doubt, with that Message-ID, listed by
    ``sova mail stuck`` for an operator."""
    pytest.importorskip("aiosmtpd")
    import sqlalchemy as sa

    from webapp.extensions import db

    app, workers, redis_server = faults
    sink = HeldSink()
    sink.controller.start()
    lock = None
    try:
        workers.env["SOVA_SMTP_URL"] = app.config["SOVA_SMTP_URL"] = sink.url
        proc = workers.start()
        resp = submit_fault(app.test_client(), 600)
        assert resp.status_code == 201
        qid = resp.get_json()["id"]
        key = f"received:{qid}"
        assert sink.in_data.wait(60), "the worker never reached the end of data"
        assert [row[:4] for row in mail_rows(app)] == [(key, "sending", 1, True)]
        if moment == "server_accepted_it":
            with app.app_context():
                lock = db.engine.connect()
            tx = lock.begin()
            lock.execute(sa.text("SELECT id FROM mail_log WHERE key = :k FOR UPDATE"), {"k": key})
            sink.release.set()  # 250 goes out; the worker's UPDATE … sent now waits on us
            wait_for(lambda: lock_waiters(lock) == 1, 60, "the worker to wait for the row")
        workers.kill(proc)
        if lock is not None:
            tx.rollback()
            lock.close()
        sink.release.set()
        workers.start()
        wait_for(
            lambda: _task_returned(workers, 1, "notify.received", "False"),
            60,
            "the fresh worker to run the e-mail task again",
        )
        time.sleep(VISIBILITY_TIMEOUT + 2)  # any further redelivery would show up now
        assert len(sink.messages) == 1
        rows = mail_rows(app)
        assert [row[:4] for row in rows] == [(key, "sending", 1, True)]
        assert sink.messages[0]["Message-ID"] == rows[0][4]
        assert sink.messages[0]["To"] == "viewer600@example.org"
        assert redis_server.unacked() == 0
        out = app.test_cli_runner().invoke(args=["mail", "stuck"])
        assert out.exit_code == 0 and out.output.startswith(f"{key}\tin doubt (end of data ")
        assert out.output.endswith(f"\t{rows[0][4]}\n1 stuck e-mail(s)\n")
    finally:
        sink.release.set()
        sink.controller.stop()


def test_worker_sigkilled_before_the_smtp_connection_sends_the_mail_once(faults):
    """Kills: the worker (SIGKILL) in the "question received" task before it opens the SMTP
    connection (blocked on this test's lock of the ``mail_log`` table while claiming). A
    fresh worker gets the message again: exactly one message at the server, one ledger row
    ``sent`` by attempt 1 (the killed claim was never committed), same Message-ID."""
    pytest.importorskip("aiosmtpd")
    import sqlalchemy as sa

    from webapp.extensions import db

    app, workers, redis_server = faults
    sink = HeldSink()
    sink.release.set()  # nothing is held in this test
    sink.controller.start()
    try:
        workers.env["SOVA_SMTP_URL"] = app.config["SOVA_SMTP_URL"] = sink.url
        with app.app_context():
            lock = db.engine.connect()
        tx = lock.begin()
        lock.execute(sa.text("LOCK TABLE mail_log IN ACCESS EXCLUSIVE MODE"))
        proc = workers.start()
        resp = submit_fault(app.test_client(), 700)
        assert resp.status_code == 201
        qid = resp.get_json()["id"]
        wait_for(lambda: lock_waiters(lock) == 1, 60, "the worker to wait for the mail_log lock")
        workers.kill(proc)
        tx.rollback()
        lock.close()
        assert (sink.connections, sink.messages, mail_rows(app)) == (0, [], [])
        workers.start()
        wait_for(lambda: sink.messages, 60, "the e-mail to be sent by the fresh worker")
        time.sleep(VISIBILITY_TIMEOUT + 2)  # any further redelivery would show up now
        assert len(sink.messages) == 1
        rows = mail_rows(app)
        assert [row[:4] for row in rows] == [(f"received:{qid}", "sent", 1, False)]
        assert sink.messages[0]["Message-ID"] == rows[0][4]
        assert redis_server.unacked() == 0
    finally:
        sink.controller.stop()


# --- broker outage -------------------------------------------------------------------------


def test_redis_stopped_while_viewers_submit_loses_nothing(faults):
    """Kills: the broker (our private redis-server, SIGKILL) while 20 viewers submit. Every
    2xx submission is stored; after Redis is back the outbox sweeper sends the rest and every
    stored question is pre-checked exactly once; no viewer saw a 5xx."""
    from datetime import timedelta

    from webapp.core.models import OutboxMessage
    from webapp.extensions import db
    from webapp.tasks.outbox import sweep

    app, workers, redis_server = faults
    workers.start()
    client = app.test_client()
    codes, ids = [], []
    for i in range(10, 15):  # broker up
        resp = submit_fault(client, i)
        codes.append(resp.status_code)
        ids.append(resp.get_json()["id"])
    wait_for(lambda: all(n == 1 for n in report_counts(app, ids).values()), 60, "first 5")
    redis_server.stop()
    for i in range(15, 30):  # broker down
        resp = submit_fault(client, i)
        codes.append(resp.status_code)
        if resp.status_code == 201:
            ids.append(resp.get_json()["id"])
    assert codes == [201] * 20
    with app.app_context():
        unsent = db.session.scalar(
            db.select(db.func.count())
            .select_from(OutboxMessage)
            .where(OutboxMessage.sent_at.is_(None))
        )
        db.session.remove()
    assert unsent >= 15  # one pre-check (at least) per question submitted during the outage
    redis_server.start()
    Workers.kill(workers.procs[0])  # its broker connection died with Redis
    workers.start()
    with app.app_context():
        sent = sweep(older_than=timedelta(0))  # what the beat does every 30 s
        db.session.remove()
    assert sent == unsent
    wait_for(
        lambda: all(n == 1 for n in report_counts(app, ids).values()),
        90,
        "every stored question to be pre-checked",
    )
    assert len(ids) == 20 and len(set(ids)) == 20
    assert report_counts(app, ids) == {qid: 1 for qid in ids}


def test_redis_restarted_empty_redoes_owed_work_within_90_seconds(faults):
    """Kills: the broker (our private redis-server, SIGKILL, started again empty) while it
    holds 50 relayed pre-checks and their 50 e-mails that no worker has done (the worker
    frozen, SIGSTOP, as a busy one would be). With the default settings (owed after 600 s,
    heartbeat every 10 s) the worker's next heartbeat finds a new broker epoch
    (``webapp.tasks.outbox.after_broker_restart``) and sends them again at once: every question is
    pre-checked exactly once and every outbox row is done within 90 s of the restart (the
    time is printed; docs/operations.md "What is owed"). Without the check nothing would
    be redone before 600 s."""
    from webapp.core.models import OutboxMessage
    from webapp.extensions import db
    from webapp.tasks.heartbeat import read

    app, workers, redis_server = faults
    assert app.config["SOVA_OWED_AFTER_SECONDS"] == 600
    proc = workers.start()

    def heartbeat() -> bool:
        with app.app_context():
            return any(r["age_seconds"] < 30 for r in read("worker"))

    wait_for(heartbeat, 120, "the worker's heartbeat")
    os.killpg(proc.pid, signal.SIGSTOP)
    client = app.test_client()
    ids = []
    try:
        for i in range(100, 150):
            resp = submit_fault(client, i)
            assert resp.status_code == 201
            ids.append(resp.get_json()["id"])
        with app.app_context():
            rows = db.session.execute(
                db.select(OutboxMessage.task, OutboxMessage.sent_at, OutboxMessage.done_at)
            ).all()
            db.session.remove()
        tasks = sorted(t for t, _, _ in rows)
        assert tasks == ["moderation.precheck"] * 50 + ["notify.received"] * 50
        assert all(sent is not None and done is None for _, sent, done in rows)
        redis_server.stop()
        redis_server.start()  # empty: the 100 messages are gone
        restarted = time.monotonic()
    finally:
        os.killpg(proc.pid, signal.SIGCONT)

    def all_done() -> bool:
        with app.app_context():
            left = db.session.scalar(
                db.select(db.func.count())
                .select_from(OutboxMessage)
                .where(OutboxMessage.done_at.is_(None))
            )
            db.session.remove()
        return left == 0 and all(n == 1 for n in report_counts(app, ids).values())

    wait_for(all_done, 90, "the owed pre-checks and e-mails after the restart", every=0.5)
    recovery = time.monotonic() - restarted
    print(f"broker restart recovery: 50 pre-checks and 50 e-mails done {recovery:.1f} s after")
    assert recovery < 90
    assert report_counts(app, ids) == {qid: 1 for qid in ids}


# --- database outage -----------------------------------------------------------------------


class PrivatePostgres:
    """A throw-away PostgreSQL cluster of our own on a free port (run as user postgres)."""

    def __init__(self, tmp: Path):
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        if not bins:
            pytest.skip("PostgreSQL server binaries not installed")
        self.bin = bins[-1].parent
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="sova-fault-pg-"))
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *cmd: str, check: bool = True):
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(
            prefix + list(cmd), check=check, capture_output=True, text=True, timeout=120
        )

    def init(self) -> None:
        assert port_free(self.port), f"port {self.port} is taken"
        shutil.chown(self.dir, "postgres", "postgres") if os.geteuid() == 0 else None
        self._as_postgres(
            str(self.bin / "initdb"),
            "-D",
            str(self.dir / "data"),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        )
        self.ctl("start")

    def ctl(self, action: str, *extra: str) -> None:
        self._as_postgres(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.dir / "data"),
            "-w",
            "-l",
            str(self.dir / "log"),
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            *extra,
            action,
        )

    def destroy(self) -> None:
        self._as_postgres(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.dir / "data"),
            "-m",
            "immediate",
            "stop",
            check=False,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_postgres(pg_url):
    server = PrivatePostgres(Path("/tmp"))
    server.init()
    yield server
    server.destroy()


def test_postgres_restarted_during_a_burst_fails_cleanly_and_recovers(private_postgres, tmp_path):
    """Kills: PostgreSQL (our own cluster, ``pg_ctl restart -m immediate``) while a client
    submits in a loop. Every answer is 201 or 503 (retry page / JSON), never another 5xx;
    every 201 is stored whole (question, author link, outbox row); the same app serves 201
    again afterwards without a restart."""
    import sqlalchemy as sa
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.extensions import db

    app = create_app(
        {
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "SOVA_DATABASE_URL": private_postgres.url,
            "SOVA_BROKER_URL": "memory://",
            "SOVA_OUTBOX_AUTOSEND": False,
            "RATELIMIT_ENABLED": False,
            "PROPAGATE_EXCEPTIONS": False,
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
        }
    )
    with app.app_context():
        upgrade(revision="heads")
    client = app.test_client()
    results: list[tuple[int, int | None]] = []
    restarted = threading.Event()

    def restart():
        time.sleep(0.5)
        private_postgres.ctl("restart", "-m", "immediate")
        restarted.set()

    thread = threading.Thread(target=restart)
    thread.start()
    i = 100
    deadline = time.monotonic() + 60
    while (not restarted.is_set() or len(results) < 40) and time.monotonic() < deadline:
        resp = submit_fault(client, i)
        body = resp.get_json()
        results.append((resp.status_code, body.get("id") if resp.status_code == 201 else None))
        if resp.status_code == 503:
            assert resp.headers["Retry-After"] == "5"
            assert body == {
                "error": {
                    "code": 503,
                    "message": "База данных временно "
                    "недоступна. Повторите попытку через несколько секунд.",
                }
            }
        i += 1
    thread.join()
    codes = [code for code, _ in results]
    assert set(codes) <= {201, 503}, codes
    assert 503 in codes, "the restart was not noticed: no request hit it"
    # recovers without a restart of the app
    after = [submit_fault(client, 900 + k).status_code for k in range(5)]
    assert after == [201] * 5
    page = client.get("/healthz")
    assert page.status_code == 200
    # nothing half-written
    accepted = [qid for code, qid in results if code == 201]
    with app.app_context():
        conn = db.session
        questions = conn.scalar(sa.text("SELECT count(*) FROM question"))
        orphans = conn.scalar(
            sa.text(
                "SELECT count(*) FROM question q WHERE NOT EXISTS "
                "(SELECT 1 FROM question_author a WHERE a.question_id = q.id)"
            )
        )
        no_task = conn.scalar(
            sa.text(
                "SELECT count(*) FROM question q WHERE NOT EXISTS (SELECT 1 FROM outbox_message m "
                "WHERE m.task = 'moderation.precheck' AND (m.args->>0)::int = q.id)"
            )
        )
        db.session.remove()
        db.engine.dispose()
    # a commit whose acknowledgement was lost in the crash may be stored yet answered 503
    assert len(accepted) + 5 <= questions <= len(accepted) + 5 + codes.count(503)
    assert orphans == 0 and no_task == 0


# --- SQLite -------------------------------------------------------------------------------

SQLITE_WRITER = r"""
import sys, random
from webapp.app import create_app
from webapp.extensions import db
from webapp.tasks.outbox import commit, enqueue
from webapp.core.models import OutboxMessage, utcnow

role, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False,
                  "SOVA_DATABASE_URL": f"sqlite:///{path}/sova.sqlite",
                  "SOVA_INSTANCE_PATH": f"{path}/instance", "SOVA_BROKER_URL": "memory://",
                  "SOVA_OUTBOX_AUTOSEND": False})
client = app.test_client()
rnd = random.Random(role)
with app.app_context():
    for i in range(n):
        kind = i % 3
        if role == "web" and kind != 2:
            resp = client.post("/api/v1/submissions", json={
                "question": f"Вопрос для проверки блокировок {role} {i}", "answer": "Ответ",
                "consent": True,
                "authors": [{"name": "Автор"}], "email": f"{role}{i}@example.org"})
            assert resp.status_code == 201, (i, resp.status_code, resp.get_data(as_text=True))
        elif kind == 0:  # the worker's kind of write: a task-like row, committed
            enqueue("fault.noop", i)
            commit()
        elif kind == 1:  # an update of many rows
            ids = db.session.scalars(db.select(OutboxMessage.id).order_by(OutboxMessage.id.desc())
                                     .limit(5)).all()
            db.session.execute(db.update(OutboxMessage).where(OutboxMessage.id.in_(ids))
                               .values(attempts=OutboxMessage.attempts + 1))
            commit()
        else:  # a read-only transaction
            db.session.scalar(db.select(db.func.count()).select_from(OutboxMessage))
            db.session.rollback()
print("ok", role)
"""


@pytest.mark.slow
def test_sqlite_web_and_worker_writing_at_once_never_locks(tmp_path):
    """Kills nothing; two processes (web requests and worker-style writes) run 500 mixed
    transactions each on one SQLite file. No "database is locked", exact row counts."""
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.extensions import db

    app = create_app(
        {
            "TESTING": True,
            "SOVA_DATABASE_URL": f"sqlite:///{tmp_path}/sova.sqlite",
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
            "SOVA_BROKER_URL": "memory://",
        }
    )
    with app.app_context():
        upgrade(revision="heads")
        db.engine.dispose()
    script = tmp_path / "writer.py"
    script.write_text(SQLITE_WRITER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), role, str(tmp_path), "500"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for role in ("web", "worker")
    ]
    outs = [p.communicate(timeout=240) for p in procs]
    for proc, (out, err) in zip(procs, outs, strict=True):
        assert "database is locked" not in err
        assert proc.returncode == 0, err[-3000:]
        assert out.strip().startswith("ok")
    import sqlalchemy as sa

    with app.app_context():
        questions = db.session.scalar(sa.text("SELECT count(*) FROM question"))
        noop = db.session.scalar(
            sa.text("SELECT count(*) FROM outbox_message WHERE task = 'fault.noop'")
        )
        db.session.remove()
    # web: i % 3 in (0, 1) → 334 submissions; both: i % 3 == 0 → a noop row (worker only)
    assert questions == 334
    assert noop == 167
