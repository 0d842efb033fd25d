"""Soak: viewers submit for minutes against the real web server and worker pool.

``python -m tests.bench.soak [--count 10000 --seconds 600 --clients 16 --web-workers 4
--concurrency 4 | --quick]`` (``make bench`` runs the full size). Starts, in a temporary folder:
gunicorn serving ``webapp.app:create_app()``, a Celery worker pool and, on PostgreSQL, the
outbox relay process (``sova outbox relay``, as in production: requests end at their commit);
on SQLite the web process sends on commit. A final in-process sweep stands in for beat. The
database and broker are PostgreSQL + Redis when ``SOVA_TEST_DATABASE_URL`` and
``SOVA_TEST_REDIS_URL`` are set (a fresh database, dropped afterwards), else SQLite + kombu's
SQLAlchemy broker.

Submissions are paced evenly over ``--seconds`` by ``--clients`` threads. Prints one JSON
object: accepted (2xx), refused (4xx), errors (5xx or transport), stored, pre-checked,
submit latency p50/p95/p99 (ms), submission→pre-check report p50/p95/p99 (s, from the
database's ``created_at`` columns), and the peak resident memory (MiB, summed over the
processes of each side, from ``/proc/<pid>/status`` VmHWM). Exit status 1 if anything was
lost (stored ≠ accepted or pre-checked ≠ stored).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.bench.figures import percentile
from tests.bench.stopping import stop_cleanly_on_sigterm
from tests.helpers import free_port
from webapp.tasks.celery import WORKER_FLAGS

ROOT = Path(__file__).resolve().parents[2]


def tree_pids(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            children = []
        todo.extend(int(c) for c in children)
    return out


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    total = 0
    for p in tree_pids(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


class PeakMemory(threading.Thread):
    """Samples the summed RSS of a process tree every 0.5 s; ``.peak`` in MiB."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mib(self.pid))
            time.sleep(0.5)


