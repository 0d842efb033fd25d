"""`python -m tests.bench.exports [--rows N] [--repeat K] [--quick]`: the queue's CSV and
XLSX exports of ``--rows`` listed questions (default 50 000; ``--quick``: 2 000), timed
end to end through the app (the request, the batched read, the streamed body read to its
last byte), ``--repeat`` times each (default 3). Prints JSON lines, one per backend and
format: rows, bytes, p50 and the spread (s, wall), the p50 of the CPU time of this
process (s: Sova's own work, the SQLite engine included, PostgreSQL's server not; on a
shared machine the wall time mostly says how busy the other processes kept the cores),
the targets (50 000 rows: CSV ≤ 3 s, XLSX
≤ 8 s) and the process's peak memory so far. Then the same rows through the worker's path
(``export_worker_csv`` / ``export_worker_xlsx``: the task's body writing the file under the
instance folder, its progress committed per batch), as an export of more than
``SOVA_EXPORT_INLINE_ROWS`` rows runs.

Always on SQLite (a temporary file); also on PostgreSQL when ``SOVA_BENCH_DATABASE_URL``
or ``SOVA_TEST_DATABASE_URL`` is set (a fresh database, dropped afterwards), as the other
benches pick theirs. The questions come from ``tests.scale_data.add_questions`` (mixed
statuses and channels, one in eight archived; the export asks for «Все, кроме архива»,
so it lists seven in eight)."""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from tests.bench.databases import scratch_postgres

TARGETS = {"csv": 3.0, "xlsx": 8.0}  # seconds for 50 000 rows


def emit(name: str, **values) -> None:
    print(json.dumps({"bench": name, **values}, ensure_ascii=False), flush=True)


def make_app(url: str, tmp: Path):
    from flask_migrate import upgrade

    from webapp.app import create_app

    app = create_app(
        {
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
            "SOVA_INSTANCE_PATH": str(tmp / "instance"),
            "SOVA_DATABASE_URL": url,
            "SOVA_BROKER_URL": "memory://",
            "SOVA_OUTBOX_AUTOSEND": False,
        }
    )
    with app.app_context():
        upgrade(revision="heads")
    return app


def run(backend: str, url: str, rows: int, repeat: int, tmp: Path) -> None:
    from tests.scale_data import add_questions
    from webapp.accounts.operations import create_user
    from webapp.extensions import db
    from webapp.tasks.outbox import commit

    app = make_app(url, tmp)
    with app.app_context():
        t = time.perf_counter()
        add_questions(math.ceil(rows * 8 / 7), seed=7)
        create_user("bench-editor@test.local", "editor", password="bench-editor-pw")
        commit()
        build_s = time.perf_counter() - t
        db.session.remove()
    client = app.test_client()
    resp = client.post(
        "/login", data={"email": "bench-editor@test.local", "password": "bench-editor-pw"}
    )
    assert resp.status_code == 302, resp.status_code
    for fmt in ("csv", "xlsx"):
        times, cpu, size = [], [], 0
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            resp = client.get(f"/editor/export.{fmt}?status=", buffered=False)
            size = sum(len(chunk) for chunk in resp.response)
            resp.close()
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            assert resp.status_code == 200, resp.status_code
        with app.app_context():
            listed = rows_listed(fmt, client)
        emit(
            f"export_{fmt}",
            backend=backend,
            rows=listed,
            bytes=size,
            p50_s=round(statistics.median(times), 3),
            min_s=round(min(times), 3),
            max_s=round(max(times), 3),
            cpu_p50_s=round(statistics.median(cpu), 3),
            target_s_at_50000=TARGETS[fmt],
            build_s=round(build_s, 1),
            peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            loadavg=round(os.getloadavg()[0], 2),
        )
    run_worker(backend, app, repeat)


def run_worker(backend: str, app, repeat: int) -> None:
    """The worker's path (``moderation.export_queue``'s body, ``export_jobs.run_export``):
    the same 50 000 rows written to the instance folder, the progress committed after
    each batch; an editor's job per run, p50 of wall and CPU as above."""
    from webapp.accounts.models import User
    from webapp.extensions import db
    from webapp.moderation.export_jobs import job_path, request_export, run_export
    from webapp.moderation.queries import QueueFilter
    from webapp.tasks.outbox import commit

    with app.app_context():
        editor = db.session.scalar(db.select(User.id).filter_by(role="editor"))
        for fmt in ("csv", "xlsx"):
            times, cpu, size, rows = [], [], 0, 0
            for _ in range(repeat):
                job = request_export(editor, fmt, QueueFilter(status=None), f"bench.{fmt}")
                commit()
                t, c = time.perf_counter(), time.process_time()
                job = run_export(job.id)
                commit()
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
                assert job.status == "ready", job.status
                size, rows = job_path(job).stat().st_size, job.total
                job_path(job).unlink()
            emit(
                f"export_worker_{fmt}",
                backend=backend,
                rows=rows,
                bytes=size,
                p50_s=round(statistics.median(times), 3),
                min_s=round(min(times), 3),
                max_s=round(max(times), 3),
                cpu_p50_s=round(statistics.median(cpu), 3),
                peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                loadavg=round(os.getloadavg()[0], 2),
            )
            db.session.remove()


def rows_listed(fmt: str, client) -> int:
    """The number of question rows the export holds (read once, outside the timing)."""
    import csv
    import io

    if fmt != "csv":
        fmt = "csv"  # the same rows (the test suite holds CSV and XLSX equal)
    text = client.get(f"/editor/export.{fmt}?status=").get_data().decode("utf-8-sig")
    return sum(1 for _ in csv.reader(io.StringIO(text), delimiter=";")) - 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2 000 rows (BENCH_QUICK=1)")
    args = parser.parse_args()
    if args.quick:
        args.rows = 2_000
    tmp = Path(tempfile.mkdtemp(prefix="sova-bench-exports-"))
    run("sqlite", f"sqlite:///{tmp / 'bench.sqlite'}", args.rows, args.repeat, tmp)
    base = os.environ.get("SOVA_BENCH_DATABASE_URL") or os.environ.get("SOVA_TEST_DATABASE_URL")
    if base:
        with scratch_postgres(base, "exports") as url:
            run("postgresql", url, args.rows, args.repeat, tmp / "pg")
    else:
        emit("export_postgresql", skipped="SOVA_BENCH_DATABASE_URL / SOVA_TEST_DATABASE_URL unset")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
