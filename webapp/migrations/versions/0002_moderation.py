"""moderation: the duplicate index; question statuses of the state machine

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
    op.create_table(
        "question_claim",
        sa.Column("question_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("question_id"),
    )
    with op.batch_alter_table("question_claim", schema=None) as batch_op:
        batch_op.create_index("ix_question_claim_user_id", ["user_id"], unique=False)
        batch_op.create_index("ix_question_claim_expires_at", ["expires_at"], unique=False)
    op.create_table(
        "moderation_audit",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("moderation_audit", schema=None) as batch_op:
        batch_op.create_index("ix_moderation_audit_question_id", ["question_id"], unique=False)
        batch_op.create_index("ix_moderation_audit_user_id", ["user_id"], unique=False)
    op.create_table(
        "question_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("question_revision", schema=None) as batch_op:
        batch_op.create_index("ix_question_revision_question_id", ["question_id"], unique=False)
    op.create_table(
        "question_comment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("question_comment", schema=None) as batch_op:
        batch_op.create_index("ix_question_comment_question_id", ["question_id"], unique=False)
    op.create_table(
        "question_signoff",
        sa.Column("question_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["question_id"], ["question.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("question_id"),
    )
    with op.batch_alter_table("moderation_report", schema=None) as batch_op:
        batch_op.add_column(sa.Column("flags", sa.String(length=500), nullable=False,
                                      server_default=" "))
        batch_op.add_column(sa.Column("top_score", sa.Float(), nullable=False,
                                      server_default="0"))
        batch_op.create_index("ix_moderation_report_top_score", ["top_score"], unique=False)
    # Full-text search: FTS5 on SQLite (kept in step by the moderation flush hook, not by
    # triggers, which a batch rebuild of "question" would drop), the "russian" text search
    # configuration over an expression index on PostgreSQL.
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("CREATE VIRTUAL TABLE question_fts USING fts5("
                   "text, answer, tokenize = 'unicode61 remove_diacritics 2')")
        op.execute("INSERT INTO question_fts (rowid, text, answer) "
                   "SELECT id, text, answer FROM question")
    elif bind.dialect.name == "postgresql":
        op.execute("CREATE INDEX ix_question_fulltext ON question USING gin "
                   "(to_tsvector('russian', coalesce(text, '') || ' ' || coalesce(answer, '')))")
    # "used" (played) becomes the outcome the game recorded (the question state machine).
    for outcome in ("answered", "unanswered"):
        op.execute(sa.text(
            "UPDATE question SET status = :outcome WHERE status = 'used' AND id IN "
            "(SELECT question_id FROM envelope_question WHERE outcome = :outcome)"
        ).bindparams(outcome=outcome))
    op.execute("UPDATE question SET status = 'played' WHERE status = 'used'")
    # Index the questions that already exist (same code as the flush hook).
    from webapp.moderation.duplicates import index_rows

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
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS question_fts")
    elif bind.dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_question_fulltext")
    with op.batch_alter_table("moderation_report", schema=None) as batch_op:
        batch_op.drop_index("ix_moderation_report_top_score")
        batch_op.drop_column("top_score")
        batch_op.drop_column("flags")
    op.drop_table("question_signoff")
    op.drop_table("question_comment")
    op.drop_table("question_revision")
    op.drop_table("moderation_audit")
    op.drop_table("question_claim")
    with op.batch_alter_table("duplicate_bucket", schema=None) as batch_op:
        batch_op.drop_index("ix_duplicate_bucket_question_id")
    op.drop_table("duplicate_bucket")
