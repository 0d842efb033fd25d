"""The sent-mail ledger and the e-mail send protocol (workers/notify.py, webapp/core/mail.py)
against a real SMTP server (aiosmtpd) and the SQLite app.

A worker killed at a given step is modelled here by the ledger row that step leaves behind
(the real SIGKILL tests are in tests/integration/test_faults.py)."""

from __future__ import annotations

import ast
import email
import socket
from datetime import timedelta
from pathlib import Path

import pytest

from tests.helpers import submit
from webapp.core import mail as ledger
from webapp.core.crypto import lookup_hash
from webapp.core.models import utcnow
from webapp.extensions import db

ROOT = Path(__file__).resolve().parents[2]


class Sink:
    """aiosmtpd handler: ``mode`` "accept" (250), "reject" (554 to the end of data) or
    "drop" (close the connection after the end of data without a reply). ``messages``:
    every message it accepted or dropped (email.message.Message). ``on_rcpt``: called (in
    the server's thread) at each RCPT."""

    def __init__(self):
        self.mode, self.messages, self.on_rcpt = "accept", [], None

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.on_rcpt is not None:
            self.on_rcpt()
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.mode == "reject":
            return "554 5.7.1 refused"
        self.messages.append(email.message_from_bytes(envelope.original_content))
        if self.mode == "drop":
            server.transport.close()
            return "250 never seen"
        return "250 2.0.0 Ok: queued as ABC123"


@pytest.fixture
def sink():
    from aiosmtpd.controller import Controller

    handler = Sink()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    handler.url = f"smtp://127.0.0.1:{port}"
    yield handler
    controller.stop()


@pytest.fixture
def mail_app(make_app, sink):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=sink.url, SOVA_MAIL_LEASE_SECONDS=60)
    with app.app_context():
        yield app


def submit_letter(app, n: int = 1) -> int:
    """Submits question ``n`` of viewer Пётр Письмов (``Petr{n}@Example.org``); its id."""
    return submit(
        app.test_client(),
        {
            "question": f"Вопрос про почту номер {n}: что дойдёт ровно один раз?",
            "answer": "Письмо",
            "authors": [{"name": "Пётр Письмов", "city": "Гомель"}],
            "email": f"Petr{n}@Example.org",
            "consent": True,
        },
    )["id"]


def drain_precheck(app) -> list[str]:
    """Mark the submission's outbox messages sent without running them (the pre-check is
    not this module's; ``notify.received`` is run by each test itself)."""
    from tests.helpers import drain_outbox

    return drain_outbox(app, skip=("notify.received", "moderation."))


def received_task():
    import workers.tasks  # noqa: F401
    from workers.notify import received

    return received


def row(key: str) -> ledger.MailLog:
    db.session.rollback()
    return db.session.scalar(db.select(ledger.MailLog).where(ledger.MailLog.key == key))


def rows() -> int:
    db.session.rollback()
    return db.session.scalar(db.select(db.func.count()).select_from(ledger.MailLog))


def test_received_is_sent_once_and_recorded_without_the_address(mail_app, sink):
    qid = submit_letter(mail_app)
    assert drain_precheck(mail_app) == []
    send = received_task()
    assert send.run(qid) is True
    assert send.run(qid) is False  # the task run again: the ledger says sent
    assert len(sink.messages) == 1
    msg = sink.messages[0]
    r = row(f"received:{qid}")
    assert (r.status, r.attempt, r.task, r.args) == ("sent", 1, "notify.received", [qid])
    assert msg["Message-ID"] == r.message_id and r.message_id.endswith("@localhost>")
    assert msg["To"] == "petr1@example.org"
    assert r.recipient_hash == lookup_hash("petr1@example.org")
    assert r.reply == "250 2.0.0 Ok: queued as ABC123"
    assert r.end_of_data_at is not None and r.sent_at >= r.end_of_data_at >= r.claimed_at
    stored = " ".join(str(getattr(r, c.key)) for c in ledger.MailLog.__table__.columns)
    assert "petr1" not in stored.lower()
    assert rows() == 1


def test_claim_left_before_the_end_of_data_is_sent_again_with_the_same_message_id(mail_app, sink):
    """A worker killed after the claim but before the end of data (connect, RCPT, body):
    the row is ``sending`` without ``end_of_data_at``; the re-run, once the lease is over,
    takes over (attempt 2) and delivers with the Message-ID of the first claim."""
    qid = submit_letter(mail_app, 2)
    drain_precheck(mail_app)
    first = ledger.claim(f"received:{qid}", "petr2@example.org", "notify.received", [qid])
    assert first.attempt == 1
    with pytest.raises(ledger.MailBusy) as busy:  # the lease of the dead attempt is live
        ledger.claim(f"received:{qid}", "petr2@example.org")
    assert 59 < busy.value.retry_in <= 60
    r = row(f"received:{qid}")
    r.lease_until = utcnow() - timedelta(seconds=1)
    db.session.commit()
    assert received_task().run(qid) is True
    assert [m["Message-ID"] for m in sink.messages] == [first.message_id]
    r = row(f"received:{qid}")
    assert (r.status, r.attempt) == ("sent", 2)
    assert ledger.mark_end_of_data(first) is False  # the first attempt is fenced off


