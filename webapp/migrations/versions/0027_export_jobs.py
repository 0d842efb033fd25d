"""export jobs: the queue's exports too large for a request, written by the worker
(``export_job``: who asked, the format and filters, the state and progress, the file's
generated name, when it expires)

Revision ID: 0027_export_jobs
Revises: 0026_queue_keyset_indexes
"""

import sqlalchemy as sa
from alembic import op

revision = "0027_export_jobs"
down_revision = "0026_queue_keyset_indexes"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "export_job",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("fmt", sa.String(length=8), nullable=False),
        sa.Column("filters", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("download_name", sa.String(length=255), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"], name="fk_export_job_user_id_user"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token", name="uq_export_job_token"),
    )
    op.create_index("ix_export_job_user_id", "export_job", ["user_id"])
    op.create_index("ix_export_job_status", "export_job", ["status"])
    op.create_index("ix_export_job_expires_at", "export_job", ["expires_at"])


def downgrade():
    op.drop_index("ix_export_job_expires_at", table_name="export_job")
    op.drop_index("ix_export_job_status", table_name="export_job")
    op.drop_index("ix_export_job_user_id", table_name="export_job")
    op.drop_table("export_job")
