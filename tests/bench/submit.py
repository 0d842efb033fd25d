"""`python -m tests.bench.submit`: the viewer's full ``POST /submit`` path against its anchor,
the same form written the textbook way (what people
would otherwise use), in the same run.

Sova: gunicorn with the deployed settings (``deploy/gunicorn.conf.py``: 2 × cores + 1 sync
workers, the access log, a worker replaced after about 2 000 requests) on PostgreSQL and
Redis, deployed as in production: the
request ends at its commit and the outbox relay process (``sova outbox relay``) sends the
tasks to Redis; the rate limits are on and counted in Redis, the minimum fill time is on,
and Sova trusts one proxy hop (``SOVA_PROXY_COUNT=1``, nginx in production). The anchor:
``tests/bench/textbook_app.py`` (Flask-WTF, Flask-SQLAlchemy with ``pool_pre_ping``,
get-or-create the author by e-mail, insert, commit, then Celery's ``send_task`` to the same
Redis), served by the same gunicorn command and settings on a PostgreSQL database of its own.

wrk is the load generator at 16, 64 and 256 concurrent connections; at each level the two
apps alternate (``--rounds`` rounds, the order swapped every round), each run as long, and
each run ends once the server has answered what wrk left in its queue (:func:`run_wrk`). Both
receive the same body: what a browser posts for Sova's page (:func:`browser_body`), every
request with its own idempotency key, its own viewer's e-mail (a new author each time) and
its own viewer's address in ``X-Forwarded-For`` (as nginx sets it: every viewer is a
different client, so the per-address limits run and count but refuse nobody); only the
CSRF token and the session cookie are each app's own. ``GET /healthz`` on Sova is measured
once per level as well (the earlier anchor).

JSON lines: every wrk run (``submit_run``), Sova against ``/healthz`` per level, and per
level the pair ``{"bench": "submit", "figure": "pair", "pair": "submit_vs_textbook", ...}``
with the medians of the rounds, the throughput and p99 ratios, and at 64 clients the
targets (≥ 1.5× the throughput, ≤ 0.6× the p99, stored = 2xx exactly) and whether they are
met. wrk stops at its deadline without counting the requests still in flight, so "stored =
2xx" is shown by a separate phase for each app: our own client sends exactly ``--exact``
submissions from 64 connections, waits for every answer, and the count of stored questions
must equal the count of 302 answers. A budget phase (``--no-budget`` skips it) splits
Sova's cost at 64 clients: the same body posted to an endpoint that only redirects and to
one that only validates the form (``tests/bench/budget_app.py``). Needs PostgreSQL, Redis,
wrk and gunicorn: SOVA_BENCH_DATABASE_URL (default
postgresql+psycopg://postgres@127.0.0.1:5432/postgres), SOVA_BENCH_REDIS_URL (default
redis://127.0.0.1:6379/14).
"""

from __future__ import annotations

import argparse
import contextlib
import html as htmllib
import http.client
import http.cookiejar
import itertools
import json
import os
import random
import re
import resource
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis
import sqlalchemy as sa

from tests.bench.stopping import stop_cleanly_on_sigterm
from tests.helpers import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
#: The gunicorn settings production uses (docs/operations.md copies them to /etc/sova/); both
#: apps are served with them.
DEPLOYED = ROOT / "deploy" / "gunicorn.conf.py"
QUESTION = (
    "Какой город называют северной столицей России? Назовите его одним словом, "
    "как его называли в 1914–1924 годах."
)
#: Sova's minimum fill time during the run (its default); the bench waits this long after
#: loading the page before the first submission, as a person would.
MIN_FILL_SECONDS = 3
#: The targets for the pair at 64 clients.
TARGETS = {
    "clients": 64,
    "throughput_ratio_min": 1.5,
    "p99_ratio_max": 0.6,
    "stored_equals_2xx": True,
}
#: A viewer's address: ``fd00:<salt>:<net>:<thread>::<n high>:<n low>`` (hex), where
#: ``salt`` is random per bench process and ``net`` counts the wrk runs and exact phases,
#: so no address posts twice (Sova's per-address limit is 5 a minute). The Lua script of
#: :func:`write_lua` builds the same string with the same format.
ADDRESS_FORMAT = "fd00:%x:%x:%x::%x:%x"
SALT = random.randrange(1, 0xFFFF)


