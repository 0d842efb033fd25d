"""The duplicate index has no foreign key on either database; the trigger
``duplicate_bucket_question_deleted`` on ``question`` deletes a deleted question's rows
(migrations 0029 on SQLite, 0048 on PostgreSQL). Every way a question leaves the
database (the ORM's delete, one statement deleting one question, one deleting a whole
archive packet, before and after a rebuild of the index) leaves no row of it, and the
other questions' rows stay exactly theirs."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, func, select

from tests.scale_data import archive_packet
from webapp.domain.packets import parse_packet
from webapp.extensions import db
from webapp.moderation import duplicates
from webapp.moderation.bulk_import import import_archive
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit


def add(text: str, status: str = "archived") -> Question:
    q = create_question(
        {"question": text, "answer": "Рюген", "authors": [("Ольга Петрова", "Витебск", None)]},
        "archive",
        status=status,
    )
    commit()
    return q


def index_rows() -> list[tuple[int, int]]:
    return sorted(db.session.execute(db.text("SELECT bucket, question_id FROM duplicate_bucket")))


def expected_rows() -> list[tuple[int, int]]:
    """The rows of every question in the database, as :func:`duplicates.buckets` has them."""
    keys = db.session.execute(select(Question.id, Question.matching_key)).all()
    return sorted((b, qid) for qid, key in keys for b in duplicates.buckets(key))


def orphans() -> int:
    return db.session.scalar(
        db.text(
            "SELECT count(*) FROM duplicate_bucket AS d"
            " WHERE NOT EXISTS (SELECT 1 FROM question AS q WHERE q.id = d.question_id)"
        )
    )


def assert_exact() -> None:
    assert orphans() == 0
    assert index_rows() == expected_rows()


def questions_of(origin: str) -> list[int]:
    return db.session.scalars(
        select(Question.id).where(Question.origin.like(f"{origin}#%")).order_by(Question.id)
    ).all()


def deleting_questions_leaves_no_index_rows() -> None:
    import_archive(parse_packet(archive_packet(40, seed=21)), origin="a.4s")  # insert_new_rows
    import_archive(parse_packet(archive_packet(30, seed=22)), origin="b.4s")
    commit()
    hooked = add(  # the flush hook
        "В начале XI века языческое святилище на острове Рюген было посвящено богу "
        "Свентовиту. Назовите остров, где стоял его храм."
    )
    received = add("Какой город основал Ярослав Мудрый на Волге в XI веке?", "received")
    assert duplicates.ensure_indexed(received.id) is True  # the pre-check's path
    commit()
    total = db.session.scalar(select(func.count()).select_from(Question))
    assert total == 72
    assert_exact()
    assert {qid for _, qid in index_rows()} == set(db.session.scalars(select(Question.id)).all())

    # the ORM's delete of one question
    hooked_id, received_id = hooked.id, received.id
    assert hooked_id in {qid for _, qid in index_rows()}
    db.session.delete(db.session.get(Question, hooked_id))
    commit()
    assert hooked_id not in {qid for _, qid in index_rows()}
    assert_exact()

    # one statement, one question; rolled back first: the rows come back with it
    before = index_rows()
    one = questions_of("b.4s")[0]
    db.session.execute(delete(Question).where(Question.id == one))
    assert one not in {qid for _, qid in index_rows()}
    db.session.rollback()
    assert index_rows() == before
    db.session.execute(delete(Question).where(Question.id == one))
    commit()
    assert one not in {qid for _, qid in index_rows()}
    assert_exact()

    # a whole archive packet in one statement
    packet = questions_of("a.4s")
    assert len(packet) == 40
    db.session.execute(delete(Question).where(Question.origin.like("a.4s#%")))
    commit()
    assert not set(packet) & {qid for _, qid in index_rows()}
    assert_exact()
    assert len({qid for _, qid in index_rows()}) == total - 1 - 1 - 40

    # after a rebuild (which makes the table again) the trigger still does its job, and
    # the writers still write
    assert duplicates.rebuild_index(batch=8) == total - 42
    commit()
    assert_exact()
    again = add("В каком году Ярослав Мудрый основал город на Волге?")
    import_archive(parse_packet(archive_packet(5, seed=23)), origin="c.4s")
    commit()
    assert_exact()
    assert again.id in {qid for _, qid in index_rows()}
    db.session.delete(db.session.get(Question, received_id))
    db.session.execute(delete(Question).where(Question.origin.like("b.4s#%")))
    commit()
    assert_exact()
    assert len({qid for _, qid in index_rows()}) == 1 + 5
    db.session.execute(delete(Question))
    commit()
    assert index_rows() == [] == expected_rows()


def test_deleting_questions_leaves_no_index_rows(app):
    deleting_questions_leaves_no_index_rows()


@pytest.mark.integration
def test_deleting_questions_leaves_no_index_rows_on_postgresql(pg_app):
    deleting_questions_leaves_no_index_rows()


def pg_keys_and_triggers() -> tuple[list[str], list[str]]:
    """PostgreSQL: the foreign keys of ``duplicate_bucket`` and the triggers on
    ``question`` (user-defined: not the foreign keys' own), by name."""
    keys = db.session.scalars(
        db.text(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'duplicate_bucket'::regclass"
            " AND contype = 'f' ORDER BY conname"
        )
    ).all()
    triggers = db.session.scalars(
        db.text(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = 'question'::regclass"
            " AND NOT tgisinternal ORDER BY tgname"
        )
    ).all()
    return keys, triggers


@pytest.mark.integration
def test_the_migration_trades_the_foreign_key_for_the_trigger_and_back(pg_app):
    """0048 up: no foreign key, the trigger; down: the rows of no question deleted (the
    key would refuse them), the key back (and its cascade), the trigger and its function
    gone; up again: as before, the rows untouched."""
    from flask_migrate import downgrade, upgrade

    assert pg_keys_and_triggers() == ([], ["duplicate_bucket_question_deleted"])
    import_archive(parse_packet(archive_packet(12, seed=24)), origin="a.4s")
    commit()
    rows = index_rows()
    assert rows == expected_rows() and len(rows) > 20 * 12
    # a row of no question: no key refuses it at head
    db.session.execute(db.text("INSERT INTO duplicate_bucket VALUES (42, 999999)"))
    commit()
    assert orphans() == 1
    db.session.remove()

    downgrade(revision="0047_vote_tally_include_result")
    assert pg_keys_and_triggers() == (["duplicate_bucket_question_id_fkey"], [])
    assert (
        db.session.scalar(
            db.text(
                "SELECT count(*) FROM pg_proc WHERE proname = 'duplicate_bucket_question_deleted'"
            )
        )
        == 0
    )
    assert index_rows() == rows  # the orphan gone, the rest kept
    first = questions_of("a.4s")[0]
    db.session.execute(delete(Question).where(Question.id == first))  # the key's cascade
    commit()
    assert index_rows() == expected_rows() and orphans() == 0
    rows = index_rows()
    db.session.remove()

    upgrade(revision="heads")
    assert pg_keys_and_triggers() == ([], ["duplicate_bucket_question_deleted"])
    assert index_rows() == rows
    db.session.execute(delete(Question).where(Question.origin.like("a.4s#%")))
    commit()
    assert index_rows() == []
