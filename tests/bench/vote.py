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
tally read back through the API equals the counts the generator knows; before that, the
burst's course: one ``vote_segment`` line per ``--segment`` answers (the rate, p50/p99, the
CPU per answer of the server, the senders and the database's backends, sampled once a
second, and the database's counters: :class:`Sampler`), where a cost that grows with the
log shows; then the close (freezing the result of the whole log). Needs PostgreSQL, Redis and gunicorn:
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


def proc_cpu(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` alone, or None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: What the sampler reads of the bench's database once a second (statistics as the
#: server last flushed them: about once a second)
_SAMPLE = sa.text(
    """
    SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()),
           (SELECT mxid_age(datminmxid) FROM pg_database WHERE datname = current_database()),
           pg_current_wal_lsn() - '0/0'::pg_lsn,
           (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),
           (SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables
            WHERE relname IN ('vote', 'vote_message')),
           (SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)
            FROM pg_stat_user_tables WHERE relname IN ('vote', 'vote_message')),
           pg_indexes_size('vote_message'),
           pg_relation_size('vote')
    """
)
_BACKENDS = sa.text(
    "SELECT pid, backend_type, datname FROM pg_stat_activity "
    "WHERE datname = :n OR backend_type IN ('checkpointer', 'walwriter', 'background writer')"
)


def machine_ticks() -> tuple[int, int, int]:
    """``(busy, idle, stolen)`` clock ticks of all CPUs since boot (``/proc/stat``): what
    the machine had to give, what it left unused and what its hypervisor kept."""
    f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = f
    return user + nice + system + irq + softirq, idle + iowait, steal


class Sampler(threading.Thread):
    """Once a second during the burst: the CPU seconds so far of the server (gunicorn),
    of this process (the simulator's senders), of the PostgreSQL backends and autovacuum
    workers of the bench's database and of PostgreSQL's checkpointer/WAL writer (shared
    with whatever else the server serves), and the database's counters — to put beside
    each segment of the burst (:func:`segments`)."""

    COLUMNS = (
        "server_cpu",
        "client_cpu",
        "pg_cpu",
        "autovacuum_cpu",
        "pg_aux_cpu",
        "commits",
        "multixacts",
        "wal_bytes",
        "checkpoints",
        "dead_tuples",
        "autovacuums",
        "index_bytes",
        "vote_heap_bytes",
        "load_1m",
        "busy_ticks",
        "idle_ticks",
        "steal_ticks",
    )

    def __init__(self, server_pid: int, url: str, name: str, start: float):
        super().__init__(daemon=True)
        self.server_pid, self.name, self.t0 = server_pid, name, start
        self.engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
        self.samples: list[tuple[float, ...]] = []
        self.stop = threading.Event()
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}

    def _pg_cpu(self, conn) -> tuple[float, float, float]:
        for pid, kind, datname in conn.execute(_BACKENDS, {"n": self.name}):
            cpu = proc_cpu(pid)
            if cpu is None:
                continue
            group = "aux" if datname is None else ("av" if "autovacuum" in kind else "pg")
            if pid not in self._first:
                # a backend there before the burst counts from the first sample
                self._first[pid] = cpu if not self.samples else 0.0
            self._last[pid] = (group, cpu)
        sums = {"pg": 0.0, "av": 0.0, "aux": 0.0}
        for pid, (group, cpu) in self._last.items():
            sums[group] += cpu - self._first[pid]
        return sums["pg"], sums["av"], sums["aux"]

    def sample(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_stat_clear_snapshot()"))
            pg, av, aux = self._pg_cpu(conn)
            row = conn.execute(_SAMPLE).one()
        self.samples.append(
            (
                time.monotonic() - self.t0,
                cpu_seconds(self.server_pid),
                time.process_time(),
                pg,
                av,
                aux,
                *(float(x or 0) for x in row),
                os.getloadavg()[0],
                *machine_ticks(),
            )
        )

    def run(self):
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(1.0)

    def at(self, t: float) -> list[float]:
        """Every column linearly interpolated at ``t`` seconds from the start."""
        s = self.samples
        if t <= s[0][0]:
            return list(s[0][1:])
        for a, b in zip(s, s[1:], strict=False):
            if a[0] <= t <= b[0]:
                w = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
                return [x + (y - x) * w for x, y in zip(a[1:], b[1:], strict=True)]
        return list(s[-1][1:])


def segments(answered_at: list[float], latencies: list[float], size: int, sampler: Sampler):
    """Per ``size`` answers in the order they came: the rate, p50/p99, and per answer the
    CPU (ms) of the server, the senders, the database's backends and autovacuum, the
    commits, WAL bytes and multixacts; at the segment's end the dead tuples, the
    autovacuum/analyze runs, checkpoints so far and the vote_message indexes' size."""
    pairs = sorted(zip(answered_at, latencies, strict=True))
    out = []
    for k in range(0, len(pairs), size):
        part = pairs[k : k + size]
        t0 = pairs[k - 1][0] if k else 0.0
        t1 = part[-1][0]
        a, b = sampler.at(t0), sampler.at(t1)
        d = dict(zip(Sampler.COLUMNS, (y - x for x, y in zip(a, b, strict=True)), strict=True))
        end = dict(zip(Sampler.COLUMNS, b, strict=True))
        first = dict(zip(Sampler.COLUMNS, sampler.samples[0][1:], strict=True))
        n = len(part)
        ticks = d["busy_ticks"] + d["idle_ticks"] + d["steal_ticks"]
        lat = [x[1] for x in part]
        out.append(
            {
                "answers": f"{k + 1}-{k + n}",
                "seconds": round(t1 - t0, 2),
                "per_s": round(n / (t1 - t0), 1) if t1 > t0 else None,
                "p50_ms": round(percentile(lat, 50), 1),
                "p99_ms": round(percentile(lat, 99), 1),
                "server_cpu_ms": round(d["server_cpu"] * 1000 / n, 3),
                "client_cpu_ms": round(d["client_cpu"] * 1000 / n, 3),
                "pg_cpu_ms": round(d["pg_cpu"] * 1000 / n, 3),
                "autovacuum_cpu_ms": round(d["autovacuum_cpu"] * 1000 / n, 3),
                "pg_aux_cpu_ms": round(d["pg_aux_cpu"] * 1000 / n, 3),
                "commits": round(d["commits"] / n, 3),
                "wal_bytes": round(d["wal_bytes"] / n),
                "multixacts": round(d["multixacts"] / n, 3),
                "checkpoints": int(end["checkpoints"] - first["checkpoints"]),
                "dead_tuples": int(end["dead_tuples"]),
                "autovacuums": int(end["autovacuums"]),
                "index_mb": round(end["index_bytes"] / 2**20, 1),
                "vote_heap_kb": round(end["vote_heap_bytes"] / 1024),
                "load_1m": round(end["load_1m"], 2),
                # shares of the machine's CPU time over the segment
                **{
                    f"{k}_share": round(d[f"{k}_ticks"] / ticks, 3) if ticks else None
                    for k in ("busy", "idle", "steal")
                },
            }
        )
    return out


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
        "--segment", type=int, default=10_000, help="answers per line of the burst's course"
    )
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
        sampler = Sampler(server.pid, url, name, time.monotonic())
        sampler.sample()
        sampler.start()
        report = send(
            f"http://127.0.0.1:{port}",
            p.messages,
            rate=args.rate,
            concurrency=args.clients,
            retries=20,
            timeout=30,
        )
        memory.stop.set()
        sampler.stop.set()
        memory.join()
        sampler.join()
        sampler.sample()
        sampler.engine.dispose()
        for line in segments(report.answered_at, report.latencies_ms, args.segment, sampler):
            emit("vote_segment", **line)
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
