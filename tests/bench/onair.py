"""`python -m tests.bench.onair`: the on-air feed under its graphics clients.

Sova served as deployed: the web on gunicorn with ``deploy/gunicorn.conf.py`` (sync
workers, ``SOVA_WEB_WORKERS=2``) and the stream service on gunicorn with
``deploy/gunicorn-stream.conf.py`` (``gthread``), the web's commits reaching the streams
through Redis pub/sub — on PostgreSQL and Redis when ``SOVA_BENCH_DATABASE_URL`` (or
``SOVA_TEST_DATABASE_URL``: a fresh database, dropped afterwards) and
``SOVA_BENCH_REDIS_URL`` (or ``SOVA_TEST_REDIS_URL``) are set — the graphics clients then
ask the stream service, as nginx routes them (``deploy/nginx.conf``), and the host the web;
otherwise on SQLite without Redis, where every client asks the web's sync workers, whose
stream answers at once with a ``retry:`` (``"transport": "retry"``). The graphics clients
run in a process of their own (their threads never hold the timer's interpreter lock). The demo pool (``sova seed-demo``), a 2023 game
played through the API as the host's console plays it: a spin, the minute's two taps and an
answer per round, eleven rounds (44 events). The game is played twice: once with one stream
client only (idle), once with 50 stream clients (an ``EventSource``: one held connection
reading every event, reconnecting with ``Last-Event-ID`` after a ``retry:``) and 10 clients
polling ``onair.json`` every 250 ms with ``If-None-Match`` (vMix). Prints JSON lines:

* ``onair_event``: the host's event (``POST /api/v1/games/{id}/events``) p50/p95 in ms,
  idle and under the clients, and their ratio (the console must not slow down);
* ``onair_staff``: a staff read of the game (``GET /api/v1/games/{id}``) p95, idle and
  under the clients;
* ``onair_delay``: from the event's answer to the moment a stream client has the row of
  that event, p50/p95 over every client and event (the overlay's delay);
* ``onair_polls``: the polling clients' answers (200 and 304 counts).

``--quick``: 10 stream and 2 polling clients; ``--polls-on-web``: the polling clients ask
the web instead of the stream service (the comparison in ``docs/performance.md``). Needs
gunicorn (in the dev lock).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

from tests.bench.databases import scratch_postgres
from tests.bench.figures import percentile
from tests.bench.stopping import stop_cleanly_on_sigterm
from tests.helpers import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]


def emit(name: str, **values) -> None:
    print(json.dumps({"bench": name, **values}, ensure_ascii=False), flush=True)


def sova(env: dict, *args: str) -> str:
    bindir = Path(sys.executable).parent
    run = subprocess.run(
        [str(bindir / "sova"), *args], env=env, capture_output=True, text=True, timeout=600
    )
    if run.returncode != 0:
        raise RuntimeError(f"sova {' '.join(args)}: {run.stderr[-2000:]}")
    return run.stdout


class Api:
    """JSON over HTTP with a bearer token."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method.upper())
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else {}
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                return exc.code, json.loads(raw or b"{}")
            except ValueError:
                return exc.code, {"body": raw[:300].decode(errors="replace")}


def game_events() -> list[dict]:
    """Eleven single rounds (every sector plain), experts winning 6:5: spin, minute start,
    minute stop, answer each."""
    out = []
    verdicts = [False, True] * 5 + [True]
    for sector, correct in zip(range(1, 12), verdicts, strict=True):
        out += [
            {"type": "spin", "sector": sector},
            {"type": "minute", "action": "start"},
            {"type": "minute", "action": "stop"},
            {"type": "answer", "correct": correct},
        ]
    return out


def stream_client(base: str, game_id: int, key: str, seen: dict, stop: threading.Event):
    """An EventSource: connect, read every event as it arrives (a held stream sends many,
    one that answers at once ends after its rows), wait ``retry``, connect again with the
    last revision; ``seen[revision]`` = the first moment (monotonic) this client had it."""
    last = -1
    while not stop.is_set():
        url = f"{base}/api/v1/games/{game_id}/onair/stream?key={key}"
        req = urllib.request.Request(url)
        if last >= 0:
            req.add_header("Last-Event-ID", str(last))
        retry = 0.25
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                if resp.status == 204:
                    return
                for raw in resp:  # one line at a time, as it comes
                    if stop.is_set():
                        return
                    line = raw.decode().rstrip("\n")
                    if line.startswith("retry: "):
                        retry = int(line[7:]) / 1000
                    elif line.startswith("id: "):  # an event ``row``: its id is the revision
                        revision = int(line[4:])
                        seen.setdefault(revision, time.monotonic())
                        last = max(last, revision)
        except (OSError, ValueError):
            pass
        stop.wait(retry)


