"""the queue's indexes: keyset pages and a search without the archive

- ``ix_question_status_created`` (status, created_at, id): a queue of one status in its
  order («На рассмотрении», oldest or newest first), read from where a page starts;
- ``ix_question_live_created`` (created_at, id) of the questions not archived (partial):
  «Все, кроме архива» in its order without stepping over the archive;
- PostgreSQL: ``ix_question_fulltext_live``, the ``russian`` full-text expression index of
  the questions not archived (partial GIN), so a search in the queue's statuses reads the
  matches among the submissions, not the hundred thousand matches of the archive (the
  whole-table index stays for a search in the archive). The queue's statement repeats the
  predicate ``status <> 'archived'`` word for word (``webapp.moderation.queries``): that is
  what lets either database take a partial index.

Revision ID: 0026_queue_keyset_indexes
Revises: 0025_air_time
"""

from alembic import op

revision = "0026_queue_keyset_indexes"
down_revision = "0025_air_time"
branch_labels = None
depends_on = None

#: The full-text document, exactly as ``ix_question_fulltext`` (0002) and the queue's
#: search write it: an expression index is used only for the same expression.
DOCUMENT = "to_tsvector('russian', coalesce(text, '') || ' ' || coalesce(answer, ''))"


def upgrade():
    op.create_index("ix_question_status_created", "question", ["status", "created_at", "id"])
    op.execute(
        "CREATE INDEX ix_question_live_created ON question (created_at, id) "
        "WHERE status <> 'archived'"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE INDEX ix_question_fulltext_live ON question USING gin ({DOCUMENT}) "
            "WHERE status <> 'archived'"
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_question_fulltext_live")
    op.execute("DROP INDEX IF EXISTS ix_question_live_created")
    op.drop_index("ix_question_status_created", table_name="question")
