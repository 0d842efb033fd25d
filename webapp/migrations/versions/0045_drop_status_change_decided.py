"""drop ``ix_question_status_change_decided``: the statistics' time to decision reads each
question's first decision from the question itself (``question.first_decision_at`` and
``ix_question_viewer_decided``, migration 0044), so no statement reads the decisions'
history by this index any more, and every moderation decision paid for keeping it

Revision ID: 0045_drop_status_change_decided
Revises: 0044_viewer_question_day
"""

from alembic import op

revision = "0045_drop_status_change_decided"
down_revision = "0044_viewer_question_day"
branch_labels = None
depends_on = None


def upgrade():
    op.execute("DROP INDEX IF EXISTS ix_question_status_change_decided")


def downgrade():
    op.execute(
        "CREATE INDEX ix_question_status_change_decided ON question_status_change "
        "(question_id, at) WHERE to_status IN ('approved', 'rejected')"
    )
