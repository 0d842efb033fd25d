"""A parallel burst of wrong guesses against a real gunicorn with four
workers (separate processes) on PostgreSQL is counted exactly, no more than the threshold
of passwords are checked, and the right password after the limit is refused. Once with
the database counter (atomic UPDATE … RETURNING), once with Redis (INCR, own DB number).
Skipped without SOVA_TEST_DATABASE_URL / SOVA_TEST_REDIS_URL; fails under CI=true."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import free_port

BURST = 20
THRESHOLD = 5


@pytest.fixture(params=["database", "redis"])
def server(request, pg_url, tmp_path):
    import sqlalchemy as sa
    from flask_migrate import upgrade

    from webapp.accounts.operations import create_user
    from webapp.app import create_app
    from webapp.extensions import db

    # the per-address rate limit is off: it is not what this test is about (with Redis it
    # is shared by the workers and would answer part of the burst itself)
    env = {
        **os.environ,
        "SOVA_DATABASE_URL": pg_url,
        "SOVA_BROKER_URL": "memory://",
        "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
        "SOVA_RATELIMIT_ENABLED": "0",
        "SOVA_OUTBOX_AUTOSEND": "0",
    }
    env.pop("SOVA_REDIS_URL", None)
    if request.param == "redis":
        redis_url = request.getfixturevalue("redis_url")  # flushed: this test's DB only
        env["SOVA_REDIS_URL"] = redis_url
    app = create_app({k: v for k, v in env.items() if k.startswith("SOVA_")})
    with app.app_context():
        upgrade(revision="heads")
        create_user("editor@test.local", "editor", password="editor-pw")
        db.session.commit()
    port = free_port()
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "-w",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "webapp:create_app()",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("gunicorn did not start")
        time.sleep(0.3)

    def failed_logins() -> int:
        with app.app_context():
            return db.session.execute(
                sa.text(
                    'SELECT failures FROM login_lock JOIN "user" ON "user".id = user_id'
                    " WHERE email = 'editor@test.local' AND source = 'addr:127.0.0.1'"
                )
            ).scalar()

    try:
        yield url, failed_logins, request.param, env.get("SOVA_REDIS_URL")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def login_client(url: str):
    """A client holding a login page's session cookie and CSRF token."""
    import httpx

    client = httpx.Client(base_url=url, timeout=60)
    page = client.get("/login").text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    return client, token


def test_a_parallel_burst_is_counted_exactly(server):
    url, failed_logins, mode, redis_url = server
    clients = [login_client(url) for _ in range(BURST)]
    start = threading.Barrier(BURST)
    codes: list[int] = []

    def guess(client, token):
        start.wait()
        r = client.post(
            "/login", data={"email": "editor@test.local", "password": "wrong", "csrf_token": token}
        )
        codes.append(r.status_code)

    threads = [threading.Thread(target=guess, args=c) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # exactly THRESHOLD passwords were checked (401); every other attempt refused unchecked
    assert sorted(codes) == [401] * THRESHOLD + [429] * (BURST - THRESHOLD), (mode, codes)
    if mode == "redis":  # Redis counts; the database keeps a copy for the admins
        import redis

        assert (
            int(redis.Redis.from_url(redis_url).get("sova:login-attempts:1:addr:127.0.0.1"))
            == BURST
        )
    assert failed_logins() == BURST
    client, token = login_client(url)
    r = client.post(
        "/login", data={"email": "editor@test.local", "password": "editor-pw", "csrf_token": token}
    )
    assert r.status_code == 429
    assert "Вход временно заблокирован" in r.text
