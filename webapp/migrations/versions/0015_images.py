"""packet images: the images a question's text refers to by file name

``question_image``: one row per ``(img name)`` / ``(pic: name)`` reference of a
question whose file came with its packet or was attached by an editor; ``file`` is the
stored re-encoding under ``<instance>/uploads``.

Revision ID: 0015_images
Revises: 0014_owed
"""
import sqlalchemy as sa
from alembic import op

revision = "0015_images"
down_revision = "0014_owed"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "question_image",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("file", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("question_id", "name"),
    )
    op.create_index("ix_question_image_question_id", "question_image", ["question_id"])


def downgrade():
    op.drop_index("ix_question_image_question_id", table_name="question_image")
    op.drop_table("question_image")
