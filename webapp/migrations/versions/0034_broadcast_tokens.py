"""broadcast tokens: the per-game read-only keys of the on-air feed (``broadcast_token``:
the game, the producer's label, the SHA-256 of the token, who made and who revoked it)

Revision ID: 0034_broadcast_tokens
Revises: 0033_login_lock
"""

import sqlalchemy as sa
from alembic import op

revision = "0034_broadcast_tokens"
down_revision = "0033_login_lock"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "broadcast_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["game.id"], name="fk_broadcast_token_game_id_game", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by_id"], ["user.id"], name="fk_broadcast_token_created_by_id_user"
        ),
        sa.ForeignKeyConstraint(
            ["revoked_by_id"], ["user.id"], name="fk_broadcast_token_revoked_by_id_user"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_broadcast_token_token_hash"),
    )
    op.create_index("ix_broadcast_token_game_id", "broadcast_token", ["game_id"])


def downgrade():
    op.drop_index("ix_broadcast_token_game_id", table_name="broadcast_token")
    op.drop_table("broadcast_token")
