"""a game's air time and the held-back question: ``game.air_at``, ``question.held_back_*``

``game.air_at``: when the game airs (UTC); the game is public once it is closed and this
time has passed (``webapp.games.publication``). Every existing game gets its ``air_date``
at 00:00 in its season's time zone (the default of new games too: the rule books name no
air hour). NOT NULL on PostgreSQL; on SQLite the column stays nullable (a batch copy of
"game" would have to drop a table that other tables' foreign keys point to), the model
always sets it.

``question.held_back_at`` / ``held_back_by`` / ``held_back_reason``: an editor held the
question back after its game aired; it then never appears on a public surface.

Revision ID: 0025_air_time
Revises: 0024_author_keys
"""

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision = "0025_air_time"
down_revision = "0024_author_keys"
branch_labels = None
depends_on = None


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade():
    op.add_column("game", sa.Column("air_at", sa.DateTime(timezone=True), nullable=True))
    bind = op.get_bind()
    game = sa.table(
        "game",
        sa.column("id", sa.Integer),
        sa.column("season_id", sa.Integer),
        sa.column("air_date", sa.Date),
        sa.column("air_at", sa.DateTime(timezone=True)),
    )
    season = sa.table("season", sa.column("id", sa.Integer), sa.column("timezone", sa.String))
    rows = bind.execute(
        sa.select(game.c.id, game.c.air_date, season.c.timezone).join(
            season, season.c.id == game.c.season_id
        )
    ).all()
    update = (
        sa.update(game).where(game.c.id == sa.bindparam("row_id")).values(air_at=sa.bindparam("at"))
    )
    batch = []
    for r in rows:
        air_date = r.air_date
        if isinstance(air_date, str):  # SQLite hands a Date back as text in a bare table
            air_date = datetime.strptime(air_date, "%Y-%m-%d").date()
        at = datetime.combine(air_date, time(0), tzinfo=ZoneInfo(r.timezone)).astimezone(UTC)
        batch.append({"row_id": r.id, "at": at.replace(tzinfo=None) if _sqlite() else at})
    for lo in range(0, len(batch), 5000):
        bind.execute(update, batch[lo : lo + 5000])
    if not _sqlite():
        op.alter_column("game", "air_at", nullable=False)
    op.create_index("ix_game_air_at", "game", ["air_at"])
    fk = () if _sqlite() else (sa.ForeignKey("user.id", name="fk_question_held_back_by_user"),)
    op.add_column("question", sa.Column("held_back_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("question", sa.Column("held_back_by", sa.Integer(), *fk, nullable=True))
    op.add_column("question", sa.Column("held_back_reason", sa.Text(), nullable=True))


def downgrade():
    op.drop_column("question", "held_back_reason")
    if not _sqlite():
        op.drop_constraint("fk_question_held_back_by_user", "question", type_="foreignkey")
    op.drop_column("question", "held_back_by")
    op.drop_column("question", "held_back_at")
    op.drop_index("ix_game_air_at", table_name="game")
    op.drop_column("game", "air_at")
