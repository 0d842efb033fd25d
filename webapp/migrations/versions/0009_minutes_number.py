"""commission minutes: a gapless number per season for the prize commission's minutes

Creates ``commission_minutes`` (one row per Crystal Owl prize with minutes, numbered
``<season prefix>-К-<seq:04d>`` without gaps per season) and numbers the minutes already
issued, in prize id order per season, so existing minutes keep a stable number from now on.

Revision ID: 0009_minutes_number
Revises: 0008_mail_log
"""
import re
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0009_minutes_number"
down_revision = "0008_mail_log"
branch_labels = None
depends_on = None


def _prefix(season_id: int, name: str) -> str:
    """Same rule as ``webapp.prizes.operations.agreement_prefix`` (copied: a migration
    must not import application code that may change later)."""
    m = re.search(r"(19|20)\d\d", name or "")
    return m.group(0) if m else f"S{season_id}"


def upgrade():
    op.create_table(
        "commission_minutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("prize_id", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["prize_id"], ["prize.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("prize_id"),
        sa.UniqueConstraint("season_id", "seq", name="uq_commission_minutes_seq"),
        sa.UniqueConstraint("season_id", "number", name="uq_commission_minutes_number"),
    )
    # Minutes issued before this revision printed a placeholder number: give each one the
    # season's next number, oldest prize first.
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT DISTINCT p.id, s.id, s.name FROM document d "
        "JOIN prize p ON p.id = d.prize_id JOIN game g ON g.id = p.game_id "
        "JOIN season s ON s.id = g.season_id "
        "WHERE d.kind = 'commission_minutes' ORDER BY s.id, p.id")).all()
    seqs: dict[int, int] = {}
    table = sa.table("commission_minutes", sa.column("prize_id", sa.Integer),
                     sa.column("season_id", sa.Integer), sa.column("seq", sa.Integer),
                     sa.column("number", sa.String),
                     sa.column("created_at", sa.DateTime(timezone=True)))
    now = datetime.now(UTC)
    if bind.dialect.name == "sqlite":  # as webapp.core.models.UTCDateTime stores it
        now = now.replace(tzinfo=None)
    values = []
    for prize_id, season_id, season_name in rows:
        seq = seqs[season_id] = seqs.get(season_id, 0) + 1
        values.append({"prize_id": prize_id, "season_id": season_id, "seq": seq,
                       "number": f"{_prefix(season_id, season_name)}-К-{seq:04d}",
                       "created_at": now})
    if values:
        op.bulk_insert(table, values)


def downgrade():
    op.drop_table("commission_minutes")
