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


def upgrade():
    with op.batch_alter_table("question") as batch:
        batch.add_column(
            sa.Column("reading_seconds", sa.Float(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("reading_budget_seconds", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("game") as batch:
        batch.drop_column("reading_budget_seconds")
    with op.batch_alter_table("question") as batch:
        batch.drop_column("reading_seconds")
