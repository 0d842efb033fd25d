"""PostgreSQL: ``duplicate_bucket`` without its foreign key; a trigger on ``question`` instead

The foreign key ``duplicate_bucket.question_id → question.id ON DELETE CASCADE`` made every
row the archive import writes look its question up and lock it (``FOR KEY SHARE``), one
lookup per index row where the question has many rows: most of the import's index time,
beside the primary key's own inserts. The key is
dropped, and its cascade's job, deleting a question's rows with the question, is done by
the trigger ``duplicate_bucket_question_deleted`` (``AFTER DELETE ON question``, once per
statement: one ``DELETE`` of the index rows of every question the statement deleted, read
from its transition table), as SQLite has done since ``0029_duplicate_bucket_sqlite``.
Every writer of the index writes ids of questions it has read or written in the same
transaction (the pre-check's :func:`~webapp.moderation.duplicates.ensure_indexed` locks
the question's row as the key did), and a lookup joins ``question``, so a row of a
question deleted meanwhile would be read by no one.

The downgrade deletes the rows of questions that no longer exist (which the key would
refuse), drops the trigger and its function and adds the key back. SQLite: nothing (it
has the trigger already).

Revision ID: 0048_duplicate_bucket_trigger
Revises: 0047_vote_tally_include_result
"""

from alembic import op

revision = "0048_duplicate_bucket_trigger"
down_revision = "0047_vote_tally_include_result"
branch_labels = None
depends_on = None

# The ids as one array, not a join with the transition table: PL/pgSQL plans the
# statement once per session, and a join planned for a large first delete (a hash join
# reading the whole index) could be kept for every later one-question delete; an array
# always goes through ``ix_duplicate_bucket_question_id``.
FUNCTION = """
CREATE OR REPLACE FUNCTION duplicate_bucket_question_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM duplicate_bucket WHERE question_id = ANY (ARRAY(SELECT id FROM gone));
    RETURN NULL;
END
$$
"""
TRIGGER = (
    "CREATE TRIGGER duplicate_bucket_question_deleted AFTER DELETE ON question"
    " REFERENCING OLD TABLE AS gone FOR EACH STATEMENT"
    " EXECUTE FUNCTION duplicate_bucket_question_deleted()"
)
KEY = "duplicate_bucket_question_id_fkey"


def upgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(f"ALTER TABLE duplicate_bucket DROP CONSTRAINT IF EXISTS {KEY}")
    op.execute(FUNCTION)
    op.execute("DROP TRIGGER IF EXISTS duplicate_bucket_question_deleted ON question")
    op.execute(TRIGGER)


def downgrade():
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS duplicate_bucket_question_deleted ON question")
    op.execute("DROP FUNCTION IF EXISTS duplicate_bucket_question_deleted()")
    op.execute(
        "DELETE FROM duplicate_bucket AS d"
        " WHERE NOT EXISTS (SELECT 1 FROM question AS q WHERE q.id = d.question_id)"
    )
    op.execute(
        f"ALTER TABLE duplicate_bucket ADD CONSTRAINT {KEY} FOREIGN KEY (question_id)"
        " REFERENCES question (id) ON DELETE CASCADE"
    )
