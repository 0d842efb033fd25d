"""``viewer_decision_day`` (local day, whole hours from receipt to first decision → how
many decided viewer questions, and the sum of their exact times in microseconds): the
statistics' time to decision reads the whole days of a window's first, partial month from
these rows (a few per day, at most one per hour of decision time) instead of the month's
questions one by one

Filled from the questions in ``SOVA_TIMEZONE`` as ``viewer_decision_month`` is
(PostgreSQL in SQL; SQLite, which knows no zone, in Python); the writers keep both in step.

Revision ID: 0052_decision_day
Revises: 0051_question_city_count
"""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op
from flask import current_app

revision = "0052_decision_day"
down_revision = "0051_question_city_count"
branch_labels = None
depends_on = None

HOUR_US = 3_600_000_000


def upgrade():
    op.create_table(
        "viewer_decision_day",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("hour", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("micros", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("day", "hour"),
    )
    zone = current_app.config["SOVA_TIMEZONE"]
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # extract(epoch …) is numeric: the microseconds are exact
        bind.execute(
            sa.text(
                "INSERT INTO viewer_decision_day (day, hour, count, micros) "
                "SELECT day, floor(CAST(us AS NUMERIC) / 3600000000), count(*), sum(us) FROM ("
                "SELECT CAST(timezone(:zone, created_at) AS DATE) AS day, "
                "CAST(extract(epoch FROM first_decision_at - created_at) * 1000000 AS BIGINT) "
                "AS us FROM question "
                "WHERE channel <> 'archive' AND first_decision_at IS NOT NULL) AS d "
                "GROUP BY 1, 2"
            ),
            {"zone": zone},
        )
        return
    local = ZoneInfo(zone)
    bins: dict = {}
    for created, decided in bind.execute(
        sa.text(
            "SELECT created_at, first_decision_at FROM question "
            "WHERE channel <> 'archive' AND first_decision_at IS NOT NULL"
        ).columns(created_at=sa.DateTime(), first_decision_at=sa.DateTime())
    ):
        day = created.replace(tzinfo=UTC).astimezone(local).date()  # stored as naive UTC
        us = (decided - created) // timedelta(microseconds=1)
        row = bins.setdefault((day, us // HOUR_US), [0, 0])
        row[0] += 1
        row[1] += us
    if bins:
        table = sa.table(
            "viewer_decision_day",
            sa.column("day", sa.Date()),
            sa.column("hour"),
            sa.column("count"),
            sa.column("micros"),
        )
        op.bulk_insert(
            table,
            [
                {"day": d, "hour": h, "count": n, "micros": us}
                for (d, h), (n, us) in sorted(bins.items())
            ],
        )


def downgrade():
    op.drop_table("viewer_decision_day")
