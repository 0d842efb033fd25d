"""the §3.1 best player without a vote, and the vote's result document on the game page

``vote_award.game_id`` (backfilled from the vote) and ``vote_award.vote_id`` nullable: the
sponsor's representative's decision is audited also when no vote was held for the game.
``document.game_id`` of the vote result documents (``kind = 'vote_result'``) is filled, so
the game page lists them.

Revision ID: 0017_vote2
Revises: 0016_author_merge
"""
import sqlalchemy as sa
from alembic import op

revision = "0017_vote2"
down_revision = "0016_author_merge"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("vote_award", schema=None) as batch_op:
        batch_op.add_column(sa.Column("game_id", sa.Integer(), nullable=True))
        batch_op.alter_column("vote_id", existing_type=sa.Integer(), nullable=True)
        batch_op.create_index(batch_op.f("ix_vote_award_game_id"), ["game_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_vote_award_game_id_game"), "game", ["game_id"], ["id"], ondelete="CASCADE"
        )
    op.execute(
        "UPDATE vote_award SET game_id = (SELECT vote.game_id FROM vote WHERE vote.id = vote_award.vote_id)"
    )
    op.execute(
        "UPDATE document SET game_id = (SELECT vote.game_id FROM vote WHERE vote.document_id = document.id)"
        " WHERE kind = 'vote_result' AND game_id IS NULL"
    )


def downgrade():
    op.execute("UPDATE document SET game_id = NULL WHERE kind = 'vote_result'")
    op.execute("DELETE FROM vote_award WHERE vote_id IS NULL")
    with op.batch_alter_table("vote_award", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_vote_award_game_id_game"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_vote_award_game_id"))
        batch_op.alter_column("vote_id", existing_type=sa.Integer(), nullable=False)
        batch_op.drop_column("game_id")
