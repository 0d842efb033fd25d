"""`python -m tests.bench.scale [--quick] [--sizes A:S,…] [--repeat K]`: the staff pages,
the exports and the public pages at the size of the real archive and of a real season.

Per size (``--quick``: 2 000 archive questions + 200 viewer questions; default the three
sizes 10 000:2 000, 100 000:10 000, 500 000:50 000; ``--sizes`` or
``SOVA_BENCH_SCALE_SIZES`` for others, e.g. ``100000:10000``) a fresh database is built:

- the archive by ``sova import --as archive``'s bulk path
  (:mod:`webapp.moderation.bulk_import`) from a generated packet
  (:func:`tests.scale_data.archive_packet`): figure ``import`` (questions/s, wall and this
  process's CPU, and on PostgreSQL the server process's CPU too);
- the duplicate index rebuilt (:func:`webapp.moderation.duplicates.rebuild_index`): figure
  ``rebuild`` (seconds, wall and CPU);
- the viewer questions in mixed statuses and channels (:func:`tests.scale_data.add_questions`:
  Core inserts) and a season with one game;

then every page is fetched ``--repeat`` times (default 20, ``--quick`` 5) through the
Flask test client (as ``tests.bench.exports``; one process: the figures are the app's own
time, no server in between), logged in as the chief editor, and one JSON line per page
gives p50 and p95 (ms, wall), the CPU p50 of this process, the status and the body size:
the queue (default, last page, a search across all statuses), a question page, the game
page (as the producer), ``/editor/authors/``, ``/editor/stats``, the CSV and XLSX exports, the public pages
and ``/healthz`` in the same run (the floor). After the sizes, one ``pair`` line per staff page
and larger size: its p95 beside the same page's at the first size (10 000 by default) and
their ratio, with each run's ``/healthz`` p50, ``ok`` when within the goal (p95 ≤ 300 ms
and ≤ 1.5× the first size's).

On SQLite (a temporary file) by default; on PostgreSQL when ``SOVA_BENCH_DATABASE_URL`` is
set (a fresh database, dropped afterwards; with ``--reuse NAME`` the database
``NAME_<archive>_<viewer questions>`` is kept, and a later run with the same option finds
it filled and measures at once, after the migrations: a way to try a query at 500 000
without filling it again). The viewer questions are spread over a year (the statistics'
longest window). Never in ``make test``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.bench.databases import scratch_postgres
from tests.bench.figures import percentile

FULL_SIZES = ((10_000, 2_000), (100_000, 10_000), (500_000, 50_000))
QUICK_SIZES = ((2_000, 200),)
CHIEF = ("bench-chief@test.local", "bench-chief-pw")
EDITOR = ("bench-editor@test.local", "bench-editor-pw")  # pages whose name ends in _editor
PRODUCER = ("bench-producer@test.local", "bench-producer-pw")  # the game page is theirs


def emit(figure: str, **values) -> None:
    line = {"bench": "scale", "figure": figure, **values}
    line["loadavg"] = round(os.getloadavg()[0], 2)
    print(json.dumps(line, ensure_ascii=False), flush=True)


def sizes(arg: str | None, quick: bool) -> tuple[tuple[int, int], ...]:
    if quick:
        return QUICK_SIZES
    text = arg or os.environ.get("SOVA_BENCH_SCALE_SIZES")
    if not text:
        return FULL_SIZES
    out = []
    for part in text.split(","):
        archive, _, submissions = part.partition(":")
        out.append((int(archive), int(submissions or 0)))
    return tuple(out)


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


def server_cpu() -> float | None:
    """CPU seconds of this session's PostgreSQL server process (None elsewhere)."""
    from webapp.extensions import db

    connection = db.session.connection()
    if connection.dialect.name != "postgresql":
        return None
    pid = connection.connection.driver_connection.info.backend_pid
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # the server on another machine
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def build(app, backend: str, archive: int, submissions: int) -> dict:
    """The database of one size; returns the ids the pages need."""
    from tests.scale_data import add_questions, archive_packet
    from webapp.accounts.operations import create_user
    from webapp.domain.packets import parse_packet
    from webapp.extensions import db
    from webapp.games.season.operations import create_game, create_season
    from webapp.moderation import duplicates
    from webapp.moderation.bulk_import import import_archive
    from webapp.tasks.outbox import commit

    size = {"backend": backend, "archive": archive, "submissions": submissions}
    with app.app_context():
        duplicates.datasketch_hashing()  # its import (scipy) is not the import's work
        t, c = time.perf_counter(), time.process_time()
        packet = parse_packet(archive_packet(archive))
        server = server_cpu()
        import_archive(packet, origin="archive.4s")
        commit()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        after = server_cpu()
        emit(
            "import",
            **size,
            questions=archive,
            seconds=round(wall, 1),
            questions_per_s=round(archive / wall),
            cpu_s=round(cpu, 1),
            server_cpu_s=None if server is None or after is None else round(after - server, 1),
            target_questions_per_s=2000,
        )
        t, c = time.perf_counter(), time.process_time()
        indexed = duplicates.rebuild_index()
        commit()
        emit(
            "rebuild",
            **size,
            questions=indexed,
            seconds=round(time.perf_counter() - t, 1),
            cpu_s=round(time.process_time() - c, 1),
            target_s_at_550000=60,
        )
        t = time.perf_counter()
        if submissions:
            add_questions(submissions, seed=11, days=365)
        create_user(CHIEF[0], "chief_editor", password=CHIEF[1])
        create_user(PRODUCER[0], "producer", password=PRODUCER[1])
        create_user(EDITOR[0], "editor", password=EDITOR[1])
        season = create_season("Сезон нагрузки", "2023")
        create_game(season.id, "qualifying", season_date(), None, title="Игра нагрузки")
        commit()
        if backend == "postgresql":
            settle()
        emit("build", **size, seconds=round(time.perf_counter() - t, 1))
        db.session.remove()
    return found(app)


