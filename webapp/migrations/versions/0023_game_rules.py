"""a game keeps the rules in force when its first event was recorded (2023 §4.12.1)

``game.rules``: the amendable parameters the game took from its season (JSON
``{parameter: value}``, only those that differ from the rule book's; ``{}`` = the book's);
NULL for a game with no event yet. Games recorded before this revision stay NULL and are
replayed under the book's rules (nothing was amendable then).

Revision ID: 0023_game_rules
Revises: 0022_api_tokens
"""
import sqlalchemy as sa
from alembic import op

revision = "0023_game_rules"
down_revision = "0022_api_tokens"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("game", sa.Column("rules", sa.JSON(), nullable=True))


def downgrade():
    # a plain DROP COLUMN (SQLite 3.35+, PostgreSQL): batch mode would copy and drop the
    # table ``game``, which SQLite refuses while other rows refer to it
    op.drop_column("game", "rules")
