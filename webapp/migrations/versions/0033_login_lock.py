"""the login lock-out per source: ``login_lock`` (an account and an address, or an account
and a trusted device), instead of the account's own ``failed_logins`` and ``locked_until``

A lock of the whole account let anyone who knew a staff e-mail lock its owner out for the
lock's length (five wrong passwords before a live game); now only the source that failed is
locked (``webapp.accounts.operations.authenticate``). The account's running counts are not
carried over: a lock under way ends with this migration.

Revision ID: 0033_login_lock
Revises: 0032_payee_name_agreement_number
"""

import sqlalchemy as sa
from alembic import op

revision = "0033_login_lock"
down_revision = "0032_payee_name_agreement_number"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "login_lock",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), primary_key=True),
        sa.Column("source", sa.String(80), primary_key=True),
        sa.Column("failures", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
    )
    # ALTER TABLE … DROP COLUMN in place (SQLite 3.35+, PostgreSQL): a batch rebuild of
    # "user" would drop the table that api_token and others reference (foreign keys on)
    op.execute('ALTER TABLE "user" DROP COLUMN locked_until')
    op.execute('ALTER TABLE "user" DROP COLUMN failed_logins')


def downgrade():
    op.add_column(
        "user", sa.Column("failed_logins", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("user", sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True))
    op.drop_table("login_lock")
