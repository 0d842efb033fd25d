"""moderation: the duplicate index; question statuses of the state machine (issue 4)

Revision ID: 0002_moderation
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_moderation"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "duplicate_bucket",
        sa.Column("bucket", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("bucket", "question_id"),
    )
    with op.batch_alter_table("duplicate_bucket", schema=None) as batch_op:
        batch_op.create_index("ix_duplicate_bucket_question_id", ["question_id"], unique=False)
    # "used" (played) becomes the outcome the game recorded (state machine of issue 4).
    for outcome in ("answered", "unanswered"):
        op.execute(sa.text(
            "UPDATE question SET status = :outcome WHERE status = 'used' AND id IN "
            "(SELECT question_id FROM envelope_question WHERE outcome = :outcome)"
        ).bindparams(outcome=outcome))
    op.execute("UPDATE question SET status = 'played' WHERE status = 'used'")
    # Index the questions that already exist (same code as the flush hook).
    from webapp.moderation.duplicates import index_rows

    bind = op.get_bind()
    table = sa.table("duplicate_bucket", sa.column("bucket", sa.BigInteger),
                     sa.column("question_id", sa.Integer))
    rows = []
    for qid, key in bind.execute(sa.text("SELECT id, matching_key FROM question")):
        rows += index_rows(qid, key or "")
        if len(rows) >= 10000:
            op.bulk_insert(table, rows)
            rows = []
    if rows:
        op.bulk_insert(table, rows)


def downgrade():
    op.execute("UPDATE question SET status = 'used' "
               "WHERE status IN ('played', 'answered', 'unanswered')")
    op.execute("UPDATE question SET status = 'in_review' WHERE status = 'prechecked'")
    with op.batch_alter_table("duplicate_bucket", schema=None) as batch_op:
        batch_op.drop_index("ix_duplicate_bucket_question_id")
    op.drop_table("duplicate_bucket")
