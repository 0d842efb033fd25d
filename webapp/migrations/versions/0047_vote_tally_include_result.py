"""``ix_vote_message_tally`` on ``(vote_id, candidate)`` with ``result`` as an included
column (PostgreSQL) instead of a key column: with ``result`` among its keys the planner
could read a number's counted message (``vote_id``, ``msisdn_hash``, ``result =
'counted'``) through it — every counted row of the vote, each fetched from the table to
compare the number — instead of through the number's unique key
``uq_vote_counted_msisdn`` when the table had no statistics yet (both indexes then look
like one row), and by the same estimate whenever the statistics make the vote look small
(a vote opened since the last ANALYZE). The tally's GROUP BY still reads the index alone.

Revision ID: 0047_vote_tally_include_result
Revises: 0046_statistics_by_month
"""

from alembic import op

revision = "0047_vote_tally_include_result"
down_revision = "0046_statistics_by_month"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_vote_message_tally", table_name="vote_message")
    op.create_index(
        "ix_vote_message_tally",
        "vote_message",
        ["vote_id", "candidate"],
        postgresql_include=["result"],
    )


def downgrade():
    op.drop_index("ix_vote_message_tally", table_name="vote_message")
    op.create_index("ix_vote_message_tally", "vote_message", ["vote_id", "result", "candidate"])
