"""``question_city_count`` (status, author's city as written → how many questions not
archived have an author link with that city): the editors' queue filtered by the author's
city counts its questions from these rows (``webapp.moderation.queries.queue_count``)
instead of reading every author link of the city, the archive's among them. Filled from the
questions as they are; kept by the writers of the statistics' counts
(``webapp.submissions.day_counts``).

Revision ID: 0051_question_city_count
Revises: 0050_question_fts_trigger
"""

import sqlalchemy as sa
from alembic import op

revision = "0051_question_city_count"
down_revision = "0050_question_fts_trigger"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "question_city_count",
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("city", sa.String(200), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("status", "city"),
    )
    op.execute(
        "INSERT INTO question_city_count (status, city, count) "
        "SELECT question.status, question_author.city, count(DISTINCT question.id) "
        "FROM question JOIN question_author ON question_author.question_id = question.id "
        "WHERE question.status <> 'archived' AND question_author.city IS NOT NULL "
        "GROUP BY question.status, question_author.city"
    )


def downgrade():
    op.drop_table("question_city_count")