def test_send_waits_for_a_live_lease_then_takes_over(make_app, sink):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=sink.url, SOVA_MAIL_LEASE_SECONDS=1)
    with app.app_context():
        qid = submit_letter(app, 3)
        drain_precheck(app)
        ledger.claim(f"received:{qid}", "petr3@example.org", "notify.received", [qid])
        assert received_task().run(qid) is True
        assert len(sink.messages) == 1
        assert (row(f"received:{qid}").status, row(f"received:{qid}").attempt) == ("sent", 2)


def test_in_doubt_row_is_not_sent_again_until_an_operator_resends_it(mail_app, sink):
    """A worker killed between the end of data and the commit of ``sent`` (RFC 1047
    window): the row is ``sending`` with ``end_of_data_at``. Re-runs send nothing; ``sova
    mail stuck`` lists it; ``sova mail resend`` queues the task; the copy has the same
    Message-ID."""
    qid = submit_letter(mail_app, 4)
    drain_precheck(mail_app)
    key = f"received:{qid}"
    claim = ledger.claim(key, "petr4@example.org", "notify.received", [qid])
    assert ledger.mark_end_of_data(claim) is True
    send = received_task()
    assert send.run(qid) is False
    assert send.run(qid) is False
    assert sink.messages == []
    r = row(key)
    runner = mail_app.test_cli_runner()
    out = runner.invoke(args=["mail", "stuck"])
    assert out.exit_code == 0, out.output
    assert out.output == (
        f"{key}\tin doubt (end of data {r.end_of_data_at:%Y-%m-%d %H:%M:%S})\tattempt 1\t"
        f"{r.claimed_at:%Y-%m-%d %H:%M:%S}\t{r.message_id}\n1 stuck e-mail(s)\n"
    )
    out = runner.invoke(args=["mail", "resend", key])
    assert out.exit_code == 0, out.output
    assert out.output == f"queued notify.received {qid} for {key} (Message-ID {r.message_id})\n"
    from tests.helpers import drain_outbox

    assert drain_outbox(mail_app) == ["notify.received"]
    assert [m["Message-ID"] for m in sink.messages] == [r.message_id]
    r = row(key)
    assert (r.status, r.attempt) == ("sent", 2)
    assert runner.invoke(args=["mail", "stuck"]).output == "0 stuck e-mail(s)\n"


def test_mail_commands_refuse_bad_input_with_exit_2(mail_app, sink):
    qid = submit_letter(mail_app, 5)
    drain_precheck(mail_app)
    received_task().run(qid)
    runner = mail_app.test_cli_runner()
    out = runner.invoke(args=["mail", "resend", "received:999999"])
    assert (out.exit_code, out.output) == (2, "Error: no e-mail with key 'received:999999'\n")
    sent_at = row(f"received:{qid}").sent_at
    out = runner.invoke(args=["mail", "resend", f"received:{qid}"])
    assert (out.exit_code, out.output) == (
        2,
        f"Error: e-mail 'received:{qid}' was sent at {sent_at:%Y-%m-%d %H:%M:%S} UTC\n",
    )
    out = runner.invoke(args=["mail", "mark-sent", f"received:{qid}"])
    assert out.exit_code == 2
    out = runner.invoke(args=["mail", "stuck", "--older-than", "-1"])
    assert out.exit_code == 2 and "-1 is not in the range x>=0" in out.output
    assert len(sink.messages) == 1


def test_operator_marks_an_in_doubt_row_sent(mail_app, sink):
    qid = submit_letter(mail_app, 6)
    drain_precheck(mail_app)
    key = f"received:{qid}"
    ledger.mark_end_of_data(ledger.claim(key, "petr6@example.org"))
    out = mail_app.test_cli_runner().invoke(args=["mail", "mark-sent", key])
    assert (out.exit_code, out.output) == (0, f"marked {key} as sent\n")
    r = row(key)
    assert (r.status, r.reply) == ("sent", "marked sent by an operator")
    assert received_task().run(qid) is False
    assert sink.messages == []


