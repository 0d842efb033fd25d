"""the viewer questions by receipt time: ``ix_question_viewer_created`` (partial)

``question (created_at)`` of the questions whose channel is not the imported archive, so the
editors' statistics (``webapp.moderation.stats``: the intake, the decisions and the cities
of the last days) read the window's viewer questions, not half a million archive rows. The
statements repeat the predicate ``channel <> 'archive'`` word for word
(``webapp.moderation.stats.VIEWER``): that is what lets either database take the index.

Revision ID: 0030_viewer_questions_index
Revises: 0029_duplicate_bucket_sqlite
"""

from alembic import op

revision = "0030_viewer_questions_index"
down_revision = "0029_duplicate_bucket_sqlite"
branch_labels = None
depends_on = None


def upgrade():
    op.execute(
        "CREATE INDEX ix_question_viewer_created ON question (created_at) "
        "WHERE channel <> 'archive'"
    )


def downgrade():
    op.execute("DROP INDEX IF EXISTS ix_question_viewer_created")
