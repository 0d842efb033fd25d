"""the producer sets the season's prize per unanswered question: its audit

``season_prize_change``: one row per change of ``season.unanswered_prize`` made on the season
page — who (``by_user_id``), when (``at``), the old amount (NULL: not set) and the new one.

Revision ID: 0018_season_prize
Revises: 0017_vote2
"""
import sqlalchemy as sa
from alembic import op

revision = "0018_season_prize"
down_revision = "0017_vote2"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "season_prize_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("old_amount", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.Column("new_amount", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"], ["season.id"], name="fk_season_prize_change_season_id_season"
        ),
        sa.ForeignKeyConstraint(
            ["by_user_id"], ["user.id"], name="fk_season_prize_change_by_user_id_user"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_season_prize_change_season_id", "season_prize_change", ["season_id"])


def downgrade():
    op.drop_index("ix_season_prize_change_season_id", table_name="season_prize_change")
    op.drop_table("season_prize_change")