def poller(base: str, game_id: int, key: str, counts: dict, stop: threading.Event):
    etag = None
    while not stop.is_set():
        req = urllib.request.Request(f"{base}/api/v1/games/{game_id}/onair.json?key={key}")
        if etag:
            req.add_header("If-None-Match", etag)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                etag = resp.headers.get("ETag")
                resp.read()
                counts[200] = counts.get(200, 0) + 1
        except urllib.error.HTTPError as exc:
            counts[exc.code] = counts.get(exc.code, 0) + 1
        except OSError:
            counts["error"] = counts.get("error", 0) + 1
        stop.wait(0.25)


def graphics(base, poll_base, game_id, key, streams, pollers, ready, stop, results) -> None:
    """The graphics clients (a process of their own): ``streams`` stream clients and
    ``pollers`` polling clients, ``ready`` once each has had a second to connect, until
    ``stop``; puts ``(seen, counts)`` on ``results``."""
    halt = threading.Event()
    seen: list[dict] = [{} for _ in range(streams)]
    counts: dict = {}
    threads = [
        threading.Thread(target=stream_client, args=(base, game_id, key, s, halt), daemon=True)
        for s in seen
    ] + [
        threading.Thread(target=poller, args=(poll_base, game_id, key, counts, halt), daemon=True)
        for _ in range(pollers)
    ]
    for t in threads:
        t.start()
    time.sleep(1.0)
    ready.set()
    stop.wait()
    halt.set()
    # a held stream's client notices the stop at its next line; it is a daemon thread,
    # so none is waited for long (its figures are in ``seen`` already)
    deadline = time.monotonic() + 2.0
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    results.put(([dict(c) for c in seen], dict(counts)))


def play(
    base: str,
    stream_base: str,
    poll_base: str,
    producer: Api,
    host: Api,
    streams: int,
    pollers: int,
) -> dict:
    """One game under ``streams`` stream clients and ``pollers`` polling clients."""
    tag = f"{time.time_ns()}"
    status, season = producer.call(
        "post", "/api/v1/seasons", {"name": f"Эфир {tag}", "ruleset": "2023"}
    )
    assert status == 201, season
    table = {"blitz": None, "superblitz": None, "sector13": None}
    status, game = producer.call(
        "post",
        "/api/v1/games",
        {"season_id": season["id"], "kind": "qualifying", "date": "2023-12-30", "table": table},
    )
    assert status == 201, game
    game_id = game["id"]
    status, filled = producer.call("post", f"/api/v1/games/{game_id}/assign")
    assert status == 200, filled
    status, token = producer.call("post", f"/api/v1/games/{game_id}/broadcast-tokens", {})
    assert status == 201, token
    key = token["token"]

    # the graphics clients run in a process of their own, as on their own machines: their
    # threads never share an interpreter lock with the host's timed requests
    spawn = multiprocessing.get_context("spawn")
    ready, stop, results = spawn.Event(), spawn.Event(), spawn.Queue()
    clients = spawn.Process(
        target=graphics,
        args=(stream_base, poll_base, game_id, key, streams, pollers, ready, stop, results),
        daemon=True,
    )
    clients.start()
    assert ready.wait(timeout=120), "the graphics clients did not start"
    posts, reads, answered = [], [], []
    for n, event in enumerate(game_events(), start=1):
        start = time.monotonic()
        status, body = host.call("post", f"/api/v1/games/{game_id}/events", event)
        done = time.monotonic()
        assert status == 201, (event, body)
        posts.append((done - start) * 1000)
        answered.append((n, done))
        start = time.monotonic()
        status, _ = host.call("get", f"/api/v1/games/{game_id}")
        reads.append((time.monotonic() - start) * 1000)
        time.sleep(0.3)  # the host's pace is seconds; this is enough for every client
    time.sleep(1.0)
    stop.set()
    seen, counts = results.get(timeout=60)
    clients.join(timeout=30)
    delays, missed = [], 0
    for client in seen:
        for revision, done in answered:
            # the stream sends the newest row: a client that asks after two events has the
            # first one's change with the second's row
            later = [at for r, at in client.items() if r >= revision]
            if later:
                delays.append(max(0.0, (min(later) - done) * 1000))
            else:
                missed += 1
    return {"posts": posts, "reads": reads, "delays": delays, "missed": missed, "counts": counts}


