"""``ix_question_author_author_id`` on ``(author_id, question_id)`` instead of
``(author_id)``: the author's page lists an author's links by question id a page at a time
(``authors.queries.summary``), and with the author alone in the key every link of a
prolific archive author was read and sorted for each page; with the question id after it
the page is the index's first rows in order.

Revision ID: 0049_question_author_by_author
Revises: 0048_duplicate_bucket_trigger
"""

from alembic import op

revision = "0049_question_author_by_author"
down_revision = "0048_duplicate_bucket_trigger"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_question_author_author_id", table_name="question_author")
    op.create_index(
        "ix_question_author_author_id", "question_author", ["author_id", "question_id"]
    )


def downgrade():
    op.drop_index("ix_question_author_author_id", table_name="question_author")
    op.create_index("ix_question_author_author_id", "question_author", ["author_id"])
