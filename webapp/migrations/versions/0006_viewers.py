"""viewer intake: consents, handout image, idempotency key, paper letters

Revision ID: 0006_viewers
Revises: 0005_security
"""
import sqlalchemy as sa
from alembic import op

revision = "0006_viewers"
down_revision = "0005_security"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("author") as batch:
        batch.add_column(sa.Column("link_version", sa.Integer(), server_default="0",
                                   nullable=False))
    with op.batch_alter_table("question") as batch:
        batch.add_column(sa.Column("consent_on_air", sa.Boolean(), server_default=sa.false(),
                                   nullable=False))
        batch.add_column(sa.Column("age_confirmed", sa.Boolean(), server_default=sa.false(),
                                   nullable=False))
        batch.add_column(sa.Column("handout_image", sa.String(200), nullable=True))
        batch.add_column(sa.Column("idempotency_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("postmark_date", sa.Date(), nullable=True))
        batch.add_column(sa.Column("letter_scan", sa.String(200), nullable=True))
        batch.create_unique_constraint("uq_question_idempotency_key", ["idempotency_key"])


def downgrade():
    with op.batch_alter_table("question") as batch:
        batch.drop_constraint("uq_question_idempotency_key", type_="unique")
        for column in ("letter_scan", "postmark_date", "idempotency_key", "handout_image",
                       "age_confirmed", "consent_on_air"):
            batch.drop_column(column)
    with op.batch_alter_table("author") as batch:
        batch.drop_column("link_version")
