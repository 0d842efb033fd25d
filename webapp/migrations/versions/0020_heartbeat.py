"""process heartbeats in the database; superseded documents leave the owed counts

``process_heartbeat``: one row per long-running process (role ``worker`` or ``beat``, and its
node), its ``beat_at`` refreshed every few seconds (``sova health``).

``document.status`` gains ``superseded``: a pending version of a prize's document for which
a newer version of the same kind exists is never rendered; existing ones are marked so.

Revision ID: 0020_heartbeat
Revises: 0019_question_live_game
"""
import sqlalchemy as sa
from alembic import op

revision = "0020_heartbeat"
down_revision = "0019_question_live_game"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "process_heartbeat",
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("node", sa.String(length=200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("busy", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("role", "node"),
    )
    op.execute(
        "UPDATE document SET status = 'superseded' WHERE status = 'pending' "
        "AND prize_id IS NOT NULL AND EXISTS (SELECT 1 FROM document newer "
        "WHERE newer.kind = document.kind AND newer.prize_id = document.prize_id "
        "AND newer.version > document.version)"
    )


def downgrade():
    op.execute("UPDATE document SET status = 'pending' WHERE status = 'superseded'")
    op.drop_table("process_heartbeat")
