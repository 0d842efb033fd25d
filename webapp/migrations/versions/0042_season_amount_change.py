"""the producer changes the season's individual-prize amounts on the season page: their audit

``season_amount_change``: one row per changed ``season_amount`` — which amount
(``amount_key``), who (``by_user_id``), when (``at``), the old amount (NULL: not set) and the
new one.

Revision ID: 0042_season_amount_change
Revises: 0041_staff_page_indexes
"""

import sqlalchemy as sa
from alembic import op

revision = "0042_season_amount_change"
down_revision = "0041_staff_page_indexes"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "season_amount_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("amount_key", sa.String(length=40), nullable=False),
        sa.Column("old_amount", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.Column("new_amount", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"], ["season.id"], name="fk_season_amount_change_season_id_season"
        ),
        sa.ForeignKeyConstraint(
            ["by_user_id"], ["user.id"], name="fk_season_amount_change_by_user_id_user"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_season_amount_change"),
    )
    op.create_index("ix_season_amount_change_season_id", "season_amount_change", ["season_id"])


def downgrade():
    op.drop_index("ix_season_amount_change_season_id", table_name="season_amount_change")
    op.drop_table("season_amount_change")
