"""`python -m tests.bench.staff_lists [--quick] [--sizes 10000,50000] [--repeat K]`: the queue «по
повторам» and the games' index (its seasons) at a given number of viewer questions.

Per size a fresh database (SQLite, or PostgreSQL with ``SOVA_BENCH_DATABASE_URL``, as
:mod:`tests.bench.scale`) gets that many questions from :func:`tests.scale_data.add_questions`
(mixed statuses, every twelfth with a likely duplicate) and one season per 25 questions
(Core inserts; a real archive has a few dozen, the count only shows what grows); then each
page is fetched ``--repeat`` times (default 20) through the Flask test client as the chief
editor (the games' index as the producer), one JSON line per page: p50 and p95 (ms, wall), the CPU p50 of this process, on
PostgreSQL the server process's CPU per request, and the load average. The pages: the
queue «по повторам» of «На рассмотрении» and of «Все, кроме архива» (first page), a page
far down it (after the question in the middle of the order: within the long run of
questions without a duplicate) and one after the sixth (the page steps over scores), and
``/games/``."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.bench.databases import scratch_postgres
from tests.bench.figures import percentile
from tests.bench.scale import CHIEF, PRODUCER, client_of, emit, make_app, server_cpu

SEASONS_PER_QUESTION = 25


def add_seasons(n: int) -> None:
    from sqlalchemy import insert

    from webapp.core.models import utcnow
    from webapp.extensions import db
    from webapp.games.models import Season

    rows = [
        {
            "name": f"Сезон {i}",
            "ruleset": "2023",
            "currency": "BYN",
            "timezone": "Europe/Minsk",
            "created_at": utcnow(),
        }
        for i in range(1, n + 1)
    ]
    db.session.execute(insert(Season), rows)
    db.session.commit()


def build(app, n: int) -> dict[str, str]:
    from tests.scale_data import add_questions
    from webapp.accounts.operations import create_user
    from webapp.extensions import db
    from webapp.moderation import queries
    from webapp.tasks.outbox import commit

    with app.app_context():
        add_questions(n, seed=11)
        add_seasons(n // SEASONS_PER_QUESTION)
        create_user(CHIEF[0], "chief_editor", password=CHIEF[1])
        create_user(PRODUCER[0], "producer", password=PRODUCER[1])
        commit()
        every = [
            q.id for q in queries.queue_items(queries.QueueFilter(status=None, sort="duplicate"))
        ]
        if db.session.get_bind().dialect.name == "postgresql":
            db.session.connection().exec_driver_sql("ANALYZE")
        commit()
        db.session.remove()
    return {
        "queue_duplicate": "/editor/queue?sort=duplicate",
        "queue_duplicate_all": "/editor/queue?status=&sort=duplicate",
        "queue_duplicate_deep": f"/editor/queue?status=&sort=duplicate&after={every[len(every) // 2]}",
        "queue_duplicate_across": f"/editor/queue?status=&sort=duplicate&after={every[5]}",
        "games_index": "/games/",
    }


def measure(app, size: dict, urls: dict[str, str], repeat: int) -> None:
    clients = {"staff": client_of(app, CHIEF), "producer": client_of(app, PRODUCER)}
    for name, url in urls.items():
        client = clients["producer" if name.startswith("games") else "staff"]
        with app.app_context():
            first = client.get(url)
            assert first.status_code == 200, (url, first.status_code)
            times, cpu, server = [], [], []
            for _ in range(repeat):
                s0 = server_cpu()
                t, c = time.perf_counter(), time.process_time()
                resp = client.get(url)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
                s1 = server_cpu()
                if s0 is not None and s1 is not None:
                    server.append((s1 - s0) * 1000)
            times.sort()
            emit(
                "page",
                **size,
                page=name,
                url=url,
                status=resp.status_code,
                bytes=len(resp.data),
                p50_ms=round(statistics.median(times), 1),
                p95_ms=round(percentile(times, 95), 1),
                cpu_p50_ms=round(statistics.median(cpu), 1),
                server_cpu_p50_ms=round(statistics.median(server), 1) if server else None,
                repeat=repeat,
            )


def run(backend: str, url: str, n: int, repeat: int, tmp: Path) -> None:
    app = make_app(url, tmp)
    urls = build(app, n)
    measure(app, {"backend": backend, "questions": n}, urls, repeat)
    with app.app_context():
        from webapp.extensions import db

        db.session.remove()
        db.engine.dispose()


def one_size(base: str | None, n: int, repeat: int, tmp: Path) -> None:
    if not base:
        run("sqlite", f"sqlite:///{tmp / 'bench.sqlite'}", n, repeat, tmp)
        return
    with scratch_postgres(base, "lists") as url:
        run("postgresql", url, n, repeat, tmp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,50000", help="questions, comma-separated")
    parser.add_argument("--repeat", type=int, default=None, help="requests per page")
    parser.add_argument("--quick", action="store_true", help="2 000 questions, 5 requests")
    args = parser.parse_args(argv)
    sizes = "2000" if args.quick else args.sizes
    repeat = args.repeat or (5 if args.quick else 20)
    base = os.environ.get("SOVA_BENCH_DATABASE_URL")
    for n in (int(x) for x in sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="sova-bench-lists-") as folder:
            one_size(base, n, repeat, Path(folder))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("SOVA_ENV", "development")
    raise SystemExit(main())
