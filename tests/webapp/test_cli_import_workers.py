"""`sova import --as archive` with its files read and prepared by worker processes
(``--workers``, ``webapp.cli.content``): the rows are those of a reading in the command's
own thread (``--workers 0``); a bad file in the middle of a folder is named, exit 2, and
nothing of it kept while the files around it are; a worker that dies stops the command
(exit 1) naming the file it was preparing, nothing of that file or the later ones kept.
On SQLite and on PostgreSQL (skipped without SOVA_TEST_DATABASE_URL)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.helpers import descendants, process_alive
from tests.scale_data import archive_packet
from webapp.extensions import db
from webapp.moderation import bulk_import
from webapp.submissions.models import Author


def folder_of_three(tmp_path: Path, bad_middle: bool) -> Path:
    """``1-a.4s`` (40 questions), ``2-b.4s`` (30; with a question without an answer by a
    new author at its end when ``bad_middle``), ``3-c.4s`` (20)."""
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "1-a.4s").write_text(archive_packet(40, seed=11), encoding="utf-8")
    middle = archive_packet(30, seed=12)
    if bad_middle:
        middle += "\n? Вопрос без ответа от нового автора\n@ Новый Автор\n"
    (folder / "2-b.4s").write_text(middle, encoding="utf-8")
    (folder / "3-c.4s").write_text(archive_packet(20, seed=13), encoding="utf-8")
    return folder


def stored() -> dict[str, object]:
    """What an import leaves, ids aside: per file its questions' (origin, text, key), the
    authors' links and the duplicate index rows with the origin of their question."""
    run = lambda sql: db.session.execute(sa.text(sql)).all()  # noqa: E731
    return {
        "questions": run(
            "SELECT origin, text, matching_key, status, channel FROM question ORDER BY id"
        ),
        "links": run(
            "SELECT q.origin, l.position, l.name, l.city, a.name FROM question_author AS l"
            " JOIN question AS q ON q.id = l.question_id JOIN author AS a ON a.id = l.author_id"
            " ORDER BY q.id, l.position"
        ),
        "history": run(
            "SELECT q.origin, h.to_status FROM question_status_change AS h"
            " JOIN question AS q ON q.id = h.question_id ORDER BY q.id"
        ),
        "buckets": run(
            "SELECT b.bucket, q.origin FROM duplicate_bucket AS b"
            " JOIN question AS q ON q.id = b.question_id ORDER BY b.bucket, q.id"
        ),
    }


def files_of(questions) -> dict[str, int]:
    found: dict[str, int] = {}
    for origin, *_ in questions:
        name = origin.split("#")[0]
        found[name] = found.get(name, 0) + 1
    return found


def clear() -> None:
    for table in ("duplicate_bucket", "question_status_change", "question_author", "question"):
        db.session.execute(sa.text(f"DELETE FROM {table}"))  # noqa: S608
    if db.session.get_bind().dialect.name == "sqlite":
        db.session.execute(sa.text("DELETE FROM question_fts"))
    db.session.commit()


