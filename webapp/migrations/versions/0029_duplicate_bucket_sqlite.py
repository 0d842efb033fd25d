"""SQLite: ``duplicate_bucket`` without its foreign key; a trigger on ``question`` instead

On SQLite the foreign key ``duplicate_bucket.question_id → question.id`` made every insert
look its question up (the rebuild of 550 000 questions: 12 M lookups, most of its insert
time), and ``PRAGMA foreign_keys`` cannot be turned off inside the transaction the rebuild
runs in. The table is made again without the ``FOREIGN KEY`` clause and ``WITHOUT ROWID``
(the primary key is the whole row: one B-tree, not a rowid table beside its key's index;
the rebuild of 100 000 questions 12 % less CPU than without it), its rows copied and its
``question_id`` index made again; and the cascade's job, deleting a question's rows with
the question, is done by the trigger ``duplicate_bucket_question_deleted`` (``AFTER DELETE
ON question``). Sova writes only ids of questions it has just read in the same transaction
(the flush hook, the pre-check, the rebuild), so the check the key made on insert has no
work left. The rebuild (``webapp.moderation.duplicates._replace_sqlite``) makes the table
again from its own ``CREATE TABLE`` text, so this definition stays; the trigger belongs to
``question`` and is not dropped with ``duplicate_bucket``.

PostgreSQL keeps its foreign key (its rebuild adds the key after the rows, by one join):
nothing is done there. The downgrade puts the foreign key back on SQLite (deleting rows of
questions that no longer exist, which the key would refuse) and drops the trigger.

Revision ID: 0029_duplicate_bucket_sqlite
Revises: 0028_duplicate_order
"""

from alembic import op

revision = "0029_duplicate_bucket_sqlite"
down_revision = "0028_duplicate_order"
branch_labels = None
depends_on = None

TRIGGER = (
    "CREATE TRIGGER duplicate_bucket_question_deleted AFTER DELETE ON question "
    "BEGIN DELETE FROM duplicate_bucket WHERE question_id = OLD.id; END"
)
WITHOUT_KEY = (
    "CREATE TABLE duplicate_bucket (\n"
    "\tbucket BIGINT NOT NULL, \n"
    "\tquestion_id INTEGER NOT NULL, \n"
    "\tPRIMARY KEY (bucket, question_id)\n"
    ") WITHOUT ROWID"
)
WITH_KEY = (
    "CREATE TABLE duplicate_bucket (\n"
    "\tbucket BIGINT NOT NULL, \n"
    "\tquestion_id INTEGER NOT NULL, \n"
    "\tPRIMARY KEY (bucket, question_id), \n"
    "\tFOREIGN KEY(question_id) REFERENCES question (id) ON DELETE CASCADE\n"
    ")"
)
INDEX = "CREATE INDEX ix_duplicate_bucket_question_id ON duplicate_bucket (question_id)"


def _remake(create: str, rows_where: str = "") -> None:
    """Make ``duplicate_bucket`` again from ``create``, its rows (in primary key order)
    and its index copied over."""
    op.execute("ALTER TABLE duplicate_bucket RENAME TO duplicate_bucket_old")
    op.execute("DROP INDEX IF EXISTS ix_duplicate_bucket_question_id")
    op.execute(create)
    copy = (
        "INSERT INTO duplicate_bucket (bucket, question_id) "
        "SELECT bucket, question_id FROM duplicate_bucket_old "
    )
    op.execute(copy + rows_where + "ORDER BY bucket, question_id")
    op.execute("DROP TABLE duplicate_bucket_old")
    op.execute(INDEX)


def upgrade():
    if op.get_bind().dialect.name != "sqlite":
        return
    _remake(WITHOUT_KEY)
    op.execute("DROP TRIGGER IF EXISTS duplicate_bucket_question_deleted")
    op.execute(TRIGGER)


def downgrade():
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS duplicate_bucket_question_deleted")
    _remake(
        WITH_KEY,
        "WHERE question_id IN (SELECT id FROM question) ",
    )
