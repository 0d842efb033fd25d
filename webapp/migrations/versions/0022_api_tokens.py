"""API tokens of their own: ``api_token`` (one row per issued token: its SHA-256, creation,
last use, and when, by whom and why it was revoked)

Each user's existing token (``user.token_hash``) becomes a row (created at the user's
creation, never used as far as we know); ``user.token_hash`` is then cleared and no longer
read. The column itself stays: SQLite cannot drop a UNIQUE column in place, and a batch
copy of ``user`` would have to drop a table that other tables' foreign keys point to.

Revision ID: 0022_api_tokens
Revises: 0021_season_donor
"""
import sqlalchemy as sa
from alembic import op

revision = "0022_api_tokens"
down_revision = "0021_season_donor"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by_id", sa.Integer(), nullable=True),
        sa.Column("revoked_reason", sa.String(length=20), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name="fk_api_token_user_id_user"),
        sa.ForeignKeyConstraint(
            ["revoked_by_id"], ["user.id"], name="fk_api_token_revoked_by_id_user"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash", name="uq_api_token_token_hash"),
    )
    op.create_index("ix_api_token_user_id", "api_token", ["user_id"])
    op.execute(
        'INSERT INTO api_token (user_id, token_hash, created_at) '
        'SELECT id, token_hash, created_at FROM "user" WHERE token_hash IS NOT NULL'
    )
    op.execute('UPDATE "user" SET token_hash = NULL')


def downgrade():
    # the newest token still working of each user goes back to user.token_hash
    op.execute(
        'UPDATE "user" SET token_hash = (SELECT t.token_hash FROM api_token t '
        'WHERE t.user_id = "user".id AND t.revoked_at IS NULL ORDER BY t.id DESC LIMIT 1)'
    )
    op.drop_index("ix_api_token_user_id", table_name="api_token")
    op.drop_table("api_token")
