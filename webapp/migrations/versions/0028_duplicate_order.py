"""the queue's «по повторам» order over an index: ``question.duplicate_score``

``question.duplicate_score`` (0..100, NOT NULL, default 0): the best similarity of a likely
duplicate found by the question's pre-check of the current version, a copy of that
report's ``top_score`` that the pre-check writes with its report. The queue's order «по
повторам» (the best score first, then the oldest question: ``id`` ascending) reads it from
two indexes, as the other orders read theirs (0026):

- ``ix_question_status_duplicate`` (status, duplicate_score DESC, id): a queue of one
  status in that order, read from where a page starts;
- ``ix_question_live_duplicate`` (duplicate_score DESC, id) of the questions not archived
  (partial): «Все, кроме архива» in that order without stepping over the archive.

The descending score beside the ascending id is what lets both databases read a page of
this mixed order straight from the index (``webapp.core.keyset`` seeks it in two steps: the
rest of the cursor's score, then the lower scores). Filled from the reports of pre-check
version 3 (the version when this migration was written; a question without one keeps 0,
as the queue sorted it before).

Revision ID: 0028_duplicate_order
Revises: 0027_export_jobs
"""

import sqlalchemy as sa
from alembic import op

revision = "0028_duplicate_order"
down_revision = "0027_export_jobs"
branch_labels = None
depends_on = None

#: ``webapp.moderation.models.PRECHECK_VERSION`` when this migration was written.
PRECHECK_VERSION = 3


def upgrade():
    op.add_column(
        "question",
        sa.Column("duplicate_score", sa.Float(), nullable=False, server_default="0"),
    )
    op.execute(
        "UPDATE question SET duplicate_score = ("
        "SELECT r.top_score FROM moderation_report r "
        f"WHERE r.question_id = question.id AND r.version = {PRECHECK_VERSION}) "
        "WHERE EXISTS (SELECT 1 FROM moderation_report r "
        f"WHERE r.question_id = question.id AND r.version = {PRECHECK_VERSION} "
        "AND r.top_score IS NOT NULL AND r.top_score <> 0)"
    )
    op.execute(
        "CREATE INDEX ix_question_status_duplicate ON question (status, duplicate_score DESC, id)"
    )
    op.execute(
        "CREATE INDEX ix_question_live_duplicate ON question (duplicate_score DESC, id) "
        "WHERE status <> 'archived'"
    )


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_question_live_duplicate")
    op.execute("DROP INDEX IF EXISTS ix_question_status_duplicate")
    op.drop_column("question", "duplicate_score")
