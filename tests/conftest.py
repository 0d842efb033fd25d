"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# --- shared test data --------------------------------------------------------
# Real packets and other data live in the folder "shared" next to the repo
# checkout (e.g. /work/main -> /work/shared). Tests skip without it, except on
# CI (CI=true), where its absence is a failure.

SHARED_DIR = Path(__file__).resolve().parents[1] / ".." / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """Path of the shared test-data folder; skips (fails when CI=true) if absent."""
    path = SHARED_DIR.resolve()
    if not path.is_dir():
        message = f"shared test data not found at {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required when CI=true)")
        pytest.skip(message)
    return path


# --- end of shared test data -------------------------------------------------


# --- the application ---------------------------------------------------------

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402


class ClosingClient(FlaskClient):
    """The test client, reading each response whole and closing it (``buffered=True``): a
    file a view sends (``send_file``) is closed at once, as a WSGI server closes it, instead
    of when the garbage collector finds it (a ResourceWarning, an error in this suite)."""

    def open(self, *args, buffered=True, **kwargs):
        return super().open(*args, buffered=buffered, **kwargs)


@pytest.fixture(autouse=True)
def _closing_test_client(monkeypatch):
    monkeypatch.setattr(Flask, "test_client_class", ClosingClient)


def _require_env(name: str) -> str:
    """The value of ``name``; skips the test when unset (fails under CI=true)."""
    value = os.environ.get(name)
    if not value:
        message = f"{name} is not set: integration test needs a real service"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required when CI=true)")
        pytest.skip(message)
    return value


@pytest.fixture
def make_app(tmp_path):
    """Factory: a Sova app on a fresh SQLite database (migrations applied) in tmp_path."""
    from flask_migrate import upgrade

    from webapp.app import create_app

    def factory(**overrides):
        config = {
            "TESTING": True,
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
            "SOVA_DATABASE_URL": f"sqlite:///{tmp_path / 'sova.sqlite'}",
            "SOVA_BROKER_URL": "memory://",
            "SOVA_OUTBOX_AUTOSEND": False,
            "SOVA_DOCUMENTS_PATH": str(tmp_path / "documents"),
            "RATELIMIT_ENABLED": False,
            "SOVA_MIN_FILL_SECONDS": 0,
        }
        config.update(overrides)
        app = create_app(config)
        with app.app_context():
            upgrade(revision="heads")
        return app

    return factory


@pytest.fixture
def app(make_app):
    """An app with CSRF off (CSRF itself is tested with ``csrf_app``)."""
    app = make_app(WTF_CSRF_ENABLED=False)
    with app.app_context():
        yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def staff(app):
    """``staff("editor")`` → (user id, API token); one user per role, made on demand."""
    from webapp.accounts.operations import create_user
    from webapp.jobs import commit

    made: dict[str, tuple[int, str]] = {}

    def get(role: str) -> tuple[int, str]:
        if role not in made:
            user, token = create_user(f"{role}@test.local", role, password=f"{role}-pw",
                                      with_token=True)
            made[role] = (user.id, token)
            commit()
        return made[role]

    return get


@pytest.fixture
def api(client, staff):
    """``api("post", "/api/v1/...", role="editor", json=...)`` → response."""

    def call(method: str, path: str, role: str | None = None, **kwargs):
        headers = kwargs.pop("headers", {})
        if role:
            headers["Authorization"] = f"Bearer {staff(role)[1]}"
        return getattr(client, method)(path, headers=headers, **kwargs)

    return call


@pytest.fixture
def login(client, staff):
    """``login("editor")``: the test client gets a session of that role."""

    def do(role: str):
        staff(role)
        resp = client.post("/login", data={"email": f"{role}@test.local",
                                           "password": f"{role}-pw"})
        assert resp.status_code == 302, resp.data
        return client

    return do


def drain_outbox(app, skip: tuple[str, ...] = ()) -> list[str]:
    """Run every unsent outbox message in-process with the real task functions (unit tests
    have no worker). Messages whose task name starts with a prefix in ``skip`` are only
    marked sent. Returns the task names run, in order."""
    import workers.tasks  # noqa: F401  (registers the tasks)
    from webapp.core.models import OutboxMessage, utcnow
    from webapp.extensions import db

    celery = app.extensions["celery"]
    ran = []
    while True:
        msgs = db.session.scalars(db.select(OutboxMessage).where(OutboxMessage.sent_at.is_(None))
                                  .order_by(OutboxMessage.id)).all()
        if not msgs:
            return ran
        for msg in msgs:
            task, args = msg.task, list(msg.args)
            msg.sent_at = utcnow()
            db.session.commit()
            if skip and task.startswith(skip):
                continue
            celery.tasks[task].run(*args)
            ran.append(task)


@pytest.fixture
def drain(app):
    return lambda: drain_outbox(app)


@pytest.fixture
def pg_url():
    """A fresh PostgreSQL database for this test (dropped afterwards), so that counts a test
    asserts are its own."""
    base = _require_env("SOVA_TEST_DATABASE_URL")
    import uuid

    import sqlalchemy as sa

    name = f"sova_it_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def redis_url():
    """The Redis URL for integration tests (its database flushed before each test, so no
    message of an earlier test reaches this test's worker)."""
    url = _require_env("SOVA_TEST_REDIS_URL")
    import redis

    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture
def smtp_sink(monkeypatch):
    """A real SMTP server (aiosmtpd) on a free port: ``(url, received_messages)``.
    Also sets SOVA_TEST_SMTP_URL for servers started by the e2e fixtures."""
    import socket

    from aiosmtpd.controller import Controller
    from aiosmtpd.handlers import Message

    received = []

    class Sink(Message):
        def handle_message(self, message):
            received.append(message)

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    url = f"smtp://127.0.0.1:{port}"
    monkeypatch.setenv("SOVA_TEST_SMTP_URL", url)
    yield url, received
    controller.stop()
