"""outbox: ``done_at``, so the database knows which handed-over tasks never ran; and
``request_id``, the request that queued the task (it follows into the worker's log)

A row sent to the broker but not done is owed work (``webapp.owed.reconcile``). Rows sent
before this revision are taken as done (``done_at = sent_at``): their tasks ran long ago,
and resending the whole history at the first reconciliation would be a storm.

Revision ID: 0014_owed
Revises: 0013_vote
"""
import sqlalchemy as sa
from alembic import op

revision = "0014_owed"
down_revision = "0013_vote"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.add_column(sa.Column("done_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_outbox_message_done_at"), ["done_at"], unique=False)
        batch_op.add_column(sa.Column("request_id", sa.String(length=64), nullable=True))
    op.execute("UPDATE outbox_message SET done_at = sent_at WHERE sent_at IS NOT NULL")


def downgrade():
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_message_done_at"))
        batch_op.drop_column("done_at")
        batch_op.drop_column("request_id")
