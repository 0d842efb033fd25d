"""Pre-check reports (``moderation.precheck``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Integer, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import db

PRECHECK_VERSION = 2  # 2: LSH index, similarity = max(token_sort_ratio, ratio)


class ModerationReport(db.Model):
    """The result of one pre-check run of one version of the checks.

    ``checks``: ``[{"name": str, "ok": bool, "message": str}]``;
    ``duplicates``: ``[{"question_id": int, "score": float 0..100, "status": str}]`` best first.
    Unique per (question, version): running the task twice stores one report.
    """

    __tablename__ = "moderation_report"
    __table_args__ = (UniqueConstraint("question_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer, default=PRECHECK_VERSION)
    checks: Mapped[list] = mapped_column(JSON, default=list)
    duplicates: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DuplicateBucket(db.Model):
    """One LSH bucket of one question: the shared, persisted duplicate index.

    ``bucket``: signed 64-bit hash of (index version, band number, the band's MinHash
    values) of the question's matching key (``webapp.moderation.duplicates``); a question
    has at most ``BANDS`` rows. Two questions sharing a bucket are duplicate candidates.
    Rows are written in the same transaction as the question (flush hook), so every web
    process and worker sees the same index and a restart rebuilds nothing.
    """

    __tablename__ = "duplicate_bucket"

    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), primary_key=True, index=True)
