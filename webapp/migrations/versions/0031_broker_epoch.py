"""outbox: ``broker_epoch``, the epoch of the Redis broker each row was last handed to

A Redis broker that restarts empty gets a new epoch (the key ``sova:broker-epoch``, made by
the first process that finds it missing); a row handed over and not done whose epoch is not
the broker's current one was lost with it and is sent again at once by whichever process
sees the new epoch first (``webapp.tasks.outbox.after_broker_restart``). Rows handed over before
this revision have no epoch: if one of them was lost, the 600 s owed-after rule sends it.

Revision ID: 0031_broker_epoch
Revises: 0030_viewer_questions_index
"""

import sqlalchemy as sa
from alembic import op

revision = "0031_broker_epoch"
down_revision = "0030_viewer_questions_index"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.add_column(sa.Column("broker_epoch", sa.String(length=32), nullable=True))


def downgrade():
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.drop_column("broker_epoch")
