"""sent-mail ledger: one row per logical e-mail (exactly-once sending)

Revision ID: 0008_mail_log
Revises: 0007_topics
"""
import sqlalchemy as sa
from alembic import op

revision = "0008_mail_log"
down_revision = "0007_topics"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "mail_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(120), nullable=False),
        sa.Column("message_id", sa.String(255), nullable=False),
        sa.Column("recipient_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("task", sa.String(100), nullable=True),
        sa.Column("args", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("end_of_data_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reply", sa.String(200), nullable=True),
        sa.UniqueConstraint("key", name="uq_mail_log_key"),
    )
    op.create_index("ix_mail_log_recipient_hash", "mail_log", ["recipient_hash"])
    op.create_index("ix_mail_log_status", "mail_log", ["status"])


def downgrade():
    op.drop_index("ix_mail_log_status", table_name="mail_log")
    op.drop_index("ix_mail_log_recipient_hash", table_name="mail_log")
    op.drop_table("mail_log")
