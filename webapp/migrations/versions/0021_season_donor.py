"""the donor of a season's prizes, named on its gift agreements, minutes and vote result

``season.donor_name``, ``donor_city``, ``donor_details``, ``donor_representative``: the
party that gives the season's prizes («Даритель»). Existing seasons keep NULL: they print
their rule set's default (``webapp.games.season.queries.season_donor``: the
``SOVA_BROADCASTER_*`` settings for 2023, the neutral «Генеральный спонсор сезона», Москва,
for 2009). ``season_donor_change``: one row per change made on the season page — who, when,
the donor before and after, and how many unsigned agreements were issued again.

Revision ID: 0021_season_donor
Revises: 0020_heartbeat
"""
import sqlalchemy as sa
from alembic import op

revision = "0021_season_donor"
down_revision = "0020_heartbeat"
branch_labels = None
depends_on = None


def upgrade():
    # plain ALTER TABLE (no batch copy of "season": other tables reference it, and SQLite
    # 3.35+ adds and drops columns in place)
    op.add_column("season", sa.Column("donor_name", sa.String(length=300), nullable=True))
    op.add_column("season", sa.Column("donor_city", sa.String(length=100), nullable=True))
    op.add_column("season", sa.Column("donor_details", sa.Text(), nullable=True))
    op.add_column(
        "season", sa.Column("donor_representative", sa.String(length=300), nullable=True)
    )
    op.create_table(
        "season_donor_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("old", sa.JSON(), nullable=False),
        sa.Column("new", sa.JSON(), nullable=False),
        sa.Column("reissued", sa.Integer(), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["season_id"], ["season.id"], name="fk_season_donor_change_season_id_season"
        ),
        sa.ForeignKeyConstraint(
            ["by_user_id"], ["user.id"], name="fk_season_donor_change_by_user_id_user"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_season_donor_change_season_id", "season_donor_change", ["season_id"])


def downgrade():
    op.drop_index("ix_season_donor_change_season_id", table_name="season_donor_change")
    op.drop_table("season_donor_change")
    for column in ("donor_representative", "donor_details", "donor_city", "donor_name"):
        op.drop_column("season", column)
