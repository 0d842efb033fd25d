"""`python -m tests.bench.vote`: the 2009 §3.1 SMS vote callback at broadcast burst, against
``GET /healthz`` on the same server in the same run.

gunicorn (2 gthread workers, ``--threads`` each) on PostgreSQL, Redis as broker; a finished
2009 game whose vote is opened through the API. The load is the gateway simulator
(``webapp.votes.simulate``: real HTTP, 64 keep-alive connections): 100 000 messages with 10 %
repeats, 1 % invalid, 1 % resent and 1 % badly signed (``--quick``: 5 000). First the same
64 connections send as many ``GET /healthz`` as the burst has messages (the ceiling of this
server on this machine), then the burst. Prints JSON lines: healthz requests/s and p99; the
callback's answered messages/s, accepted (counted) votes/s, the ratio to healthz, p50/p99,
the server's peak memory (RSS of master + workers, sampled every 0.2 s), and whether the
tally read back through the API equals the counts the generator knows; then the close
(freezing the result of the whole log). Needs PostgreSQL, Redis and gunicorn:
SOVA_BENCH_DATABASE_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/postgres),
SOVA_BENCH_REDIS_URL (default redis://127.0.0.1:6379/14).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import sqlalchemy as sa

from tests.bench.stopping import stop_cleanly_on_sigterm
from tests.helpers import free_port
from tests.webapp.votes.helpers import EXPERTS
from webapp.votes.simulate import percentile, plan, send

ROOT = Path(__file__).resolve().parents[2]
SECRET = "bench-gateway-secret"


def emit(name: str, **values) -> None:
    print(json.dumps({"bench": name, **values}, ensure_ascii=False), flush=True)


def rss_mb(pid: int) -> float:
    """RSS (MiB) of process ``pid`` and its children (gunicorn master + workers)."""
    out = subprocess.run(
        ["ps", "-o", "rss=", "-p", str(pid), "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    return round(sum(int(x) for x in out.split()) / 1024, 1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its children (``/proc``)."""
    out = subprocess.run(
        ["ps", "-o", "pid=", "-p", str(pid), "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    total = 0
    for p in out.split():
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def db_commits(admin, name: str) -> int:
    """Committed transactions of database ``name`` so far (``pg_stat_database``)."""
    time.sleep(1.2)  # the statistics reach pg_stat_database about once a second
    with admin.connect() as conn:
        conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
        return conn.execute(
            sa.text("SELECT xact_commit FROM pg_stat_database WHERE datname = :n"), {"n": name}
        ).scalar_one()


class PeakMemory(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.2)


def healthz(port: int, total: int, clients: int) -> dict:
    """``total`` GET /healthz from ``clients`` keep-alive connections: rps and latencies."""
    lat: list[float] = []
    lock = threading.Lock()
    todo = iter(range(total))
    bad = [0]

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                break
            t0 = time.perf_counter()
            try:
                conn.request("GET", "/healthz")
                resp = conn.getresponse()
                resp.read()
                ok = resp.status == 200
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                ok = False
            mine.append((time.perf_counter() - t0) * 1000)
            if not ok:
                with lock:
                    bad[0] += 1
        conn.close()
        with lock:
            lat.extend(mine)

    start = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - start
    return {
        "requests": total,
        "errors": bad[0],
        "rps": round(total / seconds, 1),
        "p50_ms": round(percentile(lat, 50), 2),
        "p99_ms": round(percentile(lat, 99), 2),
    }


def prepare(url: str, instance: Path) -> tuple[int, str]:
    """A host with an API token and a finished 2009 game with a team; returns
    ``(game id, token)``. Runs the real operations in this process."""
    from datetime import date

    from webapp.accounts.operations import create_user
    from webapp.app import create_app
    from webapp.extensions import db
    from webapp.games.season.operations import create_game, create_season, create_team
    from webapp.tasks.outbox import commit

    app = create_app(
        {
            "SOVA_DATABASE_URL": url,
            "SOVA_INSTANCE_PATH": str(instance),
            "SOVA_BROKER_URL": "memory://",
            "SOVA_OUTBOX_AUTOSEND": False,
        }
    )
    with app.app_context():
        _, token = create_user("host@bench.local", "host", password="host-pw", with_token=True)
        season = create_season("Сезон 2009", "2009")
        team = create_team("Команда бенча", EXPERTS[0], EXPERTS)
        game = create_game(
            season.id,
            "qualifying",
            date(2009, 3, 1),
            {"blitz": 4, "superblitz": 9, "sector13": 13},
            team_id=team.id,
        )
        game.status = "finished"
        gid = game.id
        commit()
        db.engine.dispose()
    return gid, token


def api(port: int, method: str, path: str, token: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=600) as resp:
        return json.loads(resp.read())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    parser.add_argument("--quick", action="store_true", help="5 000 messages")
    parser.add_argument(
        "--rate", type=float, default=0, help="offered messages/s (0: as fast as answered)"
    )
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    if args.quick:
        args.total = 5_000
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists() and not shutil.which("gunicorn"):
        emit("vote_sms", skipped="gunicorn is not installed")
        return 0
    base = os.environ.get(
        "SOVA_BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    redis_url = os.environ.get("SOVA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    name = f"sova_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
    instance = Path(tempfile.mkdtemp(prefix="sova-bench-vote-"))
    env = dict(
        os.environ,
        SOVA_DATABASE_URL=url,
        SOVA_BROKER_URL=redis_url,
        SOVA_REDIS_URL=redis_url,
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_RATELIMIT_ENABLED="0",
        SOVA_SMS_SECRET=SECRET,
        PYTHONWARNINGS="ignore",
    )
    bindir = Path(sys.executable).parent
    subprocess.run(
        [str(bindir / "sova"), "db", "upgrade", "heads"], env=env, check=True, capture_output=True
    )
    os.environ.update(SOVA_INSTANCE_PATH=str(instance))
    game_id, token = prepare(url, instance)
    port = free_port()
    server = subprocess.Popen(
        [
            str(gunicorn),
            "-w",
            str(args.workers),
            "-k",
            "gthread",
            "--threads",
            str(args.threads),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "--backlog",
            "2048",
            "webapp:create_app()",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        vote = api(port, "POST", f"/api/v1/games/{game_id}/vote", token, {"action": "open"})["vote"]
        p = plan(args.total, SECRET, candidates=len(vote["candidates"]), seed=18)
        cpu0 = cpu_seconds(server.pid)
        health = healthz(port, args.total, args.clients)
        health["server_cpu_ms_per_request"] = round(
            (cpu_seconds(server.pid) - cpu0) * 1000 / args.total, 3
        )
        emit("vote_healthz", clients=args.clients, **health)
        commits0, cpu0 = db_commits(admin, name), cpu_seconds(server.pid)
        memory = PeakMemory(server.pid)
        memory.start()
        profiler = None
        if os.environ.get("BENCH_PYSPY"):  # py-spy's collapsed stacks of the burst (a file)
            profiler = subprocess.Popen(
                ["py-spy", "record", "--pid", str(server.pid), "--subprocesses", "--nonblocking"]
                + ["--format", "raw", "--rate", "200", "-o", os.environ["BENCH_PYSPY"]],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        report = send(
            f"http://127.0.0.1:{port}",
            p.messages,
            rate=args.rate,
            concurrency=args.clients,
            retries=20,
            timeout=30,
        )
        memory.stop.set()
        memory.join()
        cpu = cpu_seconds(server.pid) - cpu0
        commits = db_commits(admin, name) - commits0
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)
            profiler.wait(timeout=60)
        tally = api(port, "GET", f"/api/v1/games/{game_id}/vote", token)["vote"]
        expected = p.expected()
        got = {
            "votes": {str(c["n"]): c["votes"] for c in tally["candidates"] if c["votes"]},
            "counted": tally["counted"],
            "repeats": tally["repeats"],
            "invalid": tally["invalid"],
            "late": tally["late"],
        }
        want = {k: expected[k] for k in got}
        answered = sum(report.answers.values())
        emit(
            "vote_sms",
            clients=args.clients,
            messages=args.total,
            workers=args.workers,
            threads=args.threads,
            offered_rate=args.rate or "max",
            group_commit=os.environ.get("SOVA_VOTE_GROUP_COMMIT", "1") != "0",
            short_path=os.environ.get("SOVA_SMS_SHORT_PATH", "1") != "0",
            load_average=[round(x, 2) for x in os.getloadavg()],
            cpu_count=os.cpu_count(),
            seconds=round(report.seconds, 2),
            messages_per_s=round(answered / report.seconds, 1),
            votes_per_s=round(report.answers.get("counted", 0) / report.seconds, 1),
            ratio_to_healthz=round(answered / report.seconds / health["rps"], 3),
            p50_ms=round(percentile(report.latencies_ms, 50), 2),
            p99_ms=round(percentile(report.latencies_ms, 99), 2),
            # per answered message: the server's CPU (master + workers) and the database's
            # committed transactions — the costs that do not depend on the machine's load
            server_cpu_ms_per_message=round(cpu * 1000 / answered, 3),
            db_commits_per_message=round(commits / answered, 3),
            retries=report.retries,
            failed=report.failed,
            answers=dict(report.answers),
            peak_rss_mb=memory.peak,
            rss_after_mb=rss_mb(server.pid),
            expected=want,
            tally=got,
            tally_equals_expected=got == want,
            badsig_rejected=report.answers.get("401", 0) == expected["rejected_badsig"],
        )
        t0 = time.monotonic()
        closed = api(port, "POST", f"/api/v1/games/{game_id}/vote", token, {"action": "close"})[
            "vote"
        ]
        emit(
            "vote_close",
            messages_in_log=args.total - expected["rejected_badsig"] - expected["resent"],
            seconds=round(time.monotonic() - t0, 3),
            counted=closed["counted"],
            log_sha256=closed["log_sha256"],
        )
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
        shutil.rmtree(instance, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
