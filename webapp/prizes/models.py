"""Prizes owed after a game and the gift agreements that pay them."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, money_column, utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.submissions.models import Author, Question

PRIZE_STATUSES = ("owed", "agreement_issued", "signed", "paid", "closed")


class Prize(db.Model):
    """A cash prize owed to one author for one question of one game.

    ``kind``: ``unanswered_question`` (2023 §4.11.1, 2009 §1.2.2); ``amount``: Decimal in
    ``currency`` (the season's), the author's share when the question has co-authors.
    Unique per (game, question, author, kind): closing a game twice makes nothing new.
    """

    __tablename__ = "prize"
    __table_args__ = (UniqueConstraint("game_id", "question_id", "author_id", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    question_id: Mapped[int | None] = mapped_column(ForeignKey("question.id"))
    author_id: Mapped[int] = mapped_column(ForeignKey("author.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    amount: Mapped[Decimal] = money_column()
    currency: Mapped[str] = mapped_column(String(3))
    rule: Mapped[str] = mapped_column(String(80))
    status: Mapped[str] = mapped_column(String(20), default="owed")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    game: Mapped[Game] = relationship(lazy="joined")
    author: Mapped[Author] = relationship(lazy="joined")
    question: Mapped[Question | None] = relationship(lazy="joined")
    agreement: Mapped[GiftAgreement | None] = relationship(back_populates="prize", uselist=False,
                                                           lazy="selectin")


class GiftAgreement(db.Model):
    """Договор дарения for one prize, numbered per season without gaps: ``2023-0001``.

    The number is taken in the closing transaction (``seq`` unique per season), so a
    re-render keeps it; ``document_id`` points to the rendered PDF.
    """

    __tablename__ = "gift_agreement"
    __table_args__ = (UniqueConstraint("season_id", "seq"), UniqueConstraint("season_id", "number"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prize_id: Mapped[int] = mapped_column(ForeignKey("prize.id"), unique=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"))
    seq: Mapped[int] = mapped_column(Integer)
    number: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="pending")
    document_id: Mapped[int | None] = mapped_column(ForeignKey("document.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    prize: Mapped[Prize] = relationship(back_populates="agreement")
