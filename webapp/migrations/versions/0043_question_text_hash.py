"""PostgreSQL: ``ix_question_text_hash``, a hash index of ``question.text``

What lets the import find a packet's questions already stored (``queries.texts_present``:
``text IN (…)``, a few hundred texts a statement) by looking each text up, instead of
reading the whole table once a statement: onto an archive of 500 000 questions a file of
10 000 read it twenty times. A hash index keeps a 4-byte hash per row whatever the text's
length (a B-tree would copy each text). SQLite has no hash index: its import keeps
reading the table.

Revision ID: 0043_question_text_hash
Revises: 0042_season_amount_change
"""

from alembic import op

revision = "0043_question_text_hash"
down_revision = "0042_season_amount_change"
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE INDEX ix_question_text_hash ON question USING hash (text)")


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_question_text_hash")