def test_rejected_end_of_data_releases_the_claim_and_the_retry_sends(mail_app, sink):
    """The server answers 554 to the end of data: nothing was accepted, so the row is not
    in doubt and the task's retry sends at once (no wait for the lease)."""
    import smtplib

    qid = submit_letter(mail_app, 7)
    drain_precheck(mail_app)
    sink.mode = "reject"
    with pytest.raises(smtplib.SMTPDataError) as err:
        received_task().run(qid)
    assert err.value.smtp_code == 554
    r = row(f"received:{qid}")
    assert (r.status, r.end_of_data_at) == ("sending", None)
    assert r.lease_until <= utcnow()
    sink.mode = "accept"
    assert received_task().run(qid) is True
    assert len(sink.messages) == 1
    assert (row(f"received:{qid}").status, row(f"received:{qid}").attempt) == ("sent", 2)


def test_connection_lost_after_the_end_of_data_leaves_the_row_in_doubt(mail_app, sink, caplog):
    """The server takes the message and drops the connection before its reply: the
    delivery is in doubt; the task ends (no exception, no retry) and sends nothing more."""
    qid = submit_letter(mail_app, 8)
    drain_precheck(mail_app)
    sink.mode = "drop"
    assert received_task().run(qid) is False
    sink.mode = "accept"
    assert received_task().run(qid) is False
    assert len(sink.messages) == 1
    r = row(f"received:{qid}")
    assert r.in_doubt and r.status == "sending" and r.attempt == 1
    assert "delivery in doubt, not re-sent automatically: `sova mail stuck`" in caplog.text