def workers_match_a_thread(app, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(bulk_import, "FIRST_BATCH", 3)  # several batches a file
    monkeypatch.setattr(bulk_import, "BATCH", 7)
    folder = folder_of_three(tmp_path, bad_middle=False)
    seen = []
    for workers in ("0", "2"):
        result = app.test_cli_runner().invoke(
            args=["import", str(folder), "--as", "archive", "--workers", workers]
        )
        assert result.exit_code == 0, result.output
        assert "total: 90 questions from 3 file(s); 0 file(s) failed" in result.stdout
        seen.append(stored())
        clear()
    thread, processes = seen
    assert files_of(processes["questions"]) == {"1-a.4s": 40, "2-b.4s": 30, "3-c.4s": 20}
    assert len(processes["buckets"]) > 20 * 90
    assert processes == thread


def test_worker_processes_write_the_rows_of_a_thread(app, tmp_path, monkeypatch):
    workers_match_a_thread(app, tmp_path, monkeypatch)


def test_worker_processes_write_the_rows_of_a_thread_on_postgresql(pg_app, tmp_path, monkeypatch):
    workers_match_a_thread(pg_app, tmp_path, monkeypatch)


def bad_file_in_the_middle(app, tmp_path) -> None:
    folder = folder_of_three(tmp_path, bad_middle=True)
    result = app.test_cli_runner().invoke(
        args=["import", str(folder), "--as", "archive", "--workers", "2"]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {folder / '2-b.4s'}, line ")
    assert result.stderr.endswith(": question has no answer ('!' line)\n")
    assert "total: 60 questions from 2 file(s); 1 file(s) failed" in result.stdout
    rows = stored()
    assert files_of(rows["questions"]) == {"1-a.4s": 40, "3-c.4s": 20}
    assert {origin.split("#")[0] for _, origin in rows["buckets"]} == {"1-a.4s", "3-c.4s"}
    assert db.session.scalar(sa.select(sa.func.count()).where(Author.name == "Новый Автор")) == 0


def test_a_bad_file_in_the_middle_leaves_nothing_of_it(app, tmp_path):
    bad_file_in_the_middle(app, tmp_path)


def test_a_bad_file_in_the_middle_leaves_nothing_of_it_on_postgresql(pg_app, tmp_path):
    bad_file_in_the_middle(pg_app, tmp_path)


def dying_worker(app, tmp_path, monkeypatch) -> None:
    """The worker preparing ``2-b.4s`` ends its process (as the kernel's OOM killer
    would) after sending its first batch, which the command may have written: the command
    stops with exit 1 and says which file; ``1-a.4s``, written before, stays; nothing of
    ``2-b.4s`` or ``3-c.4s``."""
    batches = bulk_import.batches

    def dies_in_b(packet, channel=None, origin="", dialect=None):
        for n, batch in enumerate(batches(packet, channel, origin, dialect)):
            if origin == "2-b.4s" and n == 1:
                os._exit(9)
            yield batch

    monkeypatch.setattr(bulk_import, "FIRST_BATCH", 7)
    monkeypatch.setattr(bulk_import, "BATCH", 7)
    monkeypatch.setattr(bulk_import, "batches", dies_in_b)  # the fork takes it along
    folder = folder_of_three(tmp_path, bad_middle=False)
    result = app.test_cli_runner().invoke(
        args=["import", str(folder), "--as", "archive", "--workers", "1"]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"Error: {folder / '2-b.4s'}: the process reading it stopped")
    assert result.stderr.endswith("nothing of it or of the files after it was imported\n")
    assert "1-a.4s: imported 40 questions as archive" in result.stdout
    assert "total:" not in result.stdout
    rows = stored()
    assert files_of(rows["questions"]) == {"1-a.4s": 40}
    assert {origin.split("#")[0] for _, origin in rows["buckets"]} == {"1-a.4s"}
    assert len(rows["links"]) == len([r for r in rows["links"] if r[0].startswith("1-a.4s#")])


def test_a_worker_dying_stops_the_command(app, tmp_path, monkeypatch):
    dying_worker(app, tmp_path, monkeypatch)


def test_a_worker_dying_stops_the_command_on_postgresql(pg_app, tmp_path, monkeypatch):
    dying_worker(pg_app, tmp_path, monkeypatch)


@pytest.mark.parametrize("workers", ["-1", "x"])
def test_a_bad_number_of_workers_is_refused(app, tmp_path, workers):
    (tmp_path / "a.4s").write_text(archive_packet(3, seed=1), encoding="utf-8")
    result = app.test_cli_runner().invoke(
        args=["import", str(tmp_path), "--as", "archive", "--workers", workers]
    )
    assert result.exit_code == 2
    assert "Invalid value for '--workers'" in result.stderr


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
def test_the_readers_end_when_the_command_is_killed(tmp_path):
    """``sova import`` killed outright (``SIGKILL``: nothing of it runs to stop its readers)
    while its reader processes still have files to prepare: they end by themselves
    within seconds instead of waiting for ever on the pipe no one reads."""
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "dump"
    folder.mkdir()
    for i in range(6):
        (folder / f"{i}.4s").write_text(archive_packet(2500, seed=40 + i), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOVA_")}
    env |= {"SOVA_INSTANCE_PATH": str(tmp_path / "inst"), "SOVA_BROKER_URL": "memory://"}
    run = [sys.executable, "-m", "webapp.cli_entry"]
    subprocess.run([*run, "db", "upgrade", "heads"], env=env, check=True, capture_output=True)
    command = subprocess.Popen(
        [*run, "import", str(folder), "--as", "archive", "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    readers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(readers := descendants(command.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(readers) >= 2, "the command started no readers"
        command.send_signal(signal.SIGKILL)
        command.wait()
        deadline = time.monotonic() + 10
        while [p for p in readers if process_alive(p)] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p for p in readers if process_alive(p)] == []
    finally:
        command.kill()
        for pid in readers:
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)
