"""one author per person: ``author.merged_into_id`` and the merge audit

``author.merged_into_id``: the author row an editor merged this one into (the same person
written two ways); NULL for every existing row. ``author_merge``: one row per merge — who
(``by_user_id``), when (``at``), from which author into which, and what moved (JSON of ids).

Revision ID: 0016_author_merge
Revises: 0015_images
"""
import sqlalchemy as sa
from alembic import op

revision = "0016_author_merge"
down_revision = "0015_images"
branch_labels = None
depends_on = None


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade():
    # plain ADD COLUMN (SQLite >= 3.35, PostgreSQL): a batch copy of "author" would have to
    # drop a table that other tables' foreign keys point to. The foreign key is declared on
    # PostgreSQL only: SQLite cannot DROP a column that a foreign key uses (downgrade).
    fk = () if _sqlite() else (sa.ForeignKey("author.id", name="fk_author_merged_into_id"),)
    op.add_column("author", sa.Column("merged_into_id", sa.Integer(), *fk, nullable=True))
    op.create_index("ix_author_merged_into_id", "author", ["merged_into_id"])
    op.create_table(
        "author_merge",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("from_author_id", sa.Integer(), nullable=False),
        sa.Column("into_author_id", sa.Integer(), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("moved", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["from_author_id"], ["author.id"]),
        sa.ForeignKeyConstraint(["into_author_id"], ["author.id"]),
        sa.ForeignKeyConstraint(["by_user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_author_merge_from_author_id", "author_merge", ["from_author_id"])
    op.create_index("ix_author_merge_into_author_id", "author_merge", ["into_author_id"])


def downgrade():
    op.drop_index("ix_author_merge_into_author_id", table_name="author_merge")
    op.drop_index("ix_author_merge_from_author_id", table_name="author_merge")
    op.drop_table("author_merge")
    op.drop_index("ix_author_merged_into_id", table_name="author")
    op.drop_column("author", "merged_into_id")
