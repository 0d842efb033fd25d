"""The per-game broadcast tokens: read-only keys of one game's on-air feed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model


class BroadcastToken(Model):
    """A key to one game's on-air feed (``contracts/api.md``, «On air»), made by the producer
    for a graphics operator: it reads the feed of ``game_id`` and nothing else, and logs
    nobody in. Only the SHA-256 of the token is stored (``token_hash``,
    :func:`webapp.accounts.models.token_digest`); ``label``: what the producer called it
    («аппаратная, титры»); ``created_by_id``/``created_at``; ``revoked_at``/
    ``revoked_by_id``: when and by whom it stopped working (a revoked token never works
    again)."""

    __tablename__ = "broadcast_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(100), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
