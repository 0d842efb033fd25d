"""the season's individual-prize amounts as rows: ``season_amount`` (season_id, amount_key,
amount), one per amount key of the season's rule book, in place of one ``season`` column per amount
(``series_final_prize``, ``year_final_prize``, ``special_game_prize``), so a book's new prize
needs no column. ``unanswered_prize`` stays a column (the HTTP contract names it).

Revision ID: 0040_season_amount
Revises: 0039_game_host
"""

import sqlalchemy as sa
from alembic import op

revision = "0040_season_amount"
down_revision = "0039_game_host"
branch_labels = None
depends_on = None

#: The amount key each former column held.
COLUMNS = {
    "series_final": "series_final_prize",
    "year_final": "year_final_prize",
    "special_game": "special_game_prize",
}


def upgrade():
    op.create_table(
        "season_amount",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("amount_key", sa.String(length=40), nullable=False),
        sa.Column("amount", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.ForeignKeyConstraint(
            ["season_id"], ["season.id"], name="fk_season_amount_season_id_season"
        ),
        sa.PrimaryKeyConstraint("season_id", "amount_key", name="pk_season_amount"),
    )
    for key, column in COLUMNS.items():
        # every season keeps every value, NULL included: a row holding NULL is an amount
        # not set (the prize is refused), not the book's default a missing row falls back to
        op.execute(
            sa.text(
                f"INSERT INTO season_amount (season_id, amount_key, amount) "  # noqa: S608
                f"SELECT id, :key, {column} FROM season"
            ).bindparams(key=key)
        )
    # plain DROP COLUMN (SQLite >= 3.35, PostgreSQL): no batch rebuild of "season", which
    # the foreign keys of game, series and the prizes point at
    for column in COLUMNS.values():
        op.drop_column("season", column)


def downgrade():
    for column in COLUMNS.values():
        op.add_column("season", sa.Column(column, sa.Numeric(precision=12, scale=2), nullable=True))
    for key, column in COLUMNS.items():
        op.execute(
            sa.text(
                f"UPDATE season SET {column} = (SELECT amount FROM season_amount "  # noqa: S608
                "WHERE season_amount.season_id = season.id AND season_amount.amount_key = :key)"
            ).bindparams(key=key)
        )
    op.drop_table("season_amount")
