"""leak marks: an editor's «так задумано» on an answer word the pre-check found in the
question (``leak_mark``: the question, the folded answer word, who, when)

Revision ID: 0036_leak_mark
Revises: 0035_air_time_given
"""

import sqlalchemy as sa
from alembic import op

revision = "0036_leak_mark"
down_revision = "0035_air_time_given"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "leak_mark",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("word", sa.String(length=100), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["question.id"],
            name="fk_leak_mark_question_id_question",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name="fk_leak_mark_user_id_user"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("question_id", "word", name="uq_leak_mark_question_id_word"),
    )
    op.create_index("ix_leak_mark_question_id", "leak_mark", ["question_id"])


def downgrade():
    op.drop_index("ix_leak_mark_question_id", table_name="leak_mark")
    op.drop_table("leak_mark")
