"""game day: teams, series, game ↔ team/series, console audit, table lock and reserves, 2009 sector-13
draws, printed copies

Revision ID: 0003_gameday
Revises: 0002_moderation
"""
import sqlalchemy as sa
from alembic import op

revision = "0003_gameday"
down_revision = "0002_moderation"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "team",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("captain", sa.String(length=100), nullable=False),
        sa.Column("experts", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", name="uq_team_name"),
    )
    op.create_table(
        "series",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"], name="fk_series_season_id"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("season_id", "part", name="uq_series_season_part"),
    )
    op.create_index("ix_series_season_id", "series", ["season_id"])
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("team_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("series_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_game_team_id", "team", ["team_id"], ["id"])
        batch.create_foreign_key("fk_game_series_id", "series", ["series_id"], ["id"])
        batch.create_index("ix_game_team_id", ["team_id"])
        batch.create_index("ix_game_series_id", ["series_id"])
        batch.add_column(sa.Column("table_locked_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("table_locked_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_game_table_locked_by", "user", ["table_locked_by"], ["id"])
    op.create_table(
        "game_event_audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=10), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_game_event_audit_game_id",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["by_user_id"], ["user.id"],
                                name="fk_game_event_audit_by_user_id"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_game_event_audit_game_id", "game_event_audit", ["game_id"])
    op.create_table(
        "envelope_reserve",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("envelope_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["envelope_id"], ["envelope.id"],
                                name="fk_envelope_reserve_envelope_id", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_envelope_reserve_game_id",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"],
                                name="fk_envelope_reserve_question_id"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("envelope_id", name="uq_envelope_reserve_envelope_id"),
        sa.UniqueConstraint("game_id", "question_id", name="uq_envelope_reserve_game_question"),
    )
    op.create_index("ix_envelope_reserve_game_id", "envelope_reserve", ["game_id"])
    op.create_index("ix_envelope_reserve_question_id", "envelope_reserve", ["question_id"])
    op.create_table(
        "sector13_draw",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("spun_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=True),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("cancelled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_sector13_draw_game_id",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"],
                                name="fk_sector13_draw_question_id"),
        sa.ForeignKeyConstraint(["by_user_id"], ["user.id"], name="fk_sector13_draw_by_user_id"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_sector13_draw_game_id", "sector13_draw", ["game_id"])
    op.create_table(
        "printed_copy",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("copy_no", sa.Integer(), nullable=False),
        sa.Column("serial", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"],
                                name="fk_printed_copy_document_id", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], name="fk_printed_copy_game_id",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("document_id", "copy_no", name="uq_printed_copy_document_copy"),
        sa.UniqueConstraint("serial", name="uq_printed_copy_serial"),
    )
    op.create_index("ix_printed_copy_document_id", "printed_copy", ["document_id"])
    op.create_index("ix_printed_copy_game_id", "printed_copy", ["game_id"])


def downgrade():
    op.drop_index("ix_printed_copy_game_id", table_name="printed_copy")
    op.drop_index("ix_printed_copy_document_id", table_name="printed_copy")
    op.drop_table("printed_copy")
    op.drop_index("ix_sector13_draw_game_id", table_name="sector13_draw")
    op.drop_table("sector13_draw")
    op.drop_index("ix_envelope_reserve_question_id", table_name="envelope_reserve")
    op.drop_index("ix_envelope_reserve_game_id", table_name="envelope_reserve")
    op.drop_table("envelope_reserve")
    op.drop_index("ix_game_event_audit_game_id", table_name="game_event_audit")
    op.drop_table("game_event_audit")
    with op.batch_alter_table("game") as batch:
        batch.drop_constraint("fk_game_table_locked_by", type_="foreignkey")
        batch.drop_column("table_locked_by")
        batch.drop_column("table_locked_at")
        batch.drop_index("ix_game_series_id")
        batch.drop_index("ix_game_team_id")
        batch.drop_constraint("fk_game_series_id", type_="foreignkey")
        batch.drop_constraint("fk_game_team_id", type_="foreignkey")
        batch.drop_column("series_id")
        batch.drop_column("team_id")
    op.drop_index("ix_series_season_id", table_name="series")
    op.drop_table("series")
    op.drop_table("team")
