"""trust: the author as given on each question; staff session versions

``question_author`` gets ``name``/``city`` (the byline as typed with that question, copied
from the author row for existing questions) and ``confirmed_at`` (a link confirmed by the
e-mailed link or an editor; existing links count as confirmed, as they were shown before).
``user`` gets ``session_version`` (bumped by logout, a password change or an admin's
"sign out everywhere": older session cookies stop working).

Revision ID: 0010_trust
Revises: 0009_minutes_number
"""
import sqlalchemy as sa
from alembic import op

revision = "0010_trust"
down_revision = "0009_minutes_number"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("question_author") as batch:
        batch.add_column(sa.Column("name", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("city", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE question_author SET name = (SELECT a.name FROM author a "
        "WHERE a.id = question_author.author_id), city = (SELECT a.city FROM author a "
        "WHERE a.id = question_author.author_id), confirmed_at = (SELECT q.created_at "
        "FROM question q WHERE q.id = question_author.question_id)")
    with op.batch_alter_table("question_author") as batch:
        batch.alter_column("name", existing_type=sa.String(length=200), nullable=False)
    # plain ADD/DROP COLUMN (SQLite ≥ 3.35 has both): a batch copy of "user" would have to
    # drop a table that other tables' foreign keys point to
    op.add_column("user", sa.Column("session_version", sa.Integer(), nullable=False,
                                    server_default="0"))


def downgrade():
    op.drop_column("user", "session_version")
    with op.batch_alter_table("question_author") as batch:
        batch.drop_column("confirmed_at")
        batch.drop_column("city")
        batch.drop_column("name")