def emit(name: str, **values) -> None:
    """One JSON line, with the machine's load average."""
    line = {"bench": name, **values, "loadavg": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(line, ensure_ascii=False), flush=True)


def parse_wrk(out: str) -> dict:
    """Requests/s, total, non-2xx/3xx, socket errors and latency percentiles (ms)."""

    def ms(text: str) -> float:
        value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    res = {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
    }
    for pct in ("50", "90", "99"):
        m = re.search(rf"\s{pct}%\s+([\d.]+(?:us|ms|s))", out)
        res[f"p{pct}_ms"] = round(ms(m.group(1)), 2) if m else None
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    res["non_2xx_3xx"] = int(bad.group(1)) if bad else 0
    err = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    res["socket_errors"] = sum(map(int, err.groups())) if err else 0
    return res


def stored_questions(engine) -> int:
    """The rows of the ``question`` table (Sova's and the textbook app's both have one)."""
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT count(*) FROM question")).scalar()


def settled_count(engine, quiet: float = 2.0) -> int:
    """The number of stored questions once it has not changed for ``quiet`` seconds."""
    last, since = -1, time.monotonic()
    while True:
        now = stored_questions(engine)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
        time.sleep(0.2)


KEY_MARK, EMAIL_MARK = "@@IDEMPOTENCY_KEY@@", "@@EMAIL@@"


def lua_string(text: str) -> str:
    """``text`` as a Lua string literal: UTF-8 bytes as they are (Lua strings are bytes;
    JSON's ``\\uXXXX`` escapes mean nothing to Lua), quotes, backslashes, CR and LF escaped."""
    return json.dumps(text, ensure_ascii=False)


def form_fields(html: str) -> list[str]:
    """The names of the page's inputs and text areas, in page order, each once."""
    return list(dict.fromkeys(re.findall(r'<(?:input|textarea)[^>]*\bname="([^"]+)"', html)))


def hidden_values(html: str) -> dict[str, str]:
    """``{name: value}`` of the page's hidden inputs (a browser posts them as they are)."""
    out = {}
    for tag in re.findall(r"<input\b[^>]*>", html):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        if attrs.get("type") == "hidden" and "name" in attrs:
            out[attrs["name"]] = htmllib.unescape(attrs.get("value", ""))
    return out


def browser_body(html: str, csrf_token: str) -> tuple[str, str]:
    """The body a browser posts for the viewer form, and its Content-Type: every field of
    the page in page order, ``multipart/form-data`` (the form uploads a handout image) with
    the empty file part of an unused file input, the hidden fields' values as the page has
    them (the signed start time of the minimum fill time), empty optional fields and
    co-author rows, the three checkboxes ticked. The CSRF token is ``csrf_token``; the
    idempotency key and the e-mail are ``KEY_MARK`` and ``EMAIL_MARK`` (filled per
    request). Raises ValueError if the page lacks a field."""
    from urllib3 import encode_multipart_formdata

    values = {
        **hidden_values(html),
        "csrf_token": csrf_token,
        "question": QUESTION,
        "answer": "Петроград",
        "name": "Нагрузочный Тест",
        "city": "Минск",
        "email": EMAIL_MARK,
        "consent": "y",
        "consent_on_air": "y",
        "age_confirmed": "y",
        "idempotency_key": KEY_MARK,
    }
    names = form_fields(html)
    missing = {"csrf_token", "question", "email", "idempotency_key"} - set(names)
    if missing:
        raise ValueError(f"the form has no field {sorted(missing)}")
    fields = [
        (n, ("", b"", "application/octet-stream") if n == "handout_image" else values.get(n, ""))
        for n in names
    ]
    body, content_type = encode_multipart_formdata(fields)
    return body.decode(), content_type


