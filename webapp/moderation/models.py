"""Pre-check reports (``moderation.precheck``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import db

PRECHECK_VERSION = 1


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
