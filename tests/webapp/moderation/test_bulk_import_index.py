"""The archive import on PostgreSQL: the question rows cross from the reader processes
as lines of ``COPY``'s text format (``bulk_import.copy_lines``), and ``sova import``
writes each file's duplicate index rows after the file's commit, on a connection of its
own, owed by an outbox row until they are written (``write(…, index_after_commit=True)``,
``write_index``, the task ``moderation.index_questions``). Skipped without
SOVA_TEST_DATABASE_URL."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from tests.scale_data import archive_packet
from webapp.core.models import OutboxMessage
from webapp.extensions import db
from webapp.moderation import bulk_import
from webapp.moderation.duplicates import index_missing
from webapp.submissions.models import Question
from webapp.submissions.packet_files import read_packet_bytes
from webapp.tasks.owed import owed_status

#: Everything ``COPY``'s text format escapes, a backslash before a letter and a lone
#: ``\.`` line (its end-of-data mark), quotes and letters beyond ASCII.
AWKWARD = 'C:\\new\\table\t«tab»\r\nline two\n\\.\n"quoted" \\N ёжик'


def buckets_by_question() -> dict[int, list[int]]:
    rows = db.session.execute(
        sa.text("SELECT question_id, bucket FROM duplicate_bucket ORDER BY question_id, bucket")
    ).all()
    found: dict[int, list[int]] = {}
    for qid, bucket in rows:
        found.setdefault(qid, []).append(bucket)
    return found


def inline_then_later(n: int, seed: int) -> tuple[list[list[int]], bulk_import.ArchiveImport]:
    """A generated packet of ``n`` questions imported twice, each import committed: once
    with its index rows in its transaction, then with ``index_after_commit``. Returns the
    first import's rows (the buckets of each question, in order) and the second's
    ``ArchiveImport``."""
    text = archive_packet(n, seed=seed)
    inline = bulk_import.import_archive(read_packet_bytes(text.encode(), "inline.4s"))
    db.session.commit()
    expected = [buckets_by_question()[qid] for qid in inline.ids]
    prepared = bulk_import.prepare(read_packet_bytes(text.encode(), "later.4s"))
    done = bulk_import.write(prepared, index_after_commit=True)
    db.session.commit()
    return expected, done


def test_copy_text_lines_store_every_value_as_the_orm_would(pg_app):
    """Text with every character the format escapes, a JSON list, NULLs, booleans, a time:
    read back as given."""
    prepared = bulk_import.prepare(read_packet_bytes(archive_packet(3).encode(), "a.4s"))
    (batch,) = prepared.batches
    at = datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=UTC)
    batch.values[1].update(
        text=AWKWARD, comment=None, sources=["«Источник»\t\\", 'a "b"'], created_at=at
    )
    done = bulk_import.write(prepared)
    db.session.commit()
    stored = db.session.get(Question, done.ids[1])
    assert stored.text == AWKWARD
    assert stored.comment is None
    assert stored.sources == ["«Источник»\t\\", 'a "b"']
    assert stored.created_at == at
    assert (stored.consent_on_air, stored.age_confirmed) == (False, False)
    assert (
        db.session.scalar(
            sa.text("SELECT sources::text FROM question WHERE id = :id"), {"id": done.ids[1]}
        )
        == '["\\u00ab\\u0418\\u0441\\u0442\\u043e\\u0447\\u043d\\u0438\\u043a\\u00bb\\t\\\\", "a \\"b\\""]'
    )
    assert db.session.get(Question, done.ids[0]).text != AWKWARD


def test_the_index_rows_left_after_the_commit_are_owed_until_written(pg_app):
    """A file written with ``index_after_commit``: its questions and an outbox row handed
    over (sent, not done) commit without index rows; ``write_index`` on a connection of
    its own writes exactly the rows of an import that writes them in its transaction and
    marks the row done."""
    expected, done = inline_then_later(40, seed=21)
    owed = db.session.get(OutboxMessage, done.owed)
    assert (owed.task, owed.args) == ("moderation.index_questions", [done.ids[0], done.ids[-1]])
    assert (owed.sent_at is not None, owed.attempts, owed.done_at) == (True, 1, None)
    assert not set(buckets_by_question()) & set(done.ids)
    assert owed_status()["in_flight"] == 1
    with db.engine.begin() as connection:
        bulk_import.write_index(connection, done)
    db.session.expire_all()
    assert [buckets_by_question()[qid] for qid in done.ids] == expected
    assert db.session.get(OutboxMessage, done.owed).done_at is not None
    assert owed_status()["in_flight"] == 0


def test_the_task_writes_the_owed_rows_once(pg_app):
    """What a command killed after a file's commit leaves (questions, no index rows, the
    outbox row not done) is what ``moderation.index_questions`` finishes: the rows of the
    inline import; run again, it writes none."""
    expected, done = inline_then_later(25, seed=22)
    assert index_missing(done.ids[0], done.ids[-1]) == 25
    db.session.commit()
    assert [buckets_by_question()[qid] for qid in done.ids] == expected
    assert index_missing(done.ids[0], done.ids[-1]) == 0
    assert index_missing(done.ids[0] - 25, done.ids[-1]) == 0


def test_sova_import_writes_every_files_index_and_owes_nothing(pg_app, tmp_path):
    folder = tmp_path / "dump"
    folder.mkdir()
    for i, n in enumerate((30, 20)):
        (folder / f"{i}.4s").write_text(archive_packet(n, seed=30 + i), encoding="utf-8")
    result = pg_app.test_cli_runner().invoke(args=["import", str(folder), "--as", "archive"])
    assert result.exit_code == 0, result.output
    assert "total: 50 questions from 2 file(s); 0 file(s) failed" in result.stdout
    db.session.expire_all()
    ids = db.session.scalars(sa.select(Question.id).order_by(Question.id)).all()
    assert sorted(buckets_by_question()) == ids
    rows = db.session.execute(
        sa.select(OutboxMessage.args, OutboxMessage.done_at.is_not(None)).order_by(OutboxMessage.id)
    ).all()
    assert rows == [([ids[0], ids[29]], True), ([ids[30], ids[49]], True)]
