"""A Celery worker outlives its Redis broker restarting empty.

In a clean-clone run of the cluster test a worker died on the Redis restart ("Unrecoverable
error: AttributeError 'NoneType' object has no attribute 'hostname'": Celery's gossip step
closing its channel on a connection already dropped, celery/kombu#582). ``sova worker``
now runs with ``webapp.tasks.celery.WORKER_FLAGS`` (no gossip, mingle or event heartbeat) and
retries the broker for ever (``broker_connection_max_retries=None``).

Here a real ``sova worker`` (the checkout's console script, SQLite database in a temporary
instance folder) runs on a private ``redis-server`` (a free port on 127.0.0.1, no
persistence — never the machine's shared Redis). The broker is killed (SIGKILL) and started
again empty twice; after each restart the worker answers a remote-control ping through the
new broker, ``sova health worker`` (its heartbeat in the database) says it is alive at the end, and
after the second it runs a task sent then. The
worker process is the same one throughout and its log has no unrecoverable error. Needs
``redis-server``; a few tens of seconds (slow).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import free_port, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

BIN = Path(sys.executable).parent


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)


def test_worker_survives_its_redis_broker_restarting_empty(tmp_path, sqlite_template):
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        pytest.skip("redis-server is not installed")
    from cryptography.fernet import Fernet

    port = free_port()
    broker = f"redis://127.0.0.1:{port}/0"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOVA_", "PROMETHEUS_"))}
    env.update(
        {
            "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),  # SQLite database here
            "SOVA_BROKER_URL": broker,
            "SOVA_SECRET_KEY": "broker-restart-test-" + "k" * 32,
            "SOVA_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        }
    )
    sova = str(BIN / "sova")
    # the instance's database: a copy of the session's migrated one (``sova db upgrade`` in a
    # process of its own is tested elsewhere)
    (tmp_path / "instance").mkdir()
    shutil.copy(sqlite_template, tmp_path / "instance" / "sova.sqlite")

    def start_redis() -> subprocess.Popen:
        proc = subprocess.Popen(
            [redis_server, "--bind", "127.0.0.1", "--port", str(port), "--save", ""]
            + ["--appendonly", "no", "--dir", str(tmp_path)],
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )

        def up() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    return sock.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        wait_for(up, 30, "redis-server")
        return proc

    from celery import Celery

    node = f"celery@{socket.gethostname()}"

    def pinged() -> bool:
        """The worker answers a remote-control ping through the broker: what ``sova health
        worker`` asks (run once at the end), here from this process, so that polling through
        a reconnect does not start a process (1–2 CPU s each) every fifth of a second."""
        probe = Celery("probe", broker=broker)
        try:
            return any(node in reply for reply in probe.control.ping([node], timeout=1))
        except Exception:  # the broker is still down
            return False
        finally:
            probe.close()

    log_path = tmp_path / "worker.log"
    redis = start_redis()
    with open(log_path, "wb") as log:
        worker = subprocess.Popen(
            [sova, "worker", "--concurrency", "1"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: b" ready." in log_path.read_bytes(), 180, "the worker to be ready")
        wait_for(pinged, 60, "the worker to answer a ping")
        for _ in range(2):
            os.killpg(redis.pid, signal.SIGKILL)
            redis.wait(30)
            # the worker sees the broker gone: its first reconnect fails, its retry finds the new one
            time.sleep(1)
            redis = start_redis()
            wait_for(pinged, 120, "the worker to answer a ping through the new broker")
            assert worker.poll() is None, log_path.read_text()[-3000:]

        health = subprocess.run(
            [sova, "health", "worker", "--timeout", "3"], env=env, capture_output=True, timeout=60
        )
        assert health.returncode == 0, health.stdout + health.stderr

        probe = Celery("probe", broker=broker)
        try:
            sent = probe.send_task("outbox.sweep")
        finally:
            probe.close()
        wait_for(
            lambda: f"outbox.sweep[{sent.id}] succeeded".encode() in log_path.read_bytes(),
            120,
            "the worker to run a task sent after the restarts",
        )
        assert worker.poll() is None
    finally:
        _stop(worker)
        _stop(redis)
    text = log_path.read_text()
    assert "Unrecoverable error" not in text
    assert "Error on restarting" not in text
    assert text.count("Connected to redis://") >= 3  # start, then once per restart
