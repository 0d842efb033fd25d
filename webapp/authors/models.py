"""The audit of author merges."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model
from webapp.submissions.models import Author


class AuthorMerge(Model):
    """One merge: author ``from_author_id`` (kept, with ``merged_into_id`` set) into
    ``into_author_id``, by ``by_user_id`` at ``at`` (UTC). ``moved``: what moved, as ids —
    ``{"questions": [question id, …], "prizes": [prize id, …], "authors": [rows merged
    earlier into the absorbed one, now pointing at the survivor], "email": bool (the
    absorbed row's confirmed address moved to the survivor)}``."""

    __tablename__ = "author_merge"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_author_id: Mapped[int] = mapped_column(ForeignKey("author.id"), index=True)
    into_author_id: Mapped[int] = mapped_column(ForeignKey("author.id"), index=True)
    by_user_id: Mapped[int] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    moved: Mapped[dict] = mapped_column(JSON, default=dict)

    from_author: Mapped[Author] = relationship(foreign_keys=[from_author_id], lazy="joined")
    into_author: Mapped[Author] = relationship(foreign_keys=[into_author_id], lazy="joined")
