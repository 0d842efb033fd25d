"""the stress dictionary: a word as an editor stressed it (``stress_entry``: the folded
key, the marked word, who, when), offered for the same word in later questions

Revision ID: 0038_stress_dictionary
Revises: 0037_reading_time
"""

import sqlalchemy as sa
from alembic import op

revision = "0038_stress_dictionary"
down_revision = "0037_reading_time"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "stress_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("marked", sa.String(length=120), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name="fk_stress_entry_user_id_user"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key", name="uq_stress_entry_key"),
    )


def downgrade():
    op.drop_table("stress_entry")
