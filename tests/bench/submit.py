"""`python -m tests.bench.submit`: the viewer's full ``POST /submit`` path against
``GET /healthz`` on the same server in the same run (issue: viewers, "Abuse and load").

gunicorn with 2 workers on PostgreSQL and the Redis broker, deployed as in production: the
request ends at its commit and the outbox relay process (``sova outbox relay``) sends the
tasks to Redis. wrk is the load generator at 16, 64 and 256 concurrent connections. The
body is what a browser posts for the page (:func:`browser_body`); every request carries its
own idempotency key, as a browser's form does, and its own viewer's e-mail (a new author
each time: the upsert's insert path). Prints JSON lines:
requests/s and latency percentiles for both, and the throughput ratio. wrk stops at its
deadline without counting the requests still in flight, so "nothing lost" is shown by a
separate phase: our own client sends exactly ``--exact`` submissions from 64 connections,
waits for every answer, and the count of stored questions must equal the count of 302
answers. A budget phase (``--no-budget`` skips it) splits the cost at 64 clients: the same
body posted to an endpoint that only redirects and to one that only validates the form
(``tests/bench/budget_app.py``). Rate limits and the minimum fill time are off for the run
(every request comes from 127.0.0.1). Needs PostgreSQL, Redis, wrk and gunicorn:
SOVA_BENCH_DATABASE_URL (default postgresql+psycopg://postgres@127.0.0.1:5432/postgres),
SOVA_BENCH_REDIS_URL (default redis://127.0.0.1:6379/14).
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import re
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

from tests.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]
QUESTION = (
    "Какой город называют северной столицей России? Назовите его одним словом, "
    "как его называли в 1914–1924 годах."
)


def emit(name: str, **values) -> None:
    print(json.dumps({"bench": name, **values}, ensure_ascii=False), flush=True)


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


def settled_count(engine, quiet: float = 2.0) -> int:
    """The number of stored questions once it has not changed for ``quiet`` seconds."""
    last, since = -1, time.monotonic()
    while True:
        with engine.connect() as conn:
            now = conn.execute(sa.text("SELECT count(*) FROM question")).scalar()
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


def browser_body(html: str, csrf_token: str) -> tuple[str, str]:
    """The body a browser posts for the viewer form, and its Content-Type: every field of
    the page in page order, ``multipart/form-data`` (the form uploads a handout image) with
    the empty file part of an unused file input, empty optional fields and co-author rows,
    the three checkboxes ticked. The idempotency key and the e-mail are ``KEY_MARK`` and
    ``EMAIL_MARK`` (filled per request). Raises ValueError if the page lacks a field."""
    from urllib3 import encode_multipart_formdata

    values = {
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
    names = list(dict.fromkeys(re.findall(r'<(?:input|textarea)[^>]*\bname="([^"]+)"', html)))
    missing = set(values) - set(names)
    if missing:
        raise ValueError(f"the form has no field {sorted(missing)}")
    fields = [
        (n, ("", b"", "application/octet-stream") if n == "handout_image" else values.get(n, ""))
        for n in names
    ]
    body, content_type = encode_multipart_formdata(fields)
    return body.decode(), content_type


def exact_phase(
    port: int, parts: tuple[str, str, str], content_type: str, cookie: str, total: int, clients: int
) -> dict:
    """Send exactly ``total`` submissions (each with its own idempotency key and e-mail put
    between the three ``parts`` of the browser body) from ``clients`` keep-alive
    connections and wait for every answer. Returns ``{status code or error name: count}``."""
    counts: dict[str, int] = {}
    lock = threading.Lock()
    todo = iter(range(total))

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                break
            key = f"exact-{i:08d}-{uuid.uuid4().hex}"
            payload = f"{parts[0]}{key}{parts[1]}{key}@example.org{parts[2]}".encode()
            try:
                conn.request(
                    "POST", "/submit", payload, {"Content-Type": content_type, "Cookie": cookie}
                )
                resp = conn.getresponse()
                resp.read()
                outcome = str(resp.status)
            except (OSError, http.client.HTTPException) as exc:
                outcome = type(exc).__name__
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            with lock:
                counts[outcome] = counts.get(outcome, 0) + 1
        conn.close()

    workers = [threading.Thread(target=client) for _ in range(clients)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", default="16,64,256")
    parser.add_argument(
        "--exact",
        type=int,
        default=2000,
        help="submissions of the nothing-lost phase (64 connections)",
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per gunicorn worker (1: sync workers)"
    )
    parser.add_argument("--quick", action="store_true", help="3 s per level")
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
    if args.quick:
        args.seconds, args.exact = 3, 300
    for tool in ("wrk", "gunicorn"):
        if not shutil.which(tool) and not (Path(sys.executable).parent / tool).exists():
            emit("submit_vs_healthz", skipped=f"{tool} is not installed")
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
    instance = Path(tempfile.mkdtemp(prefix="sova-bench-"))
    env = dict(
        os.environ,
        SOVA_DATABASE_URL=url,
        SOVA_BROKER_URL=redis_url,
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_RATELIMIT_ENABLED="0",
        SOVA_MIN_FILL_SECONDS="0",
        SOVA_OUTBOX_AUTOSEND="0",
        PYTHONWARNINGS="ignore",
    )
    bindir = Path(sys.executable).parent
    subprocess.run(
        [str(bindir / "sova"), "db", "upgrade", "heads"], env=env, check=True, capture_output=True
    )
    port = free_port()
    relay = subprocess.Popen(
        [str(bindir / "sova"), "outbox", "relay"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    server = subprocess.Popen(
        [
            str(bindir / "gunicorn"),
            "-w",
            "2",
            "--threads",
            str(args.threads),
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "tests.bench.budget_app:create_app()" if args.budget else "webapp:create_app()",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        site = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{site}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        html = opener.open(f"{site}/submit").read().decode()
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
        cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
        body, content_type = browser_body(html, token)
        head, rest = body.split(KEY_MARK)
        middle, tail = rest.split(EMAIL_MARK)
        lua = instance / "post.lua"

        def write_lua(run: str) -> None:
            """A fresh idempotency key per request (a browser's form carries one) and a
            fresh e-mail: ``wrk-<run>-<thread>-<n>``, unique across levels and threads."""
            lua.write_text(
                "local n = 0\nlocal threads = 0\n"
                "function setup(thread) threads = threads + 1; thread:set('tid', threads) end\n"
                'wrk.method = "POST"\n'
                f'wrk.headers["Content-Type"] = {json.dumps(content_type)}\n'
                f'wrk.headers["Cookie"] = {json.dumps(cookie)}\n'
                "function request()\n  n = n + 1\n"
                f"  local id = string.format('wrk-{run}-%s-%d', tostring(tid), n)\n"
                f"  return wrk.format(nil, nil, nil, {lua_string(head)} .. id .. "
                f"{lua_string(middle)} .. id .. '@example.org' .. {lua_string(tail)})\nend\n",
                encoding="utf-8",
            )

        engine = sa.create_engine(url)
        ok_total = 0
        for clients in [int(c) for c in args.clients.split(",")]:
            common = [
                "wrk",
                "-t2",
                f"-c{clients}",
                f"-d{args.seconds}s",
                "--latency",
                "--timeout",
                "10s",
            ]
            write_lua(uuid.uuid4().hex[:12])
            health = parse_wrk(
                subprocess.run(
                    common + [f"{site}/healthz"], capture_output=True, text=True, check=True
                ).stdout
            )
            submit = parse_wrk(
                subprocess.run(
                    common + ["-s", str(lua), f"{site}/submit"],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            ok_total += submit["requests"] - submit["non_2xx_3xx"] - submit["socket_errors"]
            with engine.connect() as conn:
                stored = conn.execute(sa.text("SELECT count(*) FROM question")).scalar()
            emit(
                "submit_vs_healthz",
                clients=clients,
                healthz=health,
                submit=submit,
                throughput_ratio=round(submit["rps"] / health["rps"], 3),
                stored_total=stored,
                wrk_counted_total=ok_total,
            )
        if args.budget:
            common = ["wrk", "-t2", "-c64", f"-d{args.seconds}s", "--latency", "--timeout", "10s"]
            write_lua(uuid.uuid4().hex[:12])
            rates = {
                name: parse_wrk(
                    subprocess.run(
                        common
                        + (["-s", str(lua)] if path != "/healthz" else [])
                        + [f"{site}{path}"],
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                )
                for name, path in (
                    ("healthz", "/healthz"),
                    ("post_redirect", "/bench/redirect"),
                    ("form_only", "/bench/form"),
                    ("submit", "/submit"),
                )
            }
            emit(
                "submit_budget",
                clients=64,
                rps={k: v["rps"] for k, v in rates.items()},
                non_2xx_3xx={k: v["non_2xx_3xx"] for k, v in rates.items()},
                of_healthz={
                    k: round(v["rps"] / rates["healthz"]["rps"], 3) for k, v in rates.items()
                },
                submit_of_form_only=round(rates["submit"]["rps"] / rates["form_only"]["rps"], 3),
            )
        before = settled_count(engine)  # wrk's last in-flight requests finish first
        answers = exact_phase(
            port, (head, middle, tail), content_type, cookie, args.exact, clients=64
        )
        after = settled_count(engine)
        for _ in range(100):  # the relay process catches up within seconds
            with engine.connect() as conn:
                waiting = conn.execute(
                    sa.text("SELECT count(*) FROM outbox_message WHERE sent_at IS NULL")
                ).scalar()
            if not waiting:
                break
            time.sleep(0.1)
        emit(
            "submit_nothing_lost",
            clients=64,
            sent=args.exact,
            answers=answers,
            stored=after - before,
            nothing_lost=after - before == answers.get("302", 0),
            outbox_unsent_after=waiting,
        )
        engine.dispose()
    finally:
        for proc in (server, relay):
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
        shutil.rmtree(instance, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
