"""question topics: a code of the controlled vocabulary webapp.domain.topics.TOPICS

Revision ID: 0007_topics
Revises: 0006_viewers
"""
import sqlalchemy as sa
from alembic import op

revision = "0007_topics"
down_revision = "0006_viewers"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("question") as batch:
        batch.add_column(sa.Column("topic", sa.String(20), nullable=True))


def downgrade():
    with op.batch_alter_table("question") as batch:
        batch.drop_column("topic")