def viewer_address(net: int, thread: int, n: int) -> str:
    """The ``X-Forwarded-For`` of request ``n`` of ``thread`` in run ``net``."""
    return ADDRESS_FORMAT % (SALT, net, thread, n // 65536, n % 65536)


@dataclass
class Target:
    """One app under load: its address, its database, the Redis its tasks go to, and the
    body it is sent (``parts``: the browser body split around the idempotency key and the
    e-mail) with its own CSRF token, the Content-Type and its session cookie."""

    name: str
    port: int
    engine: sa.Engine
    broker: redis.Redis
    parts: tuple[str, str, str]
    content_type: str
    cookie: str
    web_pid: int = 0  # the gunicorn master
    database: str = ""  # its database's name (its PostgreSQL backends carry it)
    helper_pids: tuple[int, ...] = ()  # Sova's relay
    ok_total: int = 0  # successful answers wrk counted over the levels

    @property
    def site(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def load_form(site: str) -> tuple[str, str, str]:
    """``GET /submit`` as a browser: ``(html, csrf_token, cookie header)``."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    html = opener.open(f"{site}/submit").read().decode()
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    return html, token, "; ".join(f"{c.name}={c.value}" for c in jar)


def split_body(body: str) -> tuple[str, str, str]:
    """``body`` as the text before the idempotency key, between it and the e-mail, after."""
    head, rest = body.split(KEY_MARK)
    middle, tail = rest.split(EMAIL_MARK)
    return head, middle, tail


def write_lua(path: Path, target: Target, net: int) -> None:
    """wrk's script for ``target``: a fresh idempotency key per request (a browser's form
    carries one), a fresh e-mail (``wrk-<run>-<thread>-<n>``, unique across levels and
    threads) and a fresh viewer's address (:func:`viewer_address` of ``net``)."""
    head, middle, tail = target.parts
    run = uuid.uuid4().hex[:12]
    path.write_text(
        "local n = 0\nlocal threads = 0\n"
        "function setup(thread) threads = threads + 1; thread:set('tid', threads) end\n"
        'wrk.method = "POST"\n'
        f'wrk.headers["Content-Type"] = {json.dumps(target.content_type)}\n'
        f'wrk.headers["Cookie"] = {json.dumps(target.cookie)}\n'
        "function request()\n  n = n + 1\n"
        f"  local id = string.format('wrk-{run}-%s-%d', tostring(tid), n)\n"
        f"  wrk.headers['X-Forwarded-For'] = string.format('{ADDRESS_FORMAT}', {SALT}, {net}, "
        "tid, math.floor(n / 65536), n % 65536)\n"
        f"  return wrk.format(nil, nil, nil, {lua_string(head)} .. id .. "
        f"{lua_string(middle)} .. id .. '@example.org' .. {lua_string(tail)})\nend\n",
        encoding="utf-8",
    )


TICK = os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from ``/proc/<pid>/task/*/children``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for children in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(c) for c in children.read_text().split()]
    return out


def _cpu(pid: int, children: bool = False) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 if it is gone); with
    ``children``, plus those of its children that ended and were waited for (a gunicorn
    master's workers replaced after their ``max_requests``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def _role_pids(target: Target) -> dict[str, list[int]]:
    """The processes of each role of :class:`CpuMeter` but the web alive now."""
    backends, redis_pids = [], []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if cmdline.startswith("postgres:") and f" {target.database} " in cmdline:
                backends.append(int(proc.name))
            elif cmdline.startswith("redis-server") or "/redis-server" in cmdline.split(" ")[0]:
                redis_pids.append(int(proc.name))
    return {
        "relay": [p for h in target.helper_pids for p in _tree(h)],
        "postgres": backends,
        "redis": redis_pids,
    }


class CpuMeter:
    """CPU seconds spent by what serves ``target`` between :meth:`start` and :meth:`stop`,
    by role: ``web`` (the gunicorn master, its workers alive and those replaced meanwhile,
    exactly: the master waits for them), ``relay`` (its helpers), ``postgres`` (the
    backends of its database; the shared WAL writer and checkpointer are not counted) and
    ``redis`` (the server, shared with the other app and anything else on the machine).

    A PostgreSQL backend ends with its connection (a replaced worker's) and nobody here
    waits for it, so the others are sampled every :attr:`EVERY` seconds: a process counts
    from its first sample (0 for one started during the run) to its last; a backend that
    ends loses at most its last interval."""

    EVERY = 0.2

    def __init__(self, target: Target):
        self.target = target
        self._first: dict[tuple[str, int], float] = {}
        self._last: dict[tuple[str, int], float] = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._web0 = 0.0

    def _web(self) -> float:
        t = self.target
        if not t.web_pid:
            return 0.0
        workers = _tree(t.web_pid)[1:]
        return _cpu(t.web_pid, children=True) + sum(_cpu(p) for p in workers)

    def _sample(self, first: bool = False) -> None:
        for role, pids in _role_pids(self.target).items():
            for pid in pids:
                key, now = (role, pid), _cpu(pid)
                if key not in self._first:
                    self._first[key] = now if first else 0.0
                if now:
                    self._last[key] = now

    def _run(self) -> None:
        while not self._done.wait(self.EVERY):
            self._sample()

    def start(self) -> CpuMeter:
        self._web0 = self._web()
        self._sample(first=True)
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        self._done.set()
        self._thread.join()
        self._sample()
        out = {"web": self._web() - self._web0, "relay": 0.0, "postgres": 0.0, "redis": 0.0}
        for key, first in self._first.items():
            out[key[0]] += self._last.get(key, first) - first
        return out


def run_wrk(site: str, path: str, clients: int, seconds: int, script: Path | None = None) -> dict:
    """One wrk run (2 threads) against ``site + path``, parsed by :func:`parse_wrk`; returns
    once the server has answered what wrk left in its queue (a sync worker still answers
    the requests of connections wrk closed at its deadline: up to one per connection), so
    that the next run, of this app or the other, starts on an idle machine."""
    cmd = ["wrk", "-t2", f"-c{clients}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    cmd += ["-s", str(script)] if script else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd + [site + path], capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    urllib.request.urlopen(f"{site}/submit", timeout=600).read()  # queued behind the rest
    wrk_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {**parse_wrk(out), "wrk_cpu_s": round(wrk_cpu, 3)}


def measured_run(target: Target, clients: int, seconds: int, script: Path) -> dict:
    """:func:`run_wrk` of ``POST /submit`` on ``target``, with the CPU it cost per stored
    question (ms, by :class:`CpuMeter` and wrk's own), the questions stored over the run
    counted in the database once its queue is answered."""
    stored, meter = stored_questions(target.engine), CpuMeter(target).start()
    res = run_wrk(target.site, "/submit", clients, seconds, script)
    spent = meter.stop()
    new = stored_questions(target.engine) - stored
    spent["wrk"] = res.pop("wrk_cpu_s")
    per = {k: round(1000 * v / new, 2) if new else None for k, v in spent.items()}
    per["total"] = round(sum(v for v in per.values() if v), 2)
    return {**res, "stored": new, "cpu_ms_per_question": per}


def ratio(a: float, b: float) -> float | None:
    """``a / b`` to three places (None when a run answered nothing)."""
    return round(a / b, 3) if b else None


def exact_phase(target: Target, total: int, clients: int, net: int) -> dict:
    """Send exactly ``total`` submissions (each with its own idempotency key, e-mail and
    viewer's address) from ``clients`` keep-alive connections and wait for every answer.
    Returns ``{status code or error name: count}``."""
    counts: dict[str, int] = {}
    lock = threading.Lock()
    todo = iter(range(total))
    head, middle, tail = target.parts

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", target.port, timeout=60)
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                break
            key = f"exact-{i:08d}-{uuid.uuid4().hex}"
            payload = f"{head}{key}{middle}{key}@example.org{tail}".encode()
            headers = {
                "Content-Type": target.content_type,
                "Cookie": target.cookie,
                "X-Forwarded-For": viewer_address(net, 0, i),
            }
            try:
                conn.request("POST", "/submit", payload, headers)
                resp = conn.getresponse()
                resp.read()
                outcome = str(resp.status)
            except (OSError, http.client.HTTPException) as exc:
                outcome = type(exc).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", target.port, timeout=60)
            with lock:
                counts[outcome] = counts.get(outcome, 0) + 1
        conn.close()

    workers = [threading.Thread(target=client) for _ in range(clients)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


def stored_exactly(target: Target, total: int, net: int, clients: int = 64) -> dict:
    """:func:`exact_phase` once the stored count has settled (wrk's last in-flight requests
    finish first): the answers, the questions stored, and ``stored_equals_2xx`` (every
    answer a 302 and exactly that many questions stored)."""
    before = settled_count(target.engine)
    answers = exact_phase(target, total, clients, net)
    stored = settled_count(target.engine) - before
    return {
        "clients": clients,
        "sent": total,
        "answers": answers,
        "stored": stored,
        "stored_equals_2xx": stored == answers.get("302", 0) == total,
    }


def medians(runs: list[dict]) -> dict:
    """The rounds of one app at one level: medians of rate and latencies, sums of errors."""
    out = {k: round(statistics.median(r[k] for r in runs), 2) for k in ("rps", "p50_ms", "p99_ms")}
    out.update({k: sum(r[k] for r in runs) for k in ("requests", "non_2xx_3xx", "socket_errors")})
    if all("cpu_ms_per_question" in r for r in runs):
        out["cpu_ms_per_question"] = {
            k: round(statistics.median(r["cpu_ms_per_question"][k] or 0 for r in runs), 2)
            for k in runs[0]["cpu_ms_per_question"]
        }
    return {**out, "rounds": len(runs)}


def pair_line(clients: int, sova: dict, anchor: dict, exact: dict[str, dict]) -> dict:
    """The fields of the pair line at one level; the targets are judged at 64 clients."""
    throughput = ratio(sova["rps"], anchor["rps"])
    p99 = ratio(sova["p99_ms"], anchor["p99_ms"])
    stored_ok = {name: e["stored_equals_2xx"] for name, e in exact.items()}
    line = {
        "figure": "pair",
        "pair": "submit_vs_textbook",
        "clients": clients,
        "sova": {"what": "POST /submit, Sova as deployed (relay, limits on)", **sova},
        "anchor": {"what": "POST /submit, tests/bench/textbook_app.py", **anchor},
        "throughput_ratio": throughput,
        "p99_ratio": p99,
        "stored_equals_2xx": {"sova": stored_ok["sova"], "anchor": stored_ok["textbook"]},
        "targets": None,
        "met": None,
    }
    if clients == TARGETS["clients"]:
        line["targets"] = TARGETS
        line["met"] = (
            throughput is not None
            and p99 is not None
            and throughput >= TARGETS["throughput_ratio_min"]
            and p99 <= TARGETS["p99_ratio_max"]
            and all(stored_ok.values())
            and not any(f["non_2xx_3xx"] or f["socket_errors"] for f in (sova, anchor))
        )
    return line


def create_database(admin: sa.Engine, base: str, name: str, stack: contextlib.ExitStack) -> str:
    """A fresh database ``name`` (dropped when ``stack`` closes); returns its URL."""
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    stack.callback(drop)
    return sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)


def start(cmd: list[str], env: dict, stack: contextlib.ExitStack, **kw) -> subprocess.Popen:
    """A process in its own session, stopped (SIGTERM to its group) when ``stack`` closes."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True, **kw)

    def stop() -> None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)

    stack.callback(stop)
    return proc


def gunicorn(
    app: str, port: int, threads: int, env: dict, stack: contextlib.ExitStack
) -> subprocess.Popen:
    """``app`` served with Sova's deployed gunicorn settings (:data:`DEPLOYED`: sync
    workers, 2 × cores + 1 of them, the access log, a worker replaced after about 2 000
    requests), bound to ``port`` (``SOVA_BIND``), with ``threads`` threads per worker when
    not 1 (an experiment: gthread), once it answers its form. The access log goes to
    ``/dev/null``: written as deployed, read by no one."""
    bindir = Path(sys.executable).parent
    cmd = [str(bindir / "gunicorn"), "-c", str(DEPLOYED)]
    cmd += ["--threads", str(threads)] if threads != 1 else []
    proc = start(
        cmd + [app],
        {**env, "SOVA_BIND": f"127.0.0.1:{port}"},
        stack,
        stdout=subprocess.DEVNULL,
    )

    def ready() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn {app} exited with {proc.returncode}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/submit", timeout=1)
            return True
        except OSError:
            return False

    # every deployed worker (2 × cores + 1) loads the app at once: on a busy machine, minutes
    wait_for(ready, timeout=300, what=f"gunicorn {app}")
    return proc


def wait_for_relay(engine, timeout: float = 10.0) -> int:
    """The outbox rows still unsent once the relay has caught up (or ``timeout`` passed)."""
    deadline = time.monotonic() + timeout
    while True:
        with engine.connect() as conn:
            waiting = conn.execute(
                sa.text("SELECT count(*) FROM outbox_message WHERE sent_at IS NULL")
            ).scalar()
        if not waiting or time.monotonic() > deadline:
            return waiting
        time.sleep(0.1)


def serve(args, stack: contextlib.ExitStack) -> tuple[Target, Target, Path]:
    """Both apps served, each on a fresh database (Sova's migrated, the textbook app's
    tables created), Sova's relay beside them; the page loaded from each and the body
    built. Returns the two targets and a scratch folder. Everything is undone when
    ``stack`` closes."""
    from tests.bench import textbook_app

    base = os.environ.get(
        "SOVA_BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    redis_url = os.environ.get("SOVA_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    stack.callback(admin.dispose)
    tag = uuid.uuid4().hex[:8]
    url = create_database(admin, base, f"sova_bench_{tag}", stack)
    textbook_url = create_database(admin, base, f"sova_bench_textbook_{tag}", stack)
    instance = Path(tempfile.mkdtemp(prefix="sova-bench-"))
    stack.callback(shutil.rmtree, instance, ignore_errors=True)
    env = dict(
        os.environ,
        SOVA_DATABASE_URL=url,
        SOVA_BROKER_URL=redis_url,
        SOVA_REDIS_URL=redis_url,  # rate limits counted in Redis, as deployed
        SOVA_PROXY_COUNT="1",  # behind nginx, as deployed: the viewer's X-Forwarded-For
        SOVA_MIN_FILL_SECONDS=str(MIN_FILL_SECONDS),
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_OUTBOX_AUTOSEND="0",
        PYTHONWARNINGS="ignore",
        TEXTBOOK_DATABASE_URL=textbook_url,
        TEXTBOOK_BROKER_URL=redis_url,
        TEXTBOOK_SECRET_KEY=secrets.token_hex(32),
    )
    env.pop("SOVA_RATELIMIT_ENABLED", None)
    bindir = Path(sys.executable).parent
    subprocess.run(
        [str(bindir / "sova"), "db", "upgrade", "heads"], env=env, check=True, capture_output=True
    )
    textbook_app.create_tables(textbook_url)
    broker = redis.Redis.from_url(redis_url)
    stack.callback(broker.close)
    broker.delete(textbook_app.QUEUE)  # the textbook app's own task list: counted, then emptied
    stack.callback(broker.delete, textbook_app.QUEUE)
    relay = start([str(bindir / "sova"), "outbox", "relay"], env, stack, stdout=subprocess.DEVNULL)
    port, textbook_port = free_port(), free_port()
    web = gunicorn(
        "tests.bench.budget_app:create_app()" if args.budget else "webapp:create_app()",
        port,
        args.threads,
        env,
        stack,
    )
    textbook_web = gunicorn(
        "tests.bench.textbook_app:create_app()", textbook_port, args.threads, env, stack
    )

    loaded = time.monotonic()
    html, token, cookie = load_form(f"http://127.0.0.1:{port}")
    t_html, t_token, t_cookie = load_form(f"http://127.0.0.1:{textbook_port}")
    # the anchor gets the very same body: its form's fields are a subset of Sova's (the
    # honeypot, the start time and the idempotency key are extra fields to it, which WTForms
    # ignores); only the CSRF token and the session cookie are its own
    if not set(form_fields(t_html)) <= set(form_fields(html)):
        raise ValueError(f"textbook fields not in Sova's form: {form_fields(t_html)}")
    targets = []
    for name, target_port, target_url, target_token, target_cookie, proc, helpers in (
        ("sova", port, url, token, cookie, web, (relay.pid,)),
        ("textbook", textbook_port, textbook_url, t_token, t_cookie, textbook_web, ()),
    ):
        body, content_type = browser_body(html, target_token)
        engine = sa.create_engine(target_url)
        stack.callback(engine.dispose)
        targets.append(
            Target(
                name,
                target_port,
                engine,
                broker,
                split_body(body),
                content_type,
                target_cookie,
                web_pid=proc.pid,
                database=engine.url.database or "",
                helper_pids=helpers,
            )
        )
    # Sova's minimum fill time: no viewer submits within 3 s of loading the page
    time.sleep(max(0.0, MIN_FILL_SECONDS + 0.5 - (time.monotonic() - loaded)))
    return targets[0], targets[1], instance


def measure_levels(
    sova: Target, textbook: Target, args, nets: Iterator[int], lua: Path
) -> dict[int, dict[str, dict]]:
    """First 3 s of each app at 16 clients, not counted (the workers' first requests); then
    at each level, ``args.rounds`` wrk runs of each app, alternating (the order swapped
    every round), then ``GET /healthz`` on Sova. Returns ``{clients: {app: medians}}``."""
    levels: dict[int, dict[str, dict]] = {}
    for target in (sova, textbook):  # warm-up, not counted: every worker's first requests
        if not args.only or target.name == args.only:  # load what the app loads lazily
            write_lua(lua, target, next(nets))
            run_wrk(target.site, "/submit", 16, 3, lua)
    for clients in [int(c) for c in args.clients.split(",")]:
        runs: dict[str, list[dict]] = {"sova": [], "textbook": []}
        for rnd in range(args.rounds):
            for target in (sova, textbook) if rnd % 2 == 0 else (textbook, sova):
                if args.only and target.name != args.only:
                    continue
                write_lua(lua, target, next(nets))
                res = measured_run(target, clients, args.seconds, lua)
                target.ok_total += res["requests"] - res["non_2xx_3xx"] - res["socket_errors"]
                runs[target.name].append(res)
                emit("submit_run", app=target.name, clients=clients, round=rnd, **res)
        levels[clients] = {name: medians(r) for name, r in runs.items() if r}
        if args.only:
            continue
        health = run_wrk(sova.site, "/healthz", clients, args.seconds)
        emit(
            "submit_vs_healthz",
            clients=clients,
            healthz=health,
            submit=levels[clients]["sova"],
            throughput_ratio=ratio(levels[clients]["sova"]["rps"], health["rps"]),
            stored_so_far={
                t.name: {
                    "stored_total": stored_questions(t.engine),
                    "wrk_counted_total": t.ok_total,
                }
                for t in (sova, textbook)
            },
        )
    return levels


def measure_budget(sova: Target, seconds: int, nets: Iterator[int], lua: Path) -> None:
    """Sova's cost split at 64 clients (``tests/bench/budget_app.py``)."""
    rates = {}
    for name, path in (
        ("healthz", "/healthz"),
        ("post_redirect", "/bench/redirect"),
        ("form_only", "/bench/form"),
        ("submit", "/submit"),
    ):
        write_lua(lua, sova, next(nets))
        rates[name] = run_wrk(sova.site, path, 64, seconds, lua if path != "/healthz" else None)
    emit(
        "submit_budget",
        clients=64,
        rps={k: v["rps"] for k, v in rates.items()},
        non_2xx_3xx={k: v["non_2xx_3xx"] for k, v in rates.items()},
        of_healthz={k: ratio(v["rps"], rates["healthz"]["rps"]) for k, v in rates.items()},
        submit_of_form_only=ratio(rates["submit"]["rps"], rates["form_only"]["rps"]),
    )


def check_stored(sova: Target, textbook: Target, total: int, nets: Iterator[int]) -> dict:
    """:func:`stored_exactly` for each app, with what each did after the commit: Sova's
    outbox rows left unsent once the relay caught up and the rate-limit counters of the
    phase's addresses in Redis (two per stored question: 5 a minute, 30 an hour); the
    textbook app's tasks in its Redis list against its stored questions."""
    from tests.bench.textbook_app import QUEUE

    exact = {}
    for target in (sova, textbook):
        net = next(nets)
        line = exact[target.name] = stored_exactly(target, total, net)
        if target is sova:
            line["outbox_unsent_after"] = wait_for_relay(sova.engine)
            line["rate_limit_keys"] = sum(
                1 for _ in sova.broker.scan_iter(match=f"*fd00:{SALT:x}:{net:x}:*", count=1000)
            )
        else:
            queued = textbook.broker.llen(QUEUE)
            line["tasks_queued_total"] = queued
            line["tasks_equal_stored_total"] = queued == stored_questions(textbook.engine)
        emit("submit_stored_equals_2xx", app=target.name, **line)
    return exact


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10, help="of every wrk run")
    parser.add_argument("--clients", default="16,64,256")
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="runs of each app per level, alternating, the order swapped every round",
    )
    parser.add_argument(
        "--exact",
        type=int,
        default=2000,
        help="submissions of the stored = 2xx phase of each app (64 connections)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads per gunicorn worker (1: the deployed sync workers)",
    )
    parser.add_argument("--quick", action="store_true", help="3 s per run, 300 exact")
    parser.add_argument(
        "--only",
        choices=("sova", "textbook"),
        help="run the levels of this app alone (for a profiler: no healthz, budget, "
        "exact phase or pair lines)",
    )
    parser.add_argument(
        "--budget",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure, at 64 clients, a POST of the same body that only "
        "redirects and one that only validates the form "
        "(tests/bench/budget_app.py; the server is then that app, Sova "
        "plus those two routes)",
    )
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    if args.quick:
        args.seconds, args.exact = 3, 300
    for tool in ("wrk", "gunicorn"):
        if not shutil.which(tool) and not (Path(sys.executable).parent / tool).exists():
            emit("submit_vs_textbook", skipped=f"{tool} is not installed")
            return 0
    with contextlib.ExitStack() as stack:
        sova, textbook, scratch = serve(args, stack)
        nets, lua = itertools.count(1), scratch / "post.lua"
        levels = measure_levels(sova, textbook, args, nets, lua)
        if args.only:
            return 0
        if args.budget:
            measure_budget(sova, args.seconds, nets, lua)
        exact = check_stored(sova, textbook, args.exact, nets)
        for clients, figures in levels.items():
            emit("submit", **pair_line(clients, figures["sova"], figures["textbook"], exact))
    return 0


if __name__ == "__main__":
    sys.exit(main())