def settle() -> None:
    """``VACUUM ANALYZE`` (PostgreSQL), as autovacuum keeps a database in use: the
    planner's statistics (a database filled a moment ago has none, and its plans are not
    the ones served) and the visibility map (without it an index-only scan reads the rows
    too). Also after a reused database's migrations (their new indexes)."""
    from webapp.extensions import db

    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM ANALYZE")


def found(app) -> dict | None:
    """The ids the pages need, from a database :func:`build` filled (None when it holds no
    bench user: not filled, or filled only in part)."""
    from webapp.accounts.models import User
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.submissions.models import Author, Question, QuestionAuthor

    with app.app_context():
        if db.session.scalar(db.select(User.id).where(User.email == EDITOR[0])) is None:
            db.session.remove()
            return None
        question = db.session.scalar(
            db.select(Question.id).where(Question.status == "in_review").order_by(Question.id)
        ) or db.session.scalar(db.select(Question.id).order_by(Question.id))
        token = db.session.scalar(db.select(Question.public_token).where(Question.id == question))
        game_id = db.session.scalar(db.select(Game.id).order_by(Game.id))
        # the chief editor's page of the archive's most prolific author row
        author = db.session.scalar(
            db.select(QuestionAuthor.author_id)
            .join(Author, Author.id == QuestionAuthor.author_id)
            .where(Author.city.is_not(None))
            .group_by(QuestionAuthor.author_id)
            .order_by(db.func.count().desc(), QuestionAuthor.author_id)
            .limit(1)
        )
        db.session.remove()
    return {"question": question, "game": game_id, "token": token, "author": author}


def season_date():
    from datetime import date

    return date(2026, 12, 26)


def pages(ids: dict) -> list[tuple[str, str]]:
    """(name, URL) of every page measured; the queue's last page is asked by a number
    past the end (the page clamps it to the last)."""
    return [
        ("healthz", "/healthz"),
        ("queue_default", "/editor/queue"),
        ("queue_last_page", "/editor/queue?page=1000000"),
        ("queue_search_all_statuses", "/editor/queue?status=&q=году"),
        ("question_page", f"/editor/questions/{ids['question']}"),
        ("game_page", f"/games/{ids['game']}"),
        ("authors", "/editor/authors/"),
        ("stats", "/editor/stats"),
        ("stats_year", "/editor/stats?days=366"),
        ("author_page", f"/editor/authors/{ids['author']}"),
        ("queue_city", "/editor/queue?city=Минск"),
        ("queue_city_editor", "/editor/queue?city=Минск"),
        ("queue_signoff", "/editor/queue?signoff=pending"),
        ("queue_duplicate", "/editor/queue?sort=duplicate"),
        ("export_csv", "/editor/export.csv?status="),
        ("export_xlsx", "/editor/export.xlsx?status="),
        ("public_home", "/"),
        ("public_submit_form", "/submit"),
        ("public_status", f"/status/{ids['token']}"),
    ]


def client_of(app, who: tuple[str, str] | None):
    """A test client logged in as ``who`` (None: a viewer, no session)."""
    client = app.test_client()
    if who is not None:
        resp = client.post("/login", data={"email": who[0], "password": who[1]})
        assert resp.status_code == 302, resp.status_code
    return client


