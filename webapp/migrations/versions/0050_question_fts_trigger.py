"""SQLite: a deleted question's full-text row goes with it, whatever deletes it

The FTS5 table ``question_fts`` (rowid = question id) was kept in step by the session's
flush hook only (``webapp.moderation.duplicates._sync_fulltext``): a question deleted by a
Core statement left its row behind, and a later question given the same id (SQLite hands
out the highest id again once it is gone) could not be indexed — the import writing it
failed on the row already there. The trigger ``question_fts_question_deleted`` (``AFTER
DELETE ON question``) deletes the row with its question, as
``duplicate_bucket_question_deleted`` does for the duplicate index; the upgrade deletes the
rows of questions already gone. PostgreSQL searches an expression index on ``question``
itself: nothing to do there. The downgrade drops the trigger.

Revision ID: 0050_question_fts_trigger
Revises: 0049_question_author_by_author
"""

from alembic import op

revision = "0050_question_fts_trigger"
down_revision = "0049_question_author_by_author"
branch_labels = None
depends_on = None

TRIGGER = (
    "CREATE TRIGGER question_fts_question_deleted AFTER DELETE ON question "
    "BEGIN DELETE FROM question_fts WHERE rowid = OLD.id; END"
)


def upgrade():
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DELETE FROM question_fts WHERE rowid NOT IN (SELECT id FROM question)")
    op.execute("DROP TRIGGER IF EXISTS question_fts_question_deleted")
    op.execute(TRIGGER)


def downgrade():
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS question_fts_question_deleted")
