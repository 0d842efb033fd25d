"""the statistics' counts that do not multiply with the days: ``viewer_intake_day`` (local
day, channel → how many viewer questions), ``viewer_question_month`` (local month, status,
first author's city → how many) and ``viewer_decision_month`` (local month, whole hours
from receipt to first decision → how many, and the sum of their exact times in
microseconds); on PostgreSQL ``ix_question_viewer_decision_time``, the decided viewer
questions by their time to decision, for the median's one hour

The statistics page (``webapp.moderation.stats``) reads a year's window from these rows: a
row per day and channel for the intake chart, a few per month for the rest, and one hour's
questions for the exact median. The first two are filled from ``viewer_question_day`` (the
same questions, coarser keys); the third from the questions, in ``SOVA_TIMEZONE`` as the
day counts are (PostgreSQL in SQL; SQLite, which knows no zone, in Python).

Revision ID: 0046_statistics_by_month
Revises: 0045_drop_status_change_decided
"""

from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op
from flask import current_app

revision = "0046_statistics_by_month"
down_revision = "0045_drop_status_change_decided"
branch_labels = None
depends_on = None

HOUR_US = 3_600_000_000


def upgrade():
    op.create_table(
        "viewer_intake_day",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "channel"),
    )
    op.create_table(
        "viewer_question_month",
        sa.Column("month", sa.Date(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("city", sa.String(200), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("month", "status", "city"),
    )
    op.create_table(
        "viewer_decision_month",
        sa.Column("month", sa.Date(), nullable=False),
        sa.Column("hour", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("micros", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("month", "hour"),
    )
    op.execute(
        "INSERT INTO viewer_intake_day (day, channel, count) SELECT day, channel, sum(count) "
        "FROM viewer_question_day WHERE count <> 0 GROUP BY day, channel"
    )
    bind = op.get_bind()
    postgresql = bind.dialect.name == "postgresql"
    op.execute(
        "INSERT INTO viewer_question_month (month, status, city, count) "
        "SELECT CAST(date_trunc('month', day) AS DATE), status, city, sum(count) "
        "FROM viewer_question_day WHERE count <> 0 GROUP BY 1, status, city"
        if postgresql
        else "INSERT INTO viewer_question_month (month, status, city, count) "
        "SELECT strftime('%Y-%m-01', day), status, city, sum(count) "
        "FROM viewer_question_day WHERE count <> 0 GROUP BY 1, status, city"
    )
    zone = current_app.config["SOVA_TIMEZONE"]
    if postgresql:
        op.execute(
            "CREATE INDEX ix_question_viewer_decision_time ON question "
            "((first_decision_at - created_at), created_at) INCLUDE (first_decision_at) "
            "WHERE channel <> 'archive' AND first_decision_at IS NOT NULL"
        )
        # extract(epoch …) is numeric: the microseconds are exact
        bind.execute(
            sa.text(
                "INSERT INTO viewer_decision_month (month, hour, count, micros) "
                "SELECT month, floor(CAST(us AS NUMERIC) / 3600000000), count(*), sum(us) FROM ("
                "SELECT CAST(date_trunc('month', timezone(:zone, created_at)) AS DATE) AS month, "
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
        month_of = created.replace(tzinfo=UTC).astimezone(local).date().replace(day=1)
        us = (decided - created) // timedelta(microseconds=1)  # both stored as naive UTC
        row = bins.setdefault((month_of, us // HOUR_US), [0, 0])
        row[0] += 1
        row[1] += us
    if bins:
        table = sa.table(
            "viewer_decision_month",
            sa.column("month", sa.Date()),
            sa.column("hour"),
            sa.column("count"),
            sa.column("micros"),
        )
        op.bulk_insert(
            table,
            [
                {"month": m, "hour": h, "count": n, "micros": us}
                for (m, h), (n, us) in sorted(bins.items())
            ],
        )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX ix_question_viewer_decision_time")
    op.drop_table("viewer_decision_month")
    op.drop_table("viewer_question_month")
    op.drop_table("viewer_intake_day")
