"""``sova health`` tells the truth while a real worker renders PDFs, over the embedded
SQLAlchemy broker of ``make run`` and over Redis.

A game is played and closed in this process (SQLite, in the test's instance folder): seven
gift agreements are owed. A real ``sova worker --concurrency 1`` and ``sova beat`` run on
the same instance; the agreements' tasks are sent to the broker. Once the worker's
heartbeat says it is busy, its pool process is frozen mid-render (SIGSTOP: a render that
takes as long as the test needs) and the real ``sova health worker`` and ``sova health``
commands run: alive, busy 1, every check ok, exit 0. Thawed, the worker renders all seven;
stopped warmly (SIGTERM), it is reported dead (exit 1). The remote-control ping these
commands used before answered ``"alive": false`` over the embedded broker. Slow (real
processes); the Redis case needs ``redis-server`` (a private one on a free port).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from tests.helpers import PRIZE_APP, VIEWERS_WIN, wait_for
from webapp.core.models import Document, OutboxMessage, utcnow
from webapp.extensions import db

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SOVA = str(Path(sys.executable).parent / "sova")


@pytest.fixture
def app(make_app):
    app = make_app(**PRIZE_APP)
    with app.app_context():
        yield app


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _writable(database: str) -> bool:
    """Whether a write transaction can start on the SQLite file now (no writer holds it)."""
    conn = sqlite3.connect(database, timeout=0.5, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _running_soon(env, seconds: float = 4.0) -> bool:
    """Whether the worker's heartbeat says a task is running (``busy`` 1) within
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _code, out = _health(env, "worker")
        if out.get("busy") == 1:
            return True
        time.sleep(0.3)
    return False


def _health(env, *args) -> tuple[int, dict]:
    run = subprocess.run(
        [SOVA, "health", *args], env=env, capture_output=True, text=True, timeout=120
    )
    return run.returncode, json.loads(run.stdout)


@pytest.mark.parametrize("broker", ["embedded", "redis"])
def test_health_is_true_while_the_worker_renders(app, api, played, broker, tmp_path):
    from celery import Celery

    from tests.fixtures.faults import PrivateRedis

    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    agreements = db.session.scalars(
        db.select(Document.prize_id).where(Document.kind == "gift_agreement")
    ).all()
    assert len(agreements) == 7
    # the played game's earlier tasks count as done: only the agreements are left to do
    db.session.execute(db.update(OutboxMessage).values(done_at=utcnow()))
    db.session.commit()
    database = db.engine.url.database
    db.session.remove()

    instance = Path(app.config["SOVA_INSTANCE_PATH"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOVA_")}
    env.update(
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_DATABASE_URL=app.config["SQLALCHEMY_DATABASE_URI"],
        SOVA_HEARTBEAT_SECONDS="1",
        SOVA_PRIZE_COMMISSION=";".join(PRIZE_APP["SOVA_PRIZE_COMMISSION"]),
    )
    redis = None
    if broker == "redis":
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        redis = PrivateRedis(tmp_path)
        redis.start()
        env["SOVA_BROKER_URL"] = redis.url
        broker_url = redis.url
    else:
        broker_url = f"sqla+sqlite:///{instance / 'broker.sqlite'}"  # make run's default
    procs = []
    logs = []
    try:
        for name, cmd in (("worker", ["worker", "--concurrency", "1"]), ("beat", ["beat"])):
            log = open(tmp_path / f"{name}.log", "w")
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [SOVA, *cmd],
                    env=env,
                    cwd=instance,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        worker = procs[0]
        wait_for(
            lambda: " ready." in (tmp_path / "worker.log").read_text(), 180, "the worker ready"
        )
        log_path = tmp_path / "worker.log"
        [child] = _children(worker.pid)
        probe = Celery("probe", broker=broker_url)
        try:
            # until one is caught mid-render, each a little later after it is received
            for prize_id, pause in zip(agreements, (0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8), strict=True):
                with warnings.catch_warnings():  # kombu's SQLAlchemy transport uses noload
                    warnings.simplefilter("ignore", DeprecationWarning)
                    task = probe.send_task("prizes.issue_agreement", args=[prize_id]).id
                wait_for(
                    lambda task=task: f"[{task}] received" in log_path.read_text(),
                    60,
                    "the task",
                    every=0.01,
                )
                time.sleep(pause)  # the child takes the task a moment after «received»
                os.kill(child, signal.SIGSTOP)  # frozen mid-render: a render as long as we need
                # caught in the layout, not in the instant it writes (a child frozen inside
                # a SQLite write would lock every writer: no real render does that), and
                # after it took the task (frozen before, the task is received, not running)
                if (
                    f"[{task}] succeeded" not in log_path.read_text()
                    and _writable(database)
                    and _running_soon(env)
                ):
                    break
                os.kill(child, signal.SIGCONT)
            else:
                pytest.fail("no render was caught in progress")
        finally:
            probe.close()
        try:
            time.sleep(2)  # two heartbeats
            code, out = _health(env, "worker")
            assert code == 0, out
            assert out["alive"] is True and out["busy"] == 1 and out["age_seconds"] < 30
            wait_for(lambda: _health(env)[0] == 0, 60, "the beat's heartbeat", every=1)
            code, out = _health(env)
            assert code == 0 and out["healthy"] is True, out
            assert set(out["checks"]) == {"database", "broker", "worker", "beat"}
            assert all(check["ok"] for check in out["checks"].values())
            assert out["checks"]["worker"]["nodes"][0]["busy"] == 1
            with app.app_context():
                pending = db.session.scalar(
                    db.select(db.func.count())
                    .select_from(Document)
                    .where(Document.kind == "gift_agreement", Document.status == "pending")
                )
                db.session.remove()
            assert pending >= 1  # the check ran while agreements were still being rendered
        finally:
            os.kill(child, signal.SIGCONT)

        def rendered() -> bool:
            with app.app_context():
                n = db.session.scalar(
                    db.select(db.func.count())
                    .select_from(Document)
                    .where(Document.kind == "gift_agreement", Document.status == "ready")
                )
                db.session.remove()
            return n == 7

        wait_for(rendered, 240, "the seven agreements", every=1)
        os.killpg(worker.pid, signal.SIGTERM)  # warm shutdown: the heartbeat row goes
        worker.wait(60)
        code, out = _health(env, "worker")
        assert code == 1 and out["alive"] is False and out["age_seconds"] is None
        code, out = _health(env)
        assert code == 1 and out["checks"]["worker"] == {"ok": False, "nodes": []}
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
        for log in logs:
            log.close()
        if redis is not None:
            redis.stop()