def serve(conf: str, env: dict, cwd: str) -> subprocess.Popen:
    """gunicorn with ``deploy/<conf>`` serving the app, in a process group of its own."""
    bindir = Path(sys.executable).parent
    return subprocess.Popen(
        [
            str(bindir / "gunicorn"),
            "-c",
            str(ROOT / "deploy" / conf),
            "--access-logfile",
            "/dev/null",
            "webapp:create_app()",
        ],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def ready(base: str) -> bool:
    try:
        urllib.request.urlopen(f"{base}/healthz", timeout=1)
        return True
    except OSError:
        return False


def measure(
    env: dict, tmp: str, base: str, stream_base: str, poll_base: str, streams: int, pollers: int
):
    """The idle and the loaded game on the served app: ``(idle, loaded)``."""
    sova(env, "db", "upgrade", "heads")
    sova(env, "seed-demo")
    producer = Api(base, sova(env, "users", "token", "--email", "producer@sova.local").strip())
    host = Api(base, sova(env, "users", "token", "--email", "host@sova.local").strip())
    servers = [serve("gunicorn.conf.py", env, tmp)]
    if stream_base != base:
        servers.append(serve("gunicorn-stream.conf.py", env, tmp))
    try:
        wait_for(lambda: ready(base) and ready(stream_base), timeout=60, what="gunicorn")
        idle = play(base, stream_base, poll_base, producer, host, 1, 0)
        loaded = play(base, stream_base, poll_base, producer, host, streams, pollers)
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)
    return idle, loaded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--polls-on-web",
        action="store_true",
        help="the polling clients ask the web's sync workers, not the stream service",
    )
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    streams, pollers = (10, 2) if args.quick else (50, 10)
    pg = os.environ.get("SOVA_BENCH_DATABASE_URL") or os.environ.get("SOVA_TEST_DATABASE_URL")
    redis_url = os.environ.get("SOVA_BENCH_REDIS_URL") or os.environ.get("SOVA_TEST_REDIS_URL")
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        port, stream_port = free_port(), free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SOVA_")},
            "SOVA_INSTANCE_PATH": str(Path(tmp) / "instance"),
            "SOVA_OUTBOX_AUTOSEND": "0",  # no broker: the bench reads, nothing is queued
            "SOVA_RATELIMIT_ENABLED": "0",
            "SOVA_PUBLIC_URL": base,
            "SOVA_BIND": f"127.0.0.1:{port}",
            "SOVA_WEB_WORKERS": os.environ.get("SOVA_WEB_WORKERS", "2"),
            "SOVA_STREAM_BIND": f"127.0.0.1:{stream_port}",
        }
        if os.environ.get("SOVA_STREAM_WORKERS"):  # else deploy/gunicorn-stream.conf.py's
            env["SOVA_STREAM_WORKERS"] = os.environ["SOVA_STREAM_WORKERS"]
        stream_base, database, transport = base, "sqlite", "retry"
        if pg and redis_url:
            env["SOVA_DATABASE_URL"] = stack.enter_context(scratch_postgres(pg, "onair"))
            env["SOVA_REDIS_URL"] = redis_url
            stream_base = f"http://127.0.0.1:{stream_port}"
            database, transport = "postgresql+redis", "held"
        poll_base = base if args.polls_on_web else stream_base
        idle, loaded = measure(env, tmp, base, stream_base, poll_base, streams, pollers)

    def p(values, q):
        return round(percentile(values, q), 1) if values else None

    emit(
        "onair_event",
        database=database,
        transport=transport,
        polls_on="web" if args.polls_on_web or stream_base == base else "stream service",
        clients={"stream": streams, "poll": pollers},
        idle_p50_ms=p(idle["posts"], 50),
        idle_p95_ms=p(idle["posts"], 95),
        loaded_p50_ms=p(loaded["posts"], 50),
        loaded_p95_ms=p(loaded["posts"], 95),
        p95_ratio=round(percentile(loaded["posts"], 95) / percentile(idle["posts"], 95), 2),
    )
    emit(
        "onair_staff",
        idle_p95_ms=p(idle["reads"], 95),
        loaded_p95_ms=p(loaded["reads"], 95),
        p95_ratio=round(percentile(loaded["reads"], 95) / percentile(idle["reads"], 95), 2),
    )
    emit(
        "onair_delay",
        clients=streams,
        events=len(game_events()),
        p50_ms=p(loaded["delays"], 50),
        p95_ms=p(loaded["delays"], 95),
        idle_p95_ms=p(idle["delays"], 95),
        missed=loaded["missed"],
    )
    emit("onair_polls", answers={str(k): v for k, v in loaded["counts"].items()})


if __name__ == "__main__":
    main()
