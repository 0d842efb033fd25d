"""SQLite: a question's full-text row (``question_fts``) goes with the question however it
is deleted (the trigger ``question_fts_question_deleted``, migration 0050): the ORM's
delete, a Core statement deleting an archive packet; a later import given the same ids
indexes its questions, and the search finds them, not the deleted ones."""

from __future__ import annotations

from sqlalchemy import delete, select

from tests.scale_data import archive_packet
from webapp.domain.packets import parse_packet
from webapp.extensions import db
from webapp.moderation.bulk_import import import_archive
from webapp.moderation.queries import fulltext
from webapp.submissions.models import Question
from webapp.tasks.outbox import commit


def fts_ids() -> list[int]:
    return sorted(db.session.scalars(db.text("SELECT rowid FROM question_fts")))


def ids() -> list[int]:
    return sorted(db.session.scalars(select(Question.id)))


def found(words: str) -> list[int]:
    return sorted(db.session.scalars(fulltext(select(Question.id), words)))


def test_a_deleted_questions_fulltext_row_goes_with_it(app):
    import_archive(parse_packet(archive_packet(10, seed=31)), origin="a.4s")
    import_archive(parse_packet(archive_packet(6, seed=32)), origin="b.4s")
    commit()
    assert fts_ids() == ids() and len(ids()) == 16
    b = db.session.scalars(select(Question).where(Question.origin.like("b.4s#%"))).all()
    b_ids, b_texts = [q.id for q in b], [q.text for q in b]
    # the ORM's delete
    db.session.delete(db.session.get(Question, ids()[0]))
    commit()
    assert fts_ids() == ids() and len(ids()) == 15
    # a Core statement deleting the last packet (the highest ids: SQLite gives them again)
    db.session.execute(delete(Question).where(Question.origin.like("b.4s#%")))
    commit()
    assert fts_ids() == ids() and len(ids()) == 9
    assert not set(b_ids) & set(fts_ids())
    # the next import takes the same ids and is indexed
    import_archive(parse_packet(archive_packet(6, seed=33)), origin="c.4s")
    commit()
    c = db.session.scalars(select(Question).where(Question.origin.like("c.4s#%"))).all()
    assert sorted(q.id for q in c) == sorted(b_ids)
    assert fts_ids() == ids() and len(ids()) == 15
    assert all(t not in {q.text for q in c} for t in b_texts)
    word = max(c[0].text.split(), key=len)
    assert c[0].id in found(word)


def test_the_migration_adds_and_drops_the_trigger(app):
    """0050 up deletes the rows of questions already gone and adds the trigger; down drops
    it (a Core delete leaves the row again)."""
    from flask_migrate import downgrade, upgrade

    def triggers() -> list[str]:
        return sorted(
            db.session.scalars(
                db.text(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'question'"
                )
            )
        )

    import_archive(parse_packet(archive_packet(4, seed=34)), origin="a.4s")
    commit()
    assert "question_fts_question_deleted" in triggers()
    db.session.remove()
    downgrade(revision="0049_question_author_by_author")
    assert "question_fts_question_deleted" not in triggers()
    gone = ids()[-1]
    db.session.execute(delete(Question).where(Question.id == gone))
    commit()
    assert gone in fts_ids()  # left behind without the trigger
    db.session.remove()
    upgrade(revision="heads")
    assert "question_fts_question_deleted" in triggers()
    assert fts_ids() == ids() and len(ids()) == 3
