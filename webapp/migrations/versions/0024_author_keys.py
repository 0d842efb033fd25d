"""authors' folded keys: ``author.name_key`` and ``author.city_key``

The name and the city as ``webapp.domain.authors.fold_name`` folds them (case, ё, stress
marks, punctuation), kept beside the row so that the chief editor's likely pairs are found
by an index (same ``name_key``), not by folding every author in Python. Every existing row
gets its keys here; new rows get them from the model (``webapp.submissions.models``).

Revision ID: 0024_author_keys
Revises: 0023_game_rules
"""

import sqlalchemy as sa
from alembic import op

from webapp.domain.authors import fold_name

revision = "0024_author_keys"
down_revision = "0023_game_rules"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column(
        "author", sa.Column("name_key", sa.String(200), nullable=False, server_default="")
    )
    op.add_column(
        "author", sa.Column("city_key", sa.String(200), nullable=False, server_default="")
    )
    op.create_index("ix_author_name_key", "author", ["name_key"])
    bind = op.get_bind()
    author = sa.table(
        "author",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("city", sa.String),
        sa.column("name_key", sa.String),
        sa.column("city_key", sa.String),
    )
    rows = bind.execute(sa.select(author.c.id, author.c.name, author.c.city)).all()
    update = (
        sa.update(author)
        .where(author.c.id == sa.bindparam("row_id"))
        .values(name_key=sa.bindparam("nk"), city_key=sa.bindparam("ck"))
    )
    for lo in range(0, len(rows), 5000):
        batch = [
            {"row_id": r.id, "nk": fold_name(r.name)[:200], "ck": fold_name(r.city)[:200]}
            for r in rows[lo : lo + 5000]
        ]
        if batch:
            bind.execute(update, batch)


def downgrade():
    op.drop_index("ix_author_name_key", table_name="author")
    op.drop_column("author", "city_key")
    op.drop_column("author", "name_key")
