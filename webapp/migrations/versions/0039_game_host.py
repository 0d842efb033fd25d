"""the episode's host: ``game.host_user_id`` (a «host» user named by the producer), whose
pace, calibrated from their recorded games, the reading time is estimated at

Revision ID: 0039_game_host
Revises: 0038_stress_dictionary
"""

import sqlalchemy as sa
from alembic import op

revision = "0039_game_host"
down_revision = "0038_stress_dictionary"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("game", sa.Column("host_user_id", sa.Integer(), nullable=True))
    if op.get_bind().dialect.name != "sqlite":
        # SQLite takes no constraint on an existing table without rebuilding it, and a
        # rebuild of ``game`` drops the table the foreign keys pointing at it refuse; there
        # the column holds a user id the application checks (``games.operations.pace.set_game_host``)
        op.create_foreign_key("fk_game_host_user_id_user", "game", "user", ["host_user_id"], ["id"])


def downgrade():
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_game_host_user_id_user", "game", type_="foreignkey")
    op.drop_column("game", "host_user_id")