def measure(app, size: dict, ids: dict, repeat: int, only: str | None = None) -> dict:
    """Every page's figures (also emitted): ``{name: {"p50_ms", "p95_ms"}}``."""
    out = {}
    clients = {
        "staff": client_of(app, CHIEF),
        "editor": client_of(app, EDITOR),
        "producer": client_of(app, PRODUCER),
        "viewer": client_of(app, None),
    }
    for name, url in pages(ids):
        if only and name != "healthz" and not any(part in name for part in only.split(",")):
            continue
        who = "viewer" if name.startswith("public") else "staff"
        if name.endswith("_editor"):
            who = "editor"
        client = clients["producer" if name == "game_page" else who]
        first = client.get(url, buffered=False)  # warm: templates, caches
        body = sum(len(chunk) for chunk in first.response)
        first.close()
        times, cpu = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            resp = client.get(url, buffered=False)
            size_now = sum(len(chunk) for chunk in resp.response)  # a stream to its end
            resp.close()
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        times.sort()
        out[name] = {"p50_ms": statistics.median(times), "p95_ms": percentile(times, 95)}
        emit(
            "page",
            **size,
            page=name,
            url=url,
            status=resp.status_code,
            bytes=size_now or body,
            p50_ms=round(statistics.median(times), 1),
            p95_ms=round(percentile(times, 95), 1),
            cpu_p50_ms=round(statistics.median(cpu), 1),
            repeat=repeat,
        )

    return out


#: ``--only``: the pages measured (all when empty).
ONLY: list[str] = []


def run(backend: str, url: str, archive: int, submissions: int, repeat: int, tmp: Path) -> dict:
    app = make_app(url, tmp)
    size = {"backend": backend, "archive": archive, "submissions": submissions}
    ids = found(app)
    if ids is None:
        ids = build(app, backend, archive, submissions)
    elif backend == "postgresql":
        with app.app_context():
            settle()
    figures = measure(app, size, ids, repeat, ONLY[0] if ONLY else None)
    with app.app_context():
        from webapp.extensions import db

        db.session.remove()
        db.engine.dispose()
    return figures


#: The staff pages' goal at every size: p95 at most this, and at most RATIO times the
#: page's own p95 at the first size of the run (10 000 by default).
STAFF_P95_MS, RATIO = 300, 1.5


def pairs(first: tuple[int, int], first_figures: dict, size: tuple[int, int], figures: dict):
    """One ``pair`` line per staff page of ``size``: its p95 beside the same page's at the
    first size of the run, with ``/healthz``'s p50 of each run (the floor)."""
    floor = (first_figures.get("healthz", {}), figures.get("healthz", {}))
    for name, f in figures.items():
        if name == "healthz" or name.startswith(("public", "export")) or name not in first_figures:
            continue
        anchor = first_figures[name]["p95_ms"]
        ratio = f["p95_ms"] / max(anchor, 1e-6)
        emit(
            "pair",
            pair=f"scale_{name}",
            sova=f"p95 at {size[0]} + {size[1]} (ms)",
            anchor=f"p95 at {first[0]} + {first[1]} (ms)",
            sova_value=round(f["p95_ms"], 1),
            anchor_value=round(anchor, 1),
            ratio=round(ratio, 2),
            healthz_p50_ms=round(floor[1].get("p50_ms", 0), 1),
            anchor_healthz_p50_ms=round(floor[0].get("p50_ms", 0), 1),
            ok=f["p95_ms"] <= STAFF_P95_MS and ratio <= RATIO,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 000 + 200 (BENCH_QUICK=1)")
    parser.add_argument("--sizes", help="archive:submissions,… (default the three sizes)")
    parser.add_argument("--repeat", type=int, default=None, help="requests per page")
    parser.add_argument(
        "--reuse",
        metavar="NAME",
        help="PostgreSQL: keep the database NAME_<archive>_<viewer> and measure it again",
    )
    parser.add_argument(
        "--only",
        help="measure only the pages whose name holds one of these texts (comma-separated)",
    )
    args = parser.parse_args(argv)
    repeat = args.repeat or (5 if args.quick else 20)
    base = os.environ.get("SOVA_BENCH_DATABASE_URL")
    ONLY[:] = [args.only] if args.only else []
    first = None
    for archive, submissions in sizes(args.sizes, args.quick):
        with tempfile.TemporaryDirectory(prefix="sova-bench-scale-") as folder:
            figures = one_size(base, archive, submissions, repeat, Path(folder), args.reuse)
        if first is None:
            first = ((archive, submissions), figures)
        else:
            pairs(*first, (archive, submissions), figures)
    return 0


def one_size(
    base: str | None, archive: int, submissions: int, repeat: int, tmp: Path, reuse: str | None
) -> dict:
    """One size on SQLite (a file in ``tmp``, removed with it) or, with ``base``, on a new
    PostgreSQL database dropped afterwards (``reuse``: kept, and taken as it is when it
    exists)."""
    if base and reuse:
        url = kept_postgres(base, f"{reuse}_{archive}_{submissions}")
        return run("postgresql", url, archive, submissions, repeat, tmp)
    if not base:
        return run("sqlite", f"sqlite:///{tmp / 'bench.sqlite'}", archive, submissions, repeat, tmp)
    with scratch_postgres(base, "scale") as url:
        return run("postgresql", url, archive, submissions, repeat, tmp)


def kept_postgres(base: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``base``, created empty when missing."""
    import sqlalchemy as sa

    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.scalar(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if not exists:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)


if __name__ == "__main__":
    os.environ.setdefault("SOVA_ENV", "development")
    raise SystemExit(main())
