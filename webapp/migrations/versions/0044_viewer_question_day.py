"""the statistics' day counts: ``viewer_question_day`` (local day in ``SOVA_TIMEZONE``,
channel, status, first author's city → how many viewer questions), filled from the
questions as they are; each question's first decision, ``question.first_decision_at``,
with the viewer questions' index of it

``question.first_decision_at``: the earliest of the question's status changes to
``approved`` or ``rejected``, filled from the history; ``ix_question_viewer_decided``
``question (created_at, first_decision_at)`` of the decided viewer questions (partial): the
statistics' time to decision (count, mean, median of the window) from this index alone.

The statistics page (``webapp.moderation.stats``) reads a long window's whole days from
these rows instead of every question and its first author; the writers keep them in step
(``webapp.submissions.models.ViewerQuestionDay``). The first author's city is the city of
the latest link at position 0, ``''`` without one. PostgreSQL names the local day itself
(``timezone()``); SQLite, which knows no zone, has them counted here in Python.

Revision ID: 0044_viewer_question_day
Revises: 0043_question_text_hash
"""

from collections import Counter
from datetime import UTC
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op
from flask import current_app

revision = "0044_viewer_question_day"
down_revision = "0043_question_text_hash"
branch_labels = None
depends_on = None

FIRST_CITY = (
    "(SELECT qa.city FROM question_author qa WHERE qa.question_id = q.id AND qa.position = 0 "
    "ORDER BY qa.id DESC LIMIT 1)"
)


def upgrade():
    op.create_table(
        "viewer_question_day",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("city", sa.String(200), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "channel", "status", "city"),
    )
    op.add_column("question", sa.Column("first_decision_at", sa.DateTime(timezone=True)))
    op.execute(
        "UPDATE question SET first_decision_at = (SELECT min(c.at) FROM question_status_change c "
        "WHERE c.question_id = question.id AND c.to_status IN ('approved', 'rejected')) "
        "WHERE id IN (SELECT question_id FROM question_status_change "
        "WHERE to_status IN ('approved', 'rejected'))"
    )
    op.execute(
        "CREATE INDEX ix_question_viewer_decided ON question (created_at, first_decision_at) "
        "WHERE channel <> 'archive' AND first_decision_at IS NOT NULL"
    )
    zone = current_app.config["SOVA_TIMEZONE"]
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.execute(
            sa.text(
                "INSERT INTO viewer_question_day (day, channel, status, city, count) "
                "SELECT CAST(timezone(:zone, q.created_at) AS DATE), q.channel, q.status, "
                f"COALESCE({FIRST_CITY}, ''), count(*) FROM question q "
                "WHERE q.channel <> 'archive' GROUP BY 1, 2, 3, 4"
            ),
            {"zone": zone},
        )
        return
    local = ZoneInfo(zone)
    counts: Counter = Counter()
    for created, channel, status, city in bind.execute(
        sa.text(
            f"SELECT q.created_at, q.channel, q.status, {FIRST_CITY} FROM question q "
            "WHERE q.channel <> 'archive'"
        ).columns(created_at=sa.DateTime())
    ):
        day = created.replace(tzinfo=UTC).astimezone(local).date()  # stored as naive UTC
        counts[(day, channel, status, city or "")] += 1
    if counts:
        table = sa.table(
            "viewer_question_day",
            sa.column("day", sa.Date()),
            sa.column("channel"),
            sa.column("status"),
            sa.column("city"),
            sa.column("count"),
        )
        op.bulk_insert(
            table,
            [
                {"day": d, "channel": c, "status": s, "city": city, "count": n}
                for (d, c, s, city), n in sorted(counts.items())
            ],
        )


def downgrade():
    op.drop_table("viewer_question_day")
    op.execute("DROP INDEX ix_question_viewer_decided")
    # a plain ALTER on SQLite too (3.35+): no rebuild of the question table
    op.execute("ALTER TABLE question DROP COLUMN first_decision_at")