def test_refused_connection_releases_the_claim(make_app):
    """No SMTP server listening: OSError for the task's autoretry; the claim is released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMTP_URL=f"smtp://127.0.0.1:{port}")
    with app.app_context():
        qid = submit_letter(app, 9)
        drain_precheck(app)
        with pytest.raises(ConnectionRefusedError):
            received_task().run(qid)
        r = row(f"received:{qid}")
        assert (r.status, r.end_of_data_at, r.attempt) == ("sending", None, 1)
        assert r.lease_until <= utcnow()


def test_without_the_end_of_data_the_server_keeps_nothing(mail_app, sink):
    """The premise of the protocol, against a real server: a connection dropped after the
    whole body but before the end-of-data indicator delivers nothing (RFC 5321 §3.8)."""
    from workers.notify import Fenced, build_message, smtp_connect

    smtp = smtp_connect(sink.url, before_end_of_data=lambda: False)
    with pytest.raises(Fenced):
        smtp.send_message(build_message("x@example.org", "Тема", "Текст", "<1@localhost>"))
    smtp.close()
    smtp = smtp_connect(sink.url)  # the server is still fine: a later message arrives
    smtp.send_message(build_message("x@example.org", "Вторая", "Текст", "<2@localhost>"))
    smtp.quit()
    assert [m["Message-ID"] for m in sink.messages] == ["<2@localhost>"]


def test_attempt_taken_over_mid_conversation_drops_its_message(mail_app, sink):
    """Two attempts at once (a redelivery while the first still talks to the server): the
    second takes the claim over while the first is at RCPT; the first's end-of-data
    compare-and-set fails, it drops the connection, the server keeps nothing from it."""
    import sqlalchemy as sa

    from workers.notify import send_mail

    engine = db.engine

    def take_over():
        with engine.begin() as conn:
            conn.execute(
                sa.update(ledger.MailLog)
                .where(ledger.MailLog.key == "test:race")
                .values(attempt=ledger.MailLog.attempt + 1)
            )

    sink.on_rcpt = take_over
    assert send_mail("x@example.org", "Гонка", "Текст", key="test:race") is False
    assert sink.messages == []
    r = row("test:race")
    assert (r.status, r.attempt, r.end_of_data_at) == ("sending", 2, None)


def test_resend_of_an_outbox_keyed_mail_closes_the_old_row(mail_app, sink):
    from celery import current_app as celery_app

    import workers.tasks  # noqa: F401
    from tests.helpers import drain_outbox
    from webapp.submissions.models import Author

    submit_letter(mail_app, 11)
    drain_precheck(mail_app)
    author = db.session.scalar(
        db.select(Author.id).where(Author.email_hash == lookup_hash("petr11@example.org"))
    )
    old = f"my_link:{author}:outbox:77"
    ledger.mark_end_of_data(ledger.claim(old, "petr11@example.org", "notify.my_link", [author]))
    out = mail_app.test_cli_runner().invoke(args=["mail", "resend", old])
    assert out.exit_code == 0, out.output
    outbox_id = db.session.scalar(db.text("SELECT max(id) FROM outbox_message"))
    assert drain_outbox(mail_app, skip=("notify.",)) == []  # only marked sent: run it below
    celery_app.tasks["notify.my_link"].apply(
        args=[author], task_id=f"outbox-{outbox_id}-0", throw=True
    )
    assert (row(old).status, row(f"my_link:{author}:outbox:{outbox_id}").status) == (
        "resent",
        "sent",
    )
    assert len(sink.messages) == 1
    out = mail_app.test_cli_runner().invoke(args=["mail", "resend", old])
    assert (out.exit_code, out.output) == (
        2,
        f"Error: e-mail '{old}' was resent already (a new outbox message)\n",
    )


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_migration_up_down_up(make_app, request, database):
    import sqlalchemy as sa
    from flask_migrate import downgrade, upgrade

    url = request.getfixturevalue("pg_url") if database == "postgresql" else None
    app = make_app(**({"SOVA_DATABASE_URL": url} if url else {}))
    with app.app_context():
        assert "mail_log" in sa.inspect(db.engine).get_table_names()
        from alembic.script import ScriptDirectory

        config = app.extensions["migrate"].migrate.get_config()
        below = ScriptDirectory.from_config(config).get_revision("0008_mail_log").down_revision
        downgrade(revision=below)  # whatever the chain above 0008 is, this drops it too
        db.engine.dispose()
        assert "mail_log" not in sa.inspect(db.engine).get_table_names()
        upgrade(revision="heads")
        db.engine.dispose()
        columns = [c["name"] for c in sa.inspect(db.engine).get_columns("mail_log")]
        assert columns == [
            "id",
            "key",
            "message_id",
            "recipient_hash",
            "status",
            "attempt",
            "task",
            "args",
            "created_at",
            "claimed_at",
            "lease_until",
            "end_of_data_at",
            "sent_at",
            "reply",
        ]
        db.session.remove()
        db.engine.dispose()


def test_dot_lines_are_stuffed(mail_app, sink):
    from workers.notify import send_mail

    assert send_mail("x@example.org", "Точки", "строка\n.\n..две\nконец", key="test:dots")
    body = sink.messages[0].get_payload(decode=True).decode()
    assert body == "строка\r\n.\r\n..две\r\nконец\r\n"  # the server un-stuffed our dots


def test_decision_email_once_per_decision(app, login, client, sink, drain):
    """``moderation.notify_decision`` is keyed by the decision's status change: run twice,
    one e-mail."""
    from tests.webapp.moderation.editing_data import make
    from webapp.submissions.models import QuestionStatusChange

    app.config["SOVA_SMTP_URL"] = sink.url
    q = make(3)
    login("editor")
    client.post(
        f"/editor/questions/{q.id}", data={"decision": "reject", "reason_key": "not_for_tv"}
    )
    assert "moderation.notify_decision" in drain()
    import workers.tasks  # noqa: F401
    from workers.moderation import notify_decision

    assert notify_decision.run(q.id) is False
    change = db.session.scalar(
        db.select(QuestionStatusChange.id).where(
            QuestionStatusChange.question_id == q.id, QuestionStatusChange.to_status == "rejected"
        )
    )
    assert row(f"decision:{change}").status == "sent"
    assert len(sink.messages) == 1


def test_my_link_once_per_outbox_message(mail_app, sink):
    """``notify.my_link`` is keyed by its outbox message (task id ``outbox-<id>-<n>``): the
    same message delivered twice (or resent by the sweeper as attempt 1) mails once; a new
    request (another outbox message) mails again."""
    from celery import current_app as celery_app

    import workers.tasks  # noqa: F401
    from webapp.submissions.models import Author

    submit_letter(mail_app, 10)
    drain_precheck(mail_app)
    author = db.session.scalar(
        db.select(Author.id).where(Author.email_hash == lookup_hash("petr10@example.org"))
    )
    task = celery_app.tasks["notify.my_link"]
    results = [
        task.apply(args=[author], task_id=tid, throw=True).get()
        for tid in ("outbox-41-0", "outbox-41-0", "outbox-41-1", "outbox-42-0")
    ]
    assert results == [True, False, False, True]
    assert len(sink.messages) == 2
    assert [row(f"my_link:{author}:outbox:{n}").status for n in (41, 42)] == ["sent", "sent"]
    assert rows() == 2  # notify.received was skipped, so only these two


# Every call of send_mail in workers/ passes a ledger key, except the callers listed here
# (each with the reason). A new e-mail task without a key fails this test.
UNKEYED: dict[tuple[str, str], str] = {}


def test_every_send_mail_call_passes_a_ledger_key():
    found = set()
    for path in sorted((ROOT / "workers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef):
                continue
            for call in ast.walk(func):
                if (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", None) == "send_mail"
                    and not any(k.arg == "key" for k in call.keywords)
                ):
                    found.add((str(path.relative_to(ROOT)), func.name))
    assert found <= set(UNKEYED), f"send_mail without key=: {sorted(found - set(UNKEYED))}"
