"""reading time: the pre-check's estimate on the question (``question.reading_seconds``,
for the queue's order) and the producer's budget for an episode
(``game.reading_budget_seconds``)

Revision ID: 0037_reading_time
Revises: 0036_leak_mark
"""

import sqlalchemy as sa
from alembic import op

revision = "0037_reading_time"
down_revision = "0036_leak_mark"
branch_labels = None
depends_on = None


# ALTER TABLE … ADD / DROP COLUMN on both databases (SQLite 3.35+): a batch rebuild of
# ``question`` or ``game`` on SQLite drops the table, which the foreign keys pointing at it
# refuse.


def upgrade():
    op.add_column(
        "question", sa.Column("reading_seconds", sa.Float(), nullable=False, server_default="0")
    )
    op.add_column("game", sa.Column("reading_budget_seconds", sa.Integer(), nullable=True))


def downgrade():
    op.drop_column("game", "reading_budget_seconds")
    op.drop_column("question", "reading_seconds")
