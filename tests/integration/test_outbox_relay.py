"""The outbox relay process (``sova outbox relay``) on PostgreSQL and Redis.

Production runs the web with ``SOVA_OUTBOX_AUTOSEND=0``: a viewer's request ends at its
commit, and this process sends the tasks the commit queued. These tests start the real
process, count the messages that reach the Redis queue, and show that a row locked by
another sender is skipped, not sent twice. A viewer's new question joins the duplicate
index in its pre-check, not in the request.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

BIN = Path(sys.executable).parent
FORM = {
    "question": "Какой город называют северной столицей России? Назовите его "
    "одним словом, как его называли в 1914–1924 годах.",
    "answer": "Петроград",
    "name": "Нагрузочный Тест",
    "city": "Минск",
    "consent": "y",
    "age_confirmed": "y",
}


@pytest.fixture
def relay_env(pg_url, redis_url, tmp_path):
    """An app on a fresh PostgreSQL database with the Redis broker and auto-send off, and
    the environment for processes on the same database."""
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.extensions import db

    env = dict(
        os.environ,
        SOVA_DATABASE_URL=pg_url,
        SOVA_BROKER_URL=redis_url,
        SOVA_INSTANCE_PATH=str(tmp_path / "instance"),
        SOVA_RATELIMIT_ENABLED="0",
        SOVA_MIN_FILL_SECONDS="0",
        SOVA_OUTBOX_AUTOSEND="0",
    )
    app = create_app(
        {
            "SOVA_DATABASE_URL": pg_url,
            "SOVA_BROKER_URL": redis_url,
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
            "SOVA_RATELIMIT_ENABLED": "0",
            "SOVA_MIN_FILL_SECONDS": 0,
            "SOVA_OUTBOX_AUTOSEND": "0",
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
        }
    )
    with app.app_context():
        upgrade(revision="heads")
    yield app, env
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def post(app, i: int) -> int:
    resp = app.test_client().post(
        "/submit",
        data=dict(FORM, email=f"relay{i}@example.org", idempotency_key=f"relay-test-{i:04d}"),
    )
    assert resp.status_code == 302, resp.status_code
    return resp.status_code


def unsent(app) -> int:
    from webapp.extensions import db

    with app.app_context():
        n = db.session.scalar(sa.text("SELECT count(*) FROM outbox_message WHERE sent_at IS NULL"))
        db.session.remove()
    return n


def queued(redis_url: str) -> list[str]:
    """Task names waiting in the Redis queue ``celery``."""
    import redis

    raw = redis.Redis.from_url(redis_url).lrange("celery", 0, -1)
    return sorted(json.loads(m)["headers"]["task"] for m in raw)


def test_config_reads_autosend_from_the_environment(relay_env):
    from webapp.app import create_app

    app, env = relay_env
    assert app.config["SOVA_OUTBOX_AUTOSEND"] is False
    for value, expected in (("0", False), ("false", False), ("1", True), (False, False)):
        other = create_app(
            {"SOVA_DATABASE_URL": env["SOVA_DATABASE_URL"], "SOVA_OUTBOX_AUTOSEND": value}
        )
        assert other.config["SOVA_OUTBOX_AUTOSEND"] is expected, value


def test_relay_process_sends_what_requests_committed(relay_env, redis_url):
    """Killed: nothing. Three submissions commit with auto-send off: their six tasks wait in
    the outbox (none in Redis) until the relay process sends each exactly once."""
    app, env = relay_env
    for i in range(3):
        post(app, i)
    assert unsent(app) == 6
    assert queued(redis_url) == []
    relay = subprocess.Popen(
        [str(BIN / "sova"), "outbox", "relay", "--interval", "0.05"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while unsent(app) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert unsent(app) == 0
        post(app, 3)  # while the relay runs: sent within its polling interval
        deadline = time.monotonic() + 30
        while unsent(app) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert unsent(app) == 0
        time.sleep(0.3)  # a second look finds nothing to send again
    finally:
        relay.terminate()
        out, _ = relay.communicate(timeout=10)
    assert "outbox relay: polling every 0.05s, up to 500 messages a poll" in out
    assert queued(redis_url) == ["moderation.precheck"] * 4 + ["notify.received"] * 4
    status = subprocess.run(
        [str(BIN / "sova"), "outbox", "status"], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(status.stdout) | {"questions_received": None} == {
        "waiting": 0,
        "oldest_seconds": 0.0,
        "in_flight": 8,
        "overdue": 0,
        "given_up": 0,
        "questions_received": None,
        "documents_pending": 0,
        "mail_sending": 0,
        "mail_in_doubt": 0,
    }


def test_a_row_locked_by_another_sender_is_skipped(relay_env, redis_url):
    """Two senders at once (the relay and the sweeper): a row one of them holds is not
    sent by the other (``FOR UPDATE SKIP LOCKED``), so no task is published twice."""
    from webapp.extensions import db
    from webapp.tasks.outbox import relay_pending

    app, env = relay_env
    post(app, 1)
    engine = sa.create_engine(env["SOVA_DATABASE_URL"])
    with engine.connect() as other:
        held = other.execute(
            sa.text("SELECT id FROM outbox_message ORDER BY id LIMIT 1 FOR UPDATE")
        ).scalar()
        with app.app_context():
            assert relay_pending() == 1
            db.session.remove()
        other.rollback()
    engine.dispose()
    assert queued(redis_url) == ["notify.received"]
    with app.app_context():
        assert (
            db.session.scalar(sa.text("SELECT id FROM outbox_message WHERE sent_at IS NULL"))
            == held
        )
        assert relay_pending() == 1
        assert relay_pending() == 0
        db.session.remove()
    assert queued(redis_url) == ["moderation.precheck", "notify.received"]


def test_the_request_leaves_the_duplicate_index_to_the_precheck(relay_env):
    """A viewer's question has no duplicate-index rows after its request; its pre-check task
    adds them (20 bands and 1 leading window) once, and a resent pre-check adds nothing. The second of two
    identical questions, pre-checked later, reports the first."""
    from webapp.extensions import db
    from webapp.moderation.models import DuplicateBucket, ModerationReport
    from workers.moderation import precheck

    app, _env = relay_env
    post(app, 1)
    post(app, 2)
    with app.app_context():
        first, second = db.session.scalars(sa.text("SELECT id FROM question ORDER BY id")).all()

        def rows(qid):
            return db.session.scalar(
                sa.select(sa.func.count())
                .select_from(DuplicateBucket)
                .where(DuplicateBucket.question_id == qid)
            )

        assert (rows(first), rows(second)) == (0, 0)
        precheck(first)
        assert (rows(first), rows(second)) == (21, 0)
        precheck(first)
        assert rows(first) == 21
        precheck(second)
        assert rows(second) == 21
        report = db.session.scalar(sa.select(ModerationReport).filter_by(question_id=second))
        assert [(d["question_id"], d["score"]) for d in report.duplicates] == [(first, 100.0)]
        db.session.remove()


def test_a_double_click_racing_on_postgresql_stores_one_question(relay_env):
    """Two requests with the same idempotency key at the same moment (threads): the second
    INSERT waits for the first and then inserts nothing (``ON CONFLICT (idempotency_key) DO
    NOTHING``, webapp.submissions.pg_intake); its request answers with the
    same status page and leaves nothing behind (counts from the database)."""
    import threading

    app, _env = relay_env
    barrier, answers = threading.Barrier(4), []

    def click():
        client = app.test_client()
        barrier.wait()
        resp = client.post(
            "/submit",
            data=dict(FORM, email="double@example.org", idempotency_key="double-click-0001"),
        )
        answers.append((resp.status_code, resp.headers.get("Location")))

    threads = [threading.Thread(target=click) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 4 and len(set(answers)) == 1 and answers[0][0] == 302
    from webapp.extensions import db

    with app.app_context():
        counts = {
            table: db.session.scalar(sa.text(f"SELECT count(*) FROM {table}"))  # noqa: S608
            for table in (
                "question",
                "author",
                "question_author",
                "question_status_change",
                "outbox_message",
            )
        }
        db.session.remove()
    assert counts == {
        "question": 1,
        "author": 1,
        "question_author": 1,
        "question_status_change": 1,
        "outbox_message": 2,
    }
