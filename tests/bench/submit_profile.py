"""`python -m tests.bench.submit_profile`: the web process's CPU per ``POST /submit``,
in-process (Flask's test client), with the body and settings of ``tests.bench.submit``.

Sova on a fresh PostgreSQL database (migrated, dropped at the end), rate limits counted in
Redis, behind one trusted proxy, the minimum fill time on, the outbox left to a relay (not
run: the rows stay unsent). The page is loaded once, the browser's body built from it
(:func:`tests.bench.submit.browser_body`), then ``--requests`` submissions are posted, each
with its own idempotency key, e-mail and ``X-Forwarded-For``, after ``--warmup`` of the
same. Prints one JSON line: CPU (``time.process_time``) and wall time per request in ms,
and the load average; ``--profile FILE`` writes a cProfile dump of the measured requests
(``python -m pstats FILE``), ``--top N`` prints the N largest cumulative entries.

``--app textbook`` posts the same body to the bench's anchor (``tests/bench/textbook_app.py``,
on a database of its own). ``SOVA_RATELIMIT_ENABLED=0`` in the environment turns Sova's
limits off (an experiment: what they cost; never the bench's setting). The CPU is
``process_time`` (cProfile's clock too), so the figures hold on a busy machine.

Only this process's CPU is counted: PostgreSQL's, Redis's and the relay's work is not (the
bench's ``cpu_ms_per_question`` splits those). Settings: SOVA_BENCH_DATABASE_URL as the
bench, SOVA_PROFILE_REDIS_URL (default redis://127.0.0.1:6379/15).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import re
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

from tests.bench.submit import (
    MIN_FILL_SECONDS,
    browser_body,
    create_database,
    split_body,
    viewer_address,
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--profile", help="write a cProfile dump of the measured requests")
    parser.add_argument("--top", type=int, default=0, help="print the top N cumulative entries")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="time each phase of the measured requests (tests/bench/phases.py): one JSON "
        "line per phase and a table, CPU and wall ms per request",
    )
    parser.add_argument(
        "--app",
        choices=("sova", "textbook"),
        default="sova",
        help="the app posted to (textbook: tests/bench/textbook_app.py, the bench's anchor)",
    )
    args = parser.parse_args()
    base = os.environ.get(
        "SOVA_BENCH_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    redis_url = os.environ.get("SOVA_PROFILE_REDIS_URL", "redis://127.0.0.1:6379/15")
    with contextlib.ExitStack() as stack:
        admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
        stack.callback(admin.dispose)
        tag = uuid.uuid4().hex[:8]
        url = create_database(admin, base, f"sova_profile_{tag}", stack)
        instance = tempfile.mkdtemp(prefix="sova-profile-")
        os.environ.update(
            SOVA_DATABASE_URL=url,
            SOVA_BROKER_URL=redis_url,
            SOVA_REDIS_URL=redis_url,
            SOVA_PROXY_COUNT="1",
            SOVA_MIN_FILL_SECONDS=str(MIN_FILL_SECONDS),
            SOVA_INSTANCE_PATH=instance,
            SOVA_OUTBOX_AUTOSEND="0",
            SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_hex(32),
        )
        if os.environ.get("SOVA_RATELIMIT_ENABLED") != "0":  # experiments only: limits off
            os.environ.pop("SOVA_RATELIMIT_ENABLED", None)
        bindir = Path(sys.executable).parent
        subprocess.run(
            [str(bindir / "sova"), "db", "upgrade", "heads"], check=True, capture_output=True
        )
        from webapp import create_app

        app = sova = create_app()
        html = sova.test_client().get("/submit").get_data(as_text=True)
        if args.app == "textbook":
            from tests.bench import textbook_app

            own_url = create_database(admin, base, f"sova_profile_textbook_{tag}", stack)
            os.environ.update(
                TEXTBOOK_DATABASE_URL=own_url,
                TEXTBOOK_BROKER_URL=redis_url,
                TEXTBOOK_SECRET_KEY=secrets.token_hex(32),
            )
            textbook_app.create_tables(own_url)
            app = textbook_app.create_app()
        client = app.test_client()
        own = client.get("/submit").get_data(as_text=True)
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', own).group(1)
        body, content_type = browser_body(html, token)  # Sova's page: the bench's body
        head, middle, tail = split_body(body)
        time.sleep(MIN_FILL_SECONDS + 0.5)
        salt = uuid.uuid4().hex[:8]

        def post(i: int) -> None:
            key = f"prof-{salt}-{i:08d}"
            resp = client.post(
                "/submit",
                data=f"{head}{key}{middle}{key}@example.org{tail}".encode(),
                headers={
                    "Content-Type": content_type,
                    "X-Forwarded-For": viewer_address(int(salt[:4], 16), 1, i),
                },
            )
            if resp.status_code != 302:
                raise RuntimeError(f"request {i}: {resp.status_code} {resp.get_data()[:500]!r}")

        for i in range(args.warmup):
            post(i)
        phases = None
        if args.breakdown:
            from tests.bench.phases import Phases, instrument

            phases = Phases()
            instrument(phases, app)
            phases.enabled = True
        profiler = cProfile.Profile(time.process_time) if args.profile or args.top else None
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if profiler:
            profiler.enable()
        for i in range(args.warmup, args.warmup + args.requests):
            post(i)
        if profiler:
            profiler.disable()
        if phases:
            phases.enabled = False
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        with sova.app_context():
            from webapp.extensions import db

            db.engine.dispose()
        if args.app == "textbook":
            with app.app_context():
                textbook_app.db.engine.dispose()
        print(
            json.dumps(
                {
                    "bench": "submit_profile",
                    "app": args.app,
                    "requests": args.requests,
                    "cpu_ms_per_request": round(1000 * cpu / args.requests, 3),
                    "wall_ms_per_request": round(1000 * wall / args.requests, 3),
                    "profiled": bool(profiler),
                    "loadavg": [round(x, 2) for x in os.getloadavg()],
                }
            ),
            flush=True,
        )
        if phases:
            print_breakdown(phases, args, cpu, wall)
        if profiler:
            if args.profile:
                profiler.dump_stats(args.profile)
            if args.top:
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.top)
    return 0


def print_breakdown(phases, args, cpu: float, wall: float) -> None:
    """One JSON line per phase (``submit_phase``), then a Markdown table with the test
    client's share (building the request and reading the answer: not the server's) and
    the total per request."""
    rows = phases.per_request(args.requests)
    for row in rows:
        print(json.dumps({"bench": "submit_phase", "app": args.app, **row}, ensure_ascii=False))
    served_cpu = sum(r["cpu_ms"] for r in rows)
    served_wall = sum(r["wall_ms"] for r in rows)
    total_cpu, total_wall = 1000 * cpu / args.requests, 1000 * wall / args.requests
    print(f"\n| phase ({args.app}) | CPU ms | wall ms | calls |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['phase']} | {r['cpu_ms']:.3f} | {r['wall_ms']:.3f} | {r['calls']:g} |")
    print(f"| **served (WSGI call)** | **{served_cpu:.3f}** | **{served_wall:.3f}** | |")
    print(
        f"| test client (not the server) | {total_cpu - served_cpu:.3f} | "
        f"{total_wall - served_wall:.3f} | |"
    )
    print(f"| **per request, in-process** | **{total_cpu:.3f}** | **{total_wall:.3f}** | |")


if __name__ == "__main__":
    sys.exit(main())
