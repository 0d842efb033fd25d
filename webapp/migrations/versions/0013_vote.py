"""the 2009 §3.1 audience vote: vote, vote_message (the SMS log), vote_award (audit)

Revision ID: 0013_vote
Revises: 0012_author_line
"""
import sqlalchemy as sa
from alembic import op

revision = "0013_vote"
down_revision = "0012_author_line"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "vote",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("opened_by", sa.Integer(), nullable=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_by", sa.Integer(), nullable=True),
        sa.Column("votes", sa.JSON(), nullable=True),
        sa.Column("counted", sa.Integer(), nullable=True),
        sa.Column("repeats", sa.Integer(), nullable=True),
        sa.Column("invalid", sa.Integer(), nullable=True),
        sa.Column("late", sa.Integer(), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("log_sha256", sa.String(length=64), nullable=True),
        sa.Column("document_id", sa.Integer(), nullable=True),
        sa.Column("purge_after", sa.DateTime(timezone=True), nullable=True),
        sa.Column("numbers_purged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["opened_by"], ["user.id"]),
        sa.ForeignKeyConstraint(["closed_by"], ["user.id"]),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_vote_game_id", "vote", ["game_id"])
    op.create_index("uq_vote_one_open", "vote", ["status"], unique=True,
                    sqlite_where=sa.text("status = 'open'"),
                    postgresql_where=sa.text("status = 'open'"))
    op.create_table(
        "vote_message",
        sa.Column("id", BigId, nullable=False),
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=100), nullable=False),
        sa.Column("msisdn_hash", sa.String(length=64), nullable=True),
        sa.Column("text", sa.String(length=500), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("arrived_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("result", sa.String(length=10), nullable=False),
        sa.Column("candidate", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["vote_id"], ["vote.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("vote_id", "message_id", name="uq_vote_message_id"),
    )
    op.create_index("uq_vote_counted_msisdn", "vote_message", ["vote_id", "msisdn_hash"],
                    unique=True, sqlite_where=sa.text("result = 'counted'"),
                    postgresql_where=sa.text("result = 'counted'"))
    op.create_index("ix_vote_message_tally", "vote_message", ["vote_id", "result", "candidate"])
    op.create_table(
        "vote_award",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("prize_id", sa.Integer(), nullable=True),
        sa.Column("winner_name", sa.String(length=200), nullable=True),
        sa.Column("chosen_name", sa.String(length=200), nullable=False),
        sa.Column("overridden", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.String(length=1000), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["vote_id"], ["vote.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["prize_id"], ["prize.id"]),
        sa.ForeignKeyConstraint(["by_user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_vote_award_vote_id", "vote_award", ["vote_id"])


def downgrade():
    op.drop_index("ix_vote_award_vote_id", table_name="vote_award")
    op.drop_table("vote_award")
    op.drop_index("ix_vote_message_tally", table_name="vote_message")
    op.drop_index("uq_vote_counted_msisdn", table_name="vote_message")
    op.drop_table("vote_message")
    op.drop_index("uq_vote_one_open", table_name="vote")
    op.drop_index("ix_vote_game_id", table_name="vote")
    op.drop_table("vote")
