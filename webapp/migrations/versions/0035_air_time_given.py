"""game: ``air_time_given``, whether the producer gave the game's air time

A game created without an air time kept ``air_date`` at 00:00 in the season's zone as its
air time, so a game recorded ahead became public on the morning of an evening broadcast.
From this revision such a game keeps that placeholder with ``air_time_given`` false and
nothing of it is published until the producer gives the time (the game page, the API).
Games that exist already keep being published as before (true): their public pages have
been read, and hiding them now would say more than showing them.

Revision ID: 0035_air_time_given
Revises: 0034_broadcast_tokens
"""

import sqlalchemy as sa
from alembic import op

revision = "0035_air_time_given"
down_revision = "0034_broadcast_tokens"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column(
        "game",
        sa.Column("air_time_given", sa.Boolean(), nullable=False, server_default=sa.true()),
    )


def downgrade():
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+ and PostgreSQL): a batch rebuild of ``game``
    # would break the foreign keys that point at it on SQLite
    op.drop_column("game", "air_time_given")
