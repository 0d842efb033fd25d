"""the season in the product: its teams (initial rating) and its stored events

Creates ``season_team`` (a team of a season; ``position`` = place in the initial rating,
null for a team that entered later) and ``season_events`` (the ``sova.season-protocol/1``
events of a season in ``seq`` order; ``game_id`` for a closed game's result). The season's
state is derived by replaying them (``webapp.domain.season``); nothing else is stored.

Revision ID: 0011_season_events
Revises: 0010_trust
"""
import sqlalchemy as sa
from alembic import op

revision = "0011_season_events"
down_revision = "0010_trust"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "season_team",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("season_id", sa.Integer(), sa.ForeignKey("season.id"), nullable=False),
        sa.Column("team_id", sa.Integer(), sa.ForeignKey("team.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("season_id", "team_id", name="uq_season_team"),
    )
    op.create_index("ix_season_team_season_id", "season_team", ["season_id"])
    op.create_index("ix_season_team_team_id", "season_team", ["team_id"])
    op.create_table(
        "season_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("season_id", sa.Integer(), sa.ForeignKey("season.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=True),
        sa.Column("by_user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("season_id", "seq", name="uq_season_events_seq"),
        sa.UniqueConstraint("game_id", name="uq_season_events_game"),
    )
    op.create_index("ix_season_events_season_id", "season_events", ["season_id"])


def downgrade():
    op.drop_index("ix_season_events_season_id", table_name="season_events")
    op.drop_table("season_events")
    op.drop_index("ix_season_team_team_id", table_name="season_team")
    op.drop_index("ix_season_team_season_id", table_name="season_team")
    op.drop_table("season_team")
