"""The cluster test (issue 16): Sova on four hosts made of network namespaces, with faults.

Hosts (``ip netns``; each has one veth on a bridge private to the test, addresses in
``10.231.<n>.0/24`` picked free at start): **data** (a private PostgreSQL cluster and a
private ``redis-server`` without persistence, started for the test — never the machine's
shared servers), **app1** and **app2** (gunicorn, a Celery worker and the outbox relay each;
beat on app1 only), **front** (nginx balancing the two app hosts). An aiosmtpd sink listens on
the bridge address. The client (this process) sends a steady stream of submissions and the
API work of one game (approve, sign off, season, game, assign, envelopes, events, close →
gift agreements) through nginx while it

1. kills app2 outright (SIGKILL of every process in its namespace), then brings it back;
2. restarts Redis empty;
3. restarts PostgreSQL (``pg_ctl restart -m immediate``).

Then it waits until nothing is owed and counts from the database and the sink: every
acknowledged (201) submission stored once and pre-checked once, every stored question's
e-mail sent once, the envelopes and every agreement rendered once, nothing pending.

Run: ``make cluster-test`` (pytest, tests/cluster/test_cluster.py) or
``python -m tests.cluster.cluster --write-docs`` (also writes the figures into
docs/operations.md, "Cluster test figures"). Needs root (namespaces), nginx, redis-server and
the PostgreSQL server binaries. Everything it made is removed at the end, also on failure or
Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# TODO(integrator): run the hosts from the installed wheel: point SOVA_CLUSTER_BIN at the
# bin/ folder of the environment the wheel is installed in (the only change needed; the
# processes below are started as `<bin>/gunicorn`, `<bin>/celery`, `<bin>/sova`).
BIN = Path(os.environ.get("SOVA_CLUSTER_BIN", ROOT / ".venv" / "bin"))
DOCS = ROOT / "docs" / "operations.md"
MARK_START, MARK_END = "<!-- cluster-figures:start -->", "<!-- cluster-figures:end -->"

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
    "театре",
    "балете",
    "оптике",
    "геологии",
]
EVENTS = None  # filled from tests.game_data (imported lazily: keeps this module light)
OWED_AFTER = 30  # seconds: SOVA_OWED_AFTER_SECONDS on the app hosts
STREAM_SECONDS = 75


def log(msg: str) -> None:
    print(f"[cluster {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(*cmd: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), check=check, capture_output=True, text=True, timeout=120, **kw)


def _free_subnet() -> int:
    used = run(_tool("ip"), "-o", "addr").stdout
    for n in random.sample(range(20, 250), 230):
        if f"10.231.{n}." not in used:
            return n
    raise RuntimeError("no free 10.231.x.0/24 subnet")


class Cluster:
    """The hosts, their processes, and teardown (:meth:`close` removes everything)."""

    HOSTS = {"data": 10, "app1": 11, "app2": 12, "front": 13}

    def __init__(self):
        self.net = _free_subnet()
        self.tag = f"sv{self.net}{os.getpid() % 1000}"
        self.tmp = Path(tempfile.mkdtemp(prefix="sova-cluster-"))
        os.chmod(self.tmp, 0o755)
        self.procs: dict[tuple[str, str], subprocess.Popen] = {}
        self.made_ns: list[str] = []
        self.bridge = f"{self.tag}br"
        self.pg_dir = self.tmp / "pg"
        self.pg_bin = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1].parent
        self.smtp = None

    def ip(self, host: str) -> str:
        return (
            f"10.231.{self.net}.{self.HOSTS[host]}" if host != "bridge" else f"10.231.{self.net}.1"
        )

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    # --- network ----------------------------------------------------------------------
    def network_up(self) -> None:
        run(_tool("ip"), "link", "add", self.bridge, "type", "bridge")
        run(_tool("ip"), "addr", "add", f"{self.ip('bridge')}/24", "dev", self.bridge)
        run(_tool("ip"), "link", "set", self.bridge, "up")
        for i, host in enumerate(self.HOSTS):
            ns, outer, inner = self.ns(host), f"{self.tag}o{i}", f"{self.tag}i{i}"
            run(_tool("ip"), "netns", "add", ns)
            self.made_ns.append(ns)
            run(_tool("ip"), "link", "add", outer, "type", "veth", "peer", "name", inner)
            run(_tool("ip"), "link", "set", inner, "netns", ns)
            run(_tool("ip"), "link", "set", outer, "master", self.bridge)
            run(_tool("ip"), "link", "set", outer, "up")
            run(
                _tool("ip"),
                "netns",
                "exec",
                ns,
                _tool("ip"),
                "addr",
                "add",
                f"{self.ip(host)}/24",
                "dev",
                inner,
            )
            run(_tool("ip"), "netns", "exec", ns, _tool("ip"), "link", "set", inner, "up")
            run(_tool("ip"), "netns", "exec", ns, _tool("ip"), "link", "set", "lo", "up")
        log(
            f"hosts up on 10.231.{self.net}.0/24: "
            + ", ".join(f"{h} {self.ip(h)}" for h in self.HOSTS)
        )

    # --- processes --------------------------------------------------------------------
    def spawn(
        self, host: str, name: str, cmd: list[str], env: dict | None = None, user: str | None = None
    ) -> subprocess.Popen:
        prefix = [_tool("ip"), "netns", "exec", self.ns(host)]
        if user:
            prefix += [_tool("runuser"), "-u", user, "--"]
        with open(self.tmp / f"{host}-{name}.log", "ab") as out:  # the child keeps its copy
            proc = subprocess.Popen(
                prefix + cmd,
                cwd=ROOT,
                env=env or os.environ.copy(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs[(host, name)] = proc
        return proc

    def kill_host(self, host: str) -> int:
        """SIGKILL every process in the host's namespace; returns how many."""
        pids = [
            int(p)
            for p in run(_tool("ip"), "netns", "pids", self.ns(host), check=False).stdout.split()
        ]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for (h, _), proc in self.procs.items():
            if h == host:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    pass
        return len(pids)

    # --- data host ----------------------------------------------------------------------
    def postgres_up(self) -> None:
        self.pg_dir.mkdir()
        shutil.chown(self.pg_dir, "postgres", "postgres")
        run(
            _tool("runuser"),
            "-u",
            "postgres",
            "--",
            str(self.pg_bin / "initdb"),
            "-D",
            str(self.pg_dir / "data"),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
        )
        with open(self.pg_dir / "data" / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all 10.231.{self.net}.0/24 trust\n")
        self.pg_ctl("start")
        run(
            _tool("ip"),
            "netns",
            "exec",
            self.ns("data"),
            str(self.pg_bin / "psql"),
            "-h",
            self.ip("data"),
            "-U",
            "postgres",
            "-c",
            "CREATE DATABASE sova",
        )

    def pg_ctl(self, action: str, *extra: str) -> None:
        run(
            _tool("ip"),
            "netns",
            "exec",
            self.ns("data"),
            _tool("runuser"),
            "-u",
            "postgres",
            "--",
            str(self.pg_bin / "pg_ctl"),
            "-D",
            str(self.pg_dir / "data"),
            "-w",
            "-l",
            str(self.pg_dir / "log"),
            "-o",
            f"-p 5432 -k {self.pg_dir} -c listen_addresses={self.ip('data')} -c fsync=off "
            "-c max_connections=300",
            *extra,
            action,
        )

    def redis_up(self) -> None:
        self.spawn(
            "data",
            "redis",
            [
                "redis-server",
                "--bind",
                self.ip("data"),
                "--port",
                "6379",
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                str(self.tmp),
            ],
        )
        wait_for(
            lambda: (
                run("redis-cli", "-h", self.ip("data"), "ping", check=False).stdout.strip()
                == "PONG"
            ),
            20,
            "redis",
        )

    def redis_restart_empty(self) -> None:
        proc = self.procs[("data", "redis")]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        self.redis_up()

    # --- app and front hosts ------------------------------------------------------------
    def app_env(self, host: str) -> dict:
        env = dict(os.environ)
        for key in [k for k in env if k.startswith(("SOVA_", "PROMETHEUS_"))]:
            del env[key]
        prom = self.tmp / f"prom-{host}"
        shutil.rmtree(prom, ignore_errors=True)
        prom.mkdir()
        env.update(
            {
                "SOVA_DATABASE_URL": f"postgresql+psycopg://postgres@{self.ip('data')}:5432/sova",
                "SOVA_BROKER_URL": f"redis://{self.ip('data')}:6379/0",
                "SOVA_SECRET_KEY": self.secret,
                "SOVA_ENCRYPTION_KEYS": self.keys,
                "SOVA_INSTANCE_PATH": str(self.tmp / "instance"),  # the shared volume
                "SOVA_OUTBOX_AUTOSEND": "0",
                "SOVA_RATELIMIT_ENABLED": "0",
                "SOVA_PROXY_COUNT": "1",
                "SOVA_SMTP_URL": f"smtp://{self.ip('bridge')}:{self.smtp_port}",
                "SOVA_MAIL_LEASE_SECONDS": "10",
                "SOVA_OWED_AFTER_SECONDS": str(OWED_AFTER),
                "SOVA_RECONCILE_SECONDS": "5",
                "SOVA_LOG_FORMAT": "json",
                "SOVA_WEB_WORKERS": "2",
                "PROMETHEUS_MULTIPROC_DIR": str(prom),
                "SOVA_PUBLIC_URL": f"http://{self.ip('front')}",
            }
        )
        return env

    def app_up(self, host: str) -> None:
        env = self.app_env(host)
        self.spawn(
            host,
            "web",
            [
                str(BIN / "gunicorn"),
                "-c",
                "deploy/gunicorn.conf.py",
                "--bind",
                "0.0.0.0:8000",
                "webapp:create_app()",
            ],
            env,
        )
        self.spawn(
            host,
            "worker",
            [
                str(BIN / "celery"),
                "-A",
                "workers.app",
                "worker",
                "--loglevel=INFO",
                "--concurrency=2",
                "-n",
                f"celery@{host}",
            ],
            env,
        )
        self.spawn(host, "relay", [str(BIN / "sova"), "outbox", "relay"], env)
        if host == "app1":
            self.spawn(
                host,
                "beat",
                [
                    str(BIN / "celery"),
                    "-A",
                    "workers.app",
                    "beat",
                    "--loglevel=INFO",
                    "-s",
                    str(self.tmp / "celerybeat-schedule"),
                ],
                env,
            )

    def sova(self, *args: str) -> str:
        return run(
            _tool("ip"),
            "netns",
            "exec",
            self.ns("app1"),
            str(BIN / "sova"),
            *args,
            env=self.app_env("app1"),
            cwd=ROOT,
        ).stdout

    def front_up(self) -> None:
        conf = self.tmp / "nginx.conf"
        temp = self.tmp / "nginx-temp"
        temp.mkdir()
        conf.write_text(f"""
user root;
worker_processes 1;
daemon off;
pid {self.tmp}/nginx.pid;
error_log {self.tmp}/front-nginx-error.log;
events {{ worker_connections 512; }}
http {{
  access_log off;
  client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy;
  fastcgi_temp_path {temp}/fcgi; uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
  upstream sova {{
    server {self.ip("app1")}:8000 max_fails=1 fail_timeout=3s;
    server {self.ip("app2")}:8000 max_fails=1 fail_timeout=3s;
  }}
  server {{
    listen {self.ip("front")}:80;
    client_max_body_size 8m;
    location / {{
      proxy_pass http://sova;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Request-ID $request_id;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      proxy_next_upstream error timeout;
    }}
  }}
}}
""")
        self.spawn("front", "nginx", [_tool("nginx"), "-c", str(conf)])

    def smtp_up(self) -> None:
        from aiosmtpd.controller import Controller

        self.mail: list[str] = []
        lock = threading.Lock()
        outer = self

        class Sink:
            async def handle_DATA(self, server, session, envelope):
                with lock:
                    outer.mail.extend(envelope.rcpt_tos)
                return "250 2.0.0 Ok: queued"

        with socket.socket() as sock:
            sock.bind((self.ip("bridge"), 0))
            self.smtp_port = sock.getsockname()[1]
        self.smtp = Controller(Sink(), hostname=self.ip("bridge"), port=self.smtp_port)
        self.smtp.start()

    # --- teardown -----------------------------------------------------------------------
    def close(self) -> None:
        for ns in self.made_ns:
            pids = run(_tool("ip"), "netns", "pids", ns, check=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        if self.pg_dir.exists():
            run(
                _tool("runuser"),
                "-u",
                "postgres",
                "--",
                str(self.pg_bin / "pg_ctl"),
                "-D",
                str(self.pg_dir / "data"),
                "-m",
                "immediate",
                "stop",
                check=False,
            )
        for ns in self.made_ns:
            run(_tool("ip"), "netns", "del", ns, check=False)
        run(_tool("ip"), "link", "del", self.bridge, check=False)
        for i in range(len(self.HOSTS)):
            run(_tool("ip"), "link", "del", f"{self.tag}o{i}", check=False)
        if self.smtp is not None:
            self.smtp.stop()
        if os.environ.get("SOVA_CLUSTER_KEEP") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)


def wait_for(predicate, timeout: float, what: str, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 — a host still starting
            value = None
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Client:
    """HTTP through nginx; ``call`` retries what a fault interrupted (connection errors,
    502/503/504) for up to 60 s, and takes 409 after a retry as "done before"."""

    def __init__(self, base: str, tokens: dict[str, str]):
        self.base, self.tokens = base, tokens
        self.requests = 0

    def raw(self, method: str, path: str, role: str | None = None, body=None, timeout: float = 30):
        self.requests += 1
        headers = {"Content-Type": "application/json"}
        if role:
            headers["Authorization"] = f"Bearer {self.tokens[role]}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"null")
            except ValueError:
                return exc.code, None
        except (OSError, ValueError) as exc:
            return None, repr(exc)

    def call(self, method: str, path: str, role: str, body=None, ok=(200, 201, 202)):
        deadline, retried = time.monotonic() + 90, False
        while True:
            status, data = self.raw(method, path, role, body)
            if status in ok or (retried and status == 409):
                return status, data
            if status not in (None, 502, 503, 504) or time.monotonic() > deadline:
                raise AssertionError(f"{method} {path}: {status} {data}")
            retried = True
            time.sleep(1)


def submission(i: int) -> dict:
    topic = TOPICS[i % len(TOPICS)]
    return {
        "question": f"Кластерный вопрос {i} о {topic}: что здесь задумал автор номер {i}?",
        "answer": f"Ответ {i}",
        "authors": [{"name": f"Автор {i}", "city": "Минск"}],
        "email": f"cluster{i}@example.org",
        "consent": True,
    }


def scenario(cluster: Cluster) -> dict:
    """Run the whole test on a started :class:`Cluster`; returns the figures."""
    import psycopg

    from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ

    base = f"http://{cluster.ip('front')}"
    tokens = {}
    for role in ("editor", "chief_editor", "producer", "host"):
        out = cluster.sova(
            "users", "create", "--email", f"{role}@cluster.local", "--role", role, "--token"
        )
        tokens[role] = out.strip().splitlines()[-1]
    client = Client(base, tokens)
    wait_for(lambda: client.raw("GET", "/readyz")[0] == 200, 60, "the front to be ready")

    acked: dict[int, int] = {}  # submission number -> question id
    refused: dict[int, object] = {}
    stop = threading.Event()

    def stream(offset: int) -> None:
        i = offset
        while not stop.is_set():
            status, data = client.raw("POST", "/api/v1/submissions", body=submission(i), timeout=20)
            if status == 201:
                acked[i] = data["id"]
            else:
                refused[i] = status or data
            i += 2
            time.sleep(0.15)

    faults: list[dict] = []
    t0 = time.monotonic()

    def fault_plan() -> None:
        def at(seconds: float) -> None:
            time.sleep(max(0.0, seconds - (time.monotonic() - t0)))

        at(12)
        n = cluster.kill_host("app2")
        faults.append(
            {
                "what": f"app2 killed (SIGKILL of its {n} processes: gunicorn, worker, relay)",
                "at": round(time.monotonic() - t0, 1),
            }
        )
        log(faults[-1]["what"])
        at(24)
        cluster.app_up("app2")
        faults.append({"what": "app2 back", "at": round(time.monotonic() - t0, 1)})
        at(36)
        cluster.redis_restart_empty()
        faults.append({"what": "Redis restarted empty", "at": round(time.monotonic() - t0, 1)})
        log(faults[-1]["what"])
        at(50)
        cluster.pg_ctl("restart", "-m", "immediate")
        faults.append(
            {"what": "PostgreSQL restarted (immediate)", "at": round(time.monotonic() - t0, 1)}
        )
        log(faults[-1]["what"])

    threads = [threading.Thread(target=stream, args=(k,), daemon=True) for k in (0, 1)]
    threads.append(threading.Thread(target=fault_plan, daemon=True))
    for t in threads:
        t.start()

    # the API work of one game, through nginx, while the faults happen
    def in_review():
        return client.call("GET", "/api/v1/questions?status=in_review", "editor")[1]

    items = wait_for(
        lambda: len(in_review()["items"]) >= 16 and in_review()["items"],
        90,
        "16 pre-checked questions",
    )
    chosen = [item["id"] for item in items[:16]]
    for qid in chosen:
        client.call("POST", f"/api/v1/questions/{qid}/decision", "editor", {"decision": "approve"})
        client.call(
            "POST", f"/api/v1/questions/{qid}/decision", "chief_editor", {"decision": "sign_off"}
        )
    season = client.call(
        "POST",
        "/api/v1/seasons",
        "producer",
        {"name": "Кластерный сезон 2023", "ruleset": "2023", "currency": "BYN"},
    )[1]["id"]
    game = client.call(
        "POST",
        "/api/v1/games",
        "producer",
        {
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-04",
            "team": "Команда",
            "table": {"blitz": 4, "superblitz": None, "sector13": None},
        },
    )[1]["id"]
    client.call("POST", f"/api/v1/games/{game}/assign", "producer")
    client.call("POST", f"/api/v1/games/{game}/envelopes", "producer")
    for event in LOSE_3_6_WITH_LOST_BLITZ:
        client.call("POST", f"/api/v1/games/{game}/events", "host", event)
    closed = client.call("POST", f"/api/v1/games/{game}/close", "producer")[1]
    prizes = len(closed["prizes"])
    log(f"API work done: game {game} closed, {prizes} prizes")

    elapsed = time.monotonic() - t0
    if elapsed < STREAM_SECONDS:
        time.sleep(STREAM_SECONDS - elapsed)
    stop.set()
    for t in threads:
        t.join(60)
    last_fault = max(f["at"] for f in faults)
    log(f"stream stopped: {len(acked)} acknowledged, {len(refused)} refused")

    dsn = f"host={cluster.ip('data')} port=5432 user=postgres dbname=sova"

    def query(sql: str, *params):
        with psycopg.connect(dsn, connect_timeout=5) as conn:
            return conn.execute(sql, params).fetchall()

    def owed() -> dict:
        return json.loads(cluster.sova("outbox", "status"))

    def settled() -> bool:
        status = owed()
        stored = query("SELECT count(*) FROM question")[0][0]
        return (
            all(
                status[k] == 0
                for k in (
                    "waiting",
                    "in_flight",
                    "overdue",
                    "given_up",
                    "questions_received",
                    "documents_pending",
                    "mail_sending",
                )
            )
            and len(cluster.mail) >= stored
        )

    wait_for(settled, 300, "everything owed to be done", every=2)
    recovered = round(time.monotonic() - t0 - last_fault, 1)

    texts = {i: submission(i)["question"] for i in acked}
    counts = dict(query("SELECT text, count(*) FROM question GROUP BY text"))
    lost = [i for i, t in texts.items() if counts.get(t, 0) == 0]
    duplicated = [t for t, n in counts.items() if n > 1]
    reports = query(
        "SELECT q.id, count(r.id) FROM question q LEFT JOIN moderation_report r "
        "ON r.question_id = q.id GROUP BY q.id"
    )
    not_prechecked = [q for q, n in reports if n == 0]
    prechecked_twice = [q for q, n in reports if n > 1]
    stored_emails = {
        f"cluster{i}@example.org"
        for i, t in {i: submission(i)["question"] for i in list(acked) + list(refused)}.items()
        if counts.get(t, 0) == 1
    }
    sent = {}
    for rcpt in cluster.mail:
        sent[rcpt] = sent.get(rcpt, 0) + 1
    mail_lost = sorted(e for e in stored_emails if sent.get(e, 0) == 0)
    mail_twice = sorted(e for e, n in sent.items() if n > 1)
    docs = query("SELECT kind, status, count(*) FROM document GROUP BY kind, status")
    in_doubt = query(
        "SELECT count(*) FROM mail_log WHERE status = 'sending' AND end_of_data_at IS NOT NULL"
    )[0][0]
    figures = {
        "faults": faults,
        "requests": client.requests,
        "submissions_acknowledged": len(acked),
        "submissions_refused": len(refused),
        "questions_stored": sum(counts.values()),
        "lost": len(lost),
        "duplicated": len(duplicated),
        "not_prechecked": len(not_prechecked),
        "prechecked_twice": len(prechecked_twice),
        "emails_sent": len(cluster.mail),
        "emails_lost": len(mail_lost),
        "emails_twice": len(mail_twice),
        "emails_in_doubt": in_doubt,
        "prizes": prizes,
        "documents": {f"{k} {s}": n for k, s, n in docs},
        "recovered_seconds_after_last_fault": recovered,
        "owed_after": owed(),
    }
    return figures


def check(figures: dict) -> list[str]:
    """What the figures show wrong (empty: the cluster kept every promise)."""
    problems = []
    for key in (
        "lost",
        "duplicated",
        "not_prechecked",
        "prechecked_twice",
        "emails_lost",
        "emails_twice",
    ):
        if figures[key]:
            problems.append(f"{key} = {figures[key]}")
    docs = figures["documents"]
    if any(not k.endswith(" ready") for k in docs):
        problems.append(f"documents not ready: {docs}")
    if docs.get("envelopes ready") != 1 or docs.get("host_cards ready") != 1:
        problems.append(f"envelopes/host cards not rendered once: {docs}")
    if docs.get("gift_agreement ready") != figures["prizes"]:
        problems.append(
            f"agreements {docs.get('gift_agreement ready')} != prizes {figures['prizes']}"
        )
    if figures["submissions_acknowledged"] < 50:
        problems.append("fewer than 50 acknowledged submissions: the stream did not run")
    return problems


def write_docs(figures: dict) -> None:
    lines = [
        MARK_START,
        "",
        f"Last run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on this project's "
        "machine (2 cores), `python -m tests.cluster.cluster --write-docs`.",
        "",
        "| figure | value |",
        "|---|---|",
    ]
    for fault in figures["faults"]:
        lines.append(f"| fault at {fault['at']} s | {fault['what']} |")
    for key in (
        "requests",
        "submissions_acknowledged",
        "submissions_refused",
        "questions_stored",
        "lost",
        "duplicated",
        "not_prechecked",
        "prechecked_twice",
        "emails_sent",
        "emails_lost",
        "emails_twice",
        "emails_in_doubt",
        "prizes",
        "recovered_seconds_after_last_fault",
    ):
        lines.append(f"| {key.replace('_', ' ')} | {figures[key]} |")
    lines.append(
        f"| documents | {', '.join(f'{k}: {n}' for k, n in figures['documents'].items())} |"
    )
    lines += ["", MARK_END]
    text = DOCS.read_text()
    start, end = text.find(MARK_START), text.find(MARK_END)
    block = "\n".join(lines)
    if start == -1 or end == -1:
        text = text.rstrip() + "\n\n## Cluster test figures\n" + block + "\n"
    else:
        text = text[:start] + block + text[end + len(MARK_END) :]
    DOCS.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write-docs", action="store_true", help="write the figures into docs/operations.md"
    )
    args = parser.parse_args(argv)
    figures = run_cluster()
    print(json.dumps(figures, ensure_ascii=False, indent=2))
    problems = check(figures)
    if args.write_docs:
        write_docs(figures)
    for p in problems:
        log(f"FAILED: {p}")
    return 1 if problems else 0


def _tool(name: str) -> str:
    """``name`` on PATH, else in /usr/sbin or /sbin (root's tools when PATH lacks them)."""
    for found in (shutil.which(name), f"/usr/sbin/{name}", f"/sbin/{name}"):
        if found and os.access(found, os.X_OK):
            return found
    return name


def missing_tools() -> list[str]:
    need = ["ip", "nginx", "redis-server", "redis-cli", "runuser"]
    missing = [t for t in need if not os.access(_tool(t), os.X_OK)]
    if not sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        missing.append("postgresql server")
    if os.geteuid() != 0:
        missing.append("root")
    return missing


def run_cluster() -> dict:
    """Start the cluster, run :func:`scenario`, always tear down; returns the figures."""
    from cryptography.fernet import Fernet

    cluster = Cluster()
    cluster.secret, cluster.keys = os.urandom(32).hex(), Fernet.generate_key().decode()
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        cluster.network_up()
        cluster.smtp_up()
        cluster.postgres_up()
        cluster.redis_up()
        cluster.sova("db", "upgrade", "heads")
        for host in ("app1", "app2"):
            cluster.app_up(host)
        cluster.front_up()
        return scenario(cluster)
    except BaseException:
        log(f"logs in {cluster.tmp} (kept: failure)")
        os.environ["SOVA_CLUSTER_KEEP"] = os.environ.get("SOVA_CLUSTER_KEEP", "1")
        raise
    finally:
        cluster.close()
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
