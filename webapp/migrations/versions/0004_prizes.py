"""prizes: individual prizes, status history, payee details, one-time links, audit

Revision ID: 0004_prizes
Revises: 0003_gameday
"""
import sqlalchemy as sa
from alembic import op

revision = "0004_prizes"
down_revision = "0003_gameday"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("prize", schema=None) as batch_op:
        batch_op.alter_column("author_id", existing_type=sa.Integer(), nullable=True)
        batch_op.alter_column("amount", existing_type=sa.Numeric(precision=12, scale=2),
                              nullable=True)
        batch_op.add_column(sa.Column("recipient_name", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("trophy", sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column("award_key", sa.String(length=300), nullable=True))
        batch_op.add_column(sa.Column("paid_on", sa.Date(), nullable=True))
        batch_op.add_column(sa.Column("payment_reference", sa.String(length=100),
                                      nullable=True))
        batch_op.add_column(sa.Column("status_changed_at", sa.DateTime(timezone=True),
                                      nullable=True))
        batch_op.create_unique_constraint("uq_prize_award_key", ["award_key"])
    with op.batch_alter_table("gift_agreement", schema=None) as batch_op:
        batch_op.add_column(sa.Column("signed_document_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_gift_agreement_signed_document", "document",
                                    ["signed_document_id"], ["id"])
    op.create_table(
        "prize_status_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prize_id", sa.Integer(), nullable=False),
        sa.Column("from_status", sa.String(length=20), nullable=True),
        sa.Column("to_status", sa.String(length=20), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["by_user_id"], ["user.id"]),
        sa.ForeignKeyConstraint(["prize_id"], ["prize.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_prize_status_change_prize_id", "prize_status_change", ["prize_id"])
    op.create_table(
        "payee_details",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prize_id", sa.Integer(), nullable=False),
        sa.Column("encrypted", sa.Text(), nullable=False),
        sa.Column("personal_number_hash", sa.String(length=64), nullable=True),
        sa.Column("account_hash", sa.String(length=64), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["prize_id"], ["prize.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("prize_id"),
    )
    op.create_index("ix_payee_details_personal_number_hash", "payee_details",
                    ["personal_number_hash"])
    op.create_index("ix_payee_details_account_hash", "payee_details", ["account_hash"])
    op.create_table(
        "details_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prize_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["prize_id"], ["prize.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_details_link_prize_id", "details_link", ["prize_id"])
    op.create_table(
        "personal_data_access",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("prize_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("detail", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_personal_data_access_prize_id", "personal_data_access", ["prize_id"])


def downgrade():
    op.drop_index("ix_personal_data_access_prize_id", table_name="personal_data_access")
    op.drop_table("personal_data_access")
    op.drop_index("ix_details_link_prize_id", table_name="details_link")
    op.drop_table("details_link")
    op.drop_index("ix_payee_details_account_hash", table_name="payee_details")
    op.drop_index("ix_payee_details_personal_number_hash", table_name="payee_details")
    op.drop_table("payee_details")
    op.drop_index("ix_prize_status_change_prize_id", table_name="prize_status_change")
    op.drop_table("prize_status_change")
    with op.batch_alter_table("gift_agreement", schema=None) as batch_op:
        batch_op.drop_constraint("fk_gift_agreement_signed_document", type_="foreignkey")
        batch_op.drop_column("signed_document_id")
    # Individual prizes have no author or no amount: they cannot survive the old schema.
    op.execute("DELETE FROM gift_agreement WHERE prize_id IN "
               "(SELECT id FROM prize WHERE author_id IS NULL OR amount IS NULL)")
    op.execute("DELETE FROM prize WHERE author_id IS NULL OR amount IS NULL")
    with op.batch_alter_table("prize", schema=None) as batch_op:
        batch_op.drop_constraint("uq_prize_award_key", type_="unique")
        batch_op.drop_column("status_changed_at")
        batch_op.drop_column("payment_reference")
        batch_op.drop_column("paid_on")
        batch_op.drop_column("award_key")
        batch_op.drop_column("trophy")
        batch_op.drop_column("recipient_name")
        batch_op.alter_column("amount", existing_type=sa.Numeric(precision=12, scale=2),
                              nullable=False)
        batch_op.alter_column("author_id", existing_type=sa.Integer(), nullable=False)
