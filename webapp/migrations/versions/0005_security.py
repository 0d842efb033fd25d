"""security: per-account login lock-out (failed attempts, locked until)

Revision ID: 0005_security
Revises: 0004_prizes
"""
import sqlalchemy as sa
from alembic import op

revision = "0005_security"
down_revision = "0004_prizes"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("user") as batch:
        batch.add_column(sa.Column("failed_logins", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table("user") as batch:
        batch.drop_column("locked_until")
        batch.drop_column("failed_logins")
