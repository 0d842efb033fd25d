"""the payee's declared name on the prize; agreement and minutes numbers unique for ever

``prize.payee_name``: the full name the payee declared with their details, stored in clear
when the details arrive and kept after the details are deleted (the signed agreement names
the payee so), so that every paper of a prize — agreement, minutes, the register's PDF,
XLSX and CSV — names the same person. Prizes whose details arrived before this revision
keep NULL and their papers read the name from the details while they are kept.

``uq_gift_agreement_number``, ``uq_commission_minutes_number_ever``: an agreement's or
a prize commission minutes' number is unique across all seasons (two seasons whose names
hold the same year share the number series, see
``webapp.prizes.operations.common.next_agreement_seq`` and ``next_minutes_seq``). A database that already holds a
number twice is refused with the numbers listed: a printed, signed number is not changed
by a migration.

Revision ID: 0032_payee_name_agreement_number
Revises: 0031_broker_epoch
"""

import sqlalchemy as sa
from alembic import op

revision = "0032_payee_name_agreement_number"
down_revision = "0031_broker_epoch"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("prize", sa.Column("payee_name", sa.String(length=300), nullable=True))
    for table, index in (
        ("gift_agreement", "uq_gift_agreement_number"),
        ("commission_minutes", "uq_commission_minutes_number_ever"),
    ):
        twice = (
            op.get_bind()
            .execute(
                sa.text(
                    f"SELECT number FROM {table} GROUP BY number HAVING count(*) > 1 "  # noqa: S608
                    "ORDER BY number"
                )
            )
            .scalars()
            .all()
        )
        if twice:
            raise RuntimeError(
                f"{table} numbers issued twice (settle them by hand first): " + ", ".join(twice)
            )
        op.create_index(index, table, ["number"], unique=True)


def downgrade():
    op.drop_index("uq_commission_minutes_number_ever", table_name="commission_minutes")
    op.drop_index("uq_gift_agreement_number", table_name="gift_agreement")
    op.drop_column("prize", "payee_name")
