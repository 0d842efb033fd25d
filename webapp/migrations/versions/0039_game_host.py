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
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("host_user_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_game_host_user_id_user", "user", ["host_user_id"], ["id"])


def downgrade():
    with op.batch_alter_table("game") as batch:
        batch.drop_constraint("fk_game_host_user_id_user", type_="foreignkey")
        batch.drop_column("host_user_id")
