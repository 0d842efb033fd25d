"""a live question remembers the game it was sent during: ``question.live_game_id``

``question.live_game_id``: for a question sent through the ``/live`` form (channel ``live``,
2009 sector 13), the game that was live when it arrived; NULL for every other question and
for every existing row. The sector-13 draw of a game takes only its own live questions.

Revision ID: 0019_question_live_game
Revises: 0018_season_prize
"""
import sqlalchemy as sa
from alembic import op

revision = "0019_question_live_game"
down_revision = "0018_season_prize"
branch_labels = None
depends_on = None


def _sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade():
    # plain ADD COLUMN, as 0016: the foreign key is declared on PostgreSQL only (SQLite cannot
    # DROP a column that a foreign key uses, and a batch copy of "question" would have to drop
    # a table that other tables' foreign keys point to).
    fk = () if _sqlite() else (sa.ForeignKey("game.id", name="fk_question_live_game_id_game"),)
    op.add_column("question", sa.Column("live_game_id", sa.Integer(), *fk, nullable=True))
    op.create_index("ix_question_live_game_id", "question", ["live_game_id"])


def downgrade():
    op.drop_index("ix_question_live_game_id", table_name="question")
    op.drop_column("question", "live_game_id")