def services(tmp: Path):
    """(env, cleanup): SOVA_* settings for the soak's own database and broker."""
    env = dict(
        os.environ,
        SOVA_INSTANCE_PATH=str(tmp / "instance"),
        SOVA_RATELIMIT_ENABLED="0",
        SOVA_OUTBOX_AUTOSEND="1",
    )
    pg, redis_url = os.environ.get("SOVA_TEST_DATABASE_URL"), os.environ.get("SOVA_TEST_REDIS_URL")
    if pg and redis_url:
        import redis
        import sqlalchemy as sa

        name = f"sova_soak_{uuid.uuid4().hex[:8]}"
        admin = sa.create_engine(pg, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        redis.Redis.from_url(redis_url).flushdb()
        env.update(
            SOVA_DATABASE_URL=sa.engine.make_url(pg)
            .set(database=name)
            .render_as_string(hide_password=False),
            SOVA_BROKER_URL=redis_url,
            SOVA_REDIS_URL=redis_url,
            SOVA_OUTBOX_AUTOSEND="0",
        )

        def cleanup():
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

        return env, "postgresql+redis", cleanup
    env.update(
        SOVA_DATABASE_URL=f"sqlite:///{tmp / 'sova.sqlite'}",
        SOVA_BROKER_URL=f"sqla+sqlite:///{tmp / 'broker.sqlite'}",
    )
    return env, "sqlite", lambda: None


def make_app(env: dict):
    from webapp.app import create_app

    return create_app({k: v for k, v in env.items() if k.startswith("SOVA_")})


def counts(app) -> dict:
    import sqlalchemy as sa

    from webapp.extensions import db

    with app.app_context():
        stored = db.session.scalar(sa.text("SELECT count(*) FROM question"))
        checked = db.session.scalar(
            sa.text("SELECT count(DISTINCT question_id) FROM moderation_report")
        )
        db.session.remove()
    return {"stored": stored, "prechecked": checked}


def precheck_delays(app) -> list[float]:
    import sqlalchemy as sa

    from webapp.extensions import db
    from webapp.moderation.models import ModerationReport
    from webapp.submissions.models import Question

    with app.app_context():
        rows = db.session.execute(
            sa.select(Question.created_at, sa.func.min(ModerationReport.created_at))
            .join(ModerationReport, ModerationReport.question_id == Question.id)
            .group_by(Question.id, Question.created_at)
        ).all()
        db.session.remove()
    return [(done - made).total_seconds() for made, done in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4, help="Celery worker processes")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small size for BENCH_QUICK=1: 500 submissions over 60 s",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.count, args.seconds = 500, 60.0
    stop_cleanly_on_sigterm()

    import requests
    from flask_migrate import upgrade

    tmp = Path(tempfile.mkdtemp(prefix="sova-soak-"))
    env, backend, cleanup = services(tmp)
    app = make_app(env)
    with app.app_context():
        upgrade(revision="heads")
    port = free_port()
    web = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-w",
            str(args.web_workers),
            "--threads",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "webapp.app:create_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "web.log", "w"),
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--pool=prefork",
            f"--concurrency={args.concurrency}",
            "--loglevel=WARNING",
            *WORKER_FLAGS,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "worker.log", "w"),
        start_new_session=True,
    )
    relay = None
    if env["SOVA_OUTBOX_AUTOSEND"] == "0":
        relay = subprocess.Popen(
            [str(Path(sys.executable).parent / "sova"), "outbox", "relay"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(tmp / "relay.log", "w"),
            start_new_session=True,
        )
    web_mem, worker_mem = PeakMemory(web.pid), PeakMemory(worker.pid)
    relay_mem = PeakMemory(relay.pid) if relay else None
    for sampler in (web_mem, worker_mem, relay_mem):
        if sampler:
            sampler.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("web server did not start; see " + str(tmp / "web.log"))
            time.sleep(0.3)

        latencies: list[float] = []
        codes: dict[str, int] = {}
        lock = threading.Lock()
        session = threading.local()
        start = time.monotonic()
        interval = args.seconds / max(1, args.count)

        def one(i: int) -> None:
            time.sleep(max(0.0, start + i * interval - time.monotonic()))
            if not hasattr(session, "s"):
                session.s = requests.Session()
            body = {
                "question": f"Нагрузочный вопрос номер {i}: что выдержит сова за десять "
                f"минут? Вариант {uuid.uuid4().hex[:6]}.",
                "answer": f"Ответ {i}",
                "authors": [{"name": f"Зритель {i % 997}", "city": "Минск"}],
                "email": f"soak{i}@example.org",
                "consent": True,
            }
            t = time.perf_counter()
            try:
                code = str(
                    session.s.post(f"{base}/api/v1/submissions", json=body, timeout=30).status_code
                )
            except requests.RequestException as exc:
                code = type(exc).__name__
            elapsed = time.perf_counter() - t
            with lock:
                latencies.append(elapsed)
                codes[code] = codes.get(code, 0) + 1

        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(one, range(args.count)))
        load_seconds = time.monotonic() - start
        accepted = sum(n for c, n in codes.items() if c.startswith("2"))
        # wait for the pool to finish pre-checking (sweep once, as beat would)
        from datetime import timedelta

        from webapp.tasks.outbox import sweep

        wait_until = time.monotonic() + max(120, args.seconds)
        swept = False
        while time.monotonic() < wait_until:
            c = counts(app)
            if c["prechecked"] >= c["stored"]:
                break
            if not swept and time.monotonic() - start > load_seconds + 30:
                with app.app_context():
                    sweep(older_than=timedelta(seconds=30))
                swept = True
            time.sleep(1)
        c = counts(app)
        delays = precheck_delays(app)
        result = {
            "bench": "soak",
            "backend": backend,
            "count": args.count,
            "seconds": round(load_seconds, 1),
            "clients": args.clients,
            "web_workers": args.web_workers,
            "worker_concurrency": args.concurrency,
            "accepted": accepted,
            "refused_4xx": sum(n for k, n in codes.items() if k.startswith("4")),
            "errors": sum(n for k, n in codes.items() if k[0] not in "24"),
            "codes": codes,
            "stored": c["stored"],
            "prechecked": c["prechecked"],
            "submit_ms": {f"p{p}": round(percentile(latencies, p) * 1000, 1) for p in (50, 95, 99)},
            "precheck_s": {f"p{p}": round(percentile(delays, p), 2) for p in (50, 95, 99)}
            if delays
            else None,
            "peak_mib": {
                "web": round(web_mem.peak, 1),
                "worker": round(worker_mem.peak, 1),
                "relay": round(relay_mem.peak, 1) if relay_mem else None,
            },
        }
        print(json.dumps(result, ensure_ascii=False), flush=True)
        lost = c["stored"] != accepted or c["prechecked"] != c["stored"]
        return 1 if lost else 0
    finally:
        for sampler in (web_mem, worker_mem, relay_mem):
            if sampler:
                sampler.stop.set()
        for proc in (web, worker, relay):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
        from webapp.extensions import db

        with app.app_context():
            db.session.remove()
            db.engine.dispose()
        cleanup()


if __name__ == "__main__":
    sys.exit(main())
