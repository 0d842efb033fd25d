"""authors as packets write them: the author line as written, a co-author's credit phrase

Adds ``question.author_line`` (the ``@`` / ``Автор:`` line of an imported packet exactly
as written, beside the parsed authors; NULL for questions whose authors were given as
fields: web form, API, paper letters) and ``question_author.credit`` (for a credited
co-author, the phrase as written, e.g. «при активном участии Евгения Миротина (Горки)»;
NULL for the others). Questions imported before keep NULL: their packets are not stored.

Revision ID: 0012_author_line
Revises: 0011_season_events
"""
import sqlalchemy as sa
from alembic import op

revision = "0012_author_line"
down_revision = "0011_season_events"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("question") as batch:
        batch.add_column(sa.Column("author_line", sa.Text(), nullable=True))
    with op.batch_alter_table("question_author") as batch:
        batch.add_column(sa.Column("credit", sa.Text(), nullable=True))


def downgrade():
    # plain ALTER TABLE … DROP COLUMN (SQLite >= 3.35, PostgreSQL): a batch rebuild would
    # DROP TABLE question, which the foreign keys of existing rows refuse on SQLite
    op.drop_column("question_author", "credit")
    op.drop_column("question", "author_line")
