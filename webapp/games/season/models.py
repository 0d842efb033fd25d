"""The season in the database: its teams (the initial rating) and its stored events.

The season's state is never stored: it is what :func:`webapp.domain.season.replay_season`
derives from ``season_events`` in ``seq`` order (``shared/contracts/season-protocol.md``).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, money_column, utcnow
from webapp.extensions import Model
from webapp.games.models import Team


class SeasonTeam(Model):
    """A team of a season. ``position``: its place in the initial rating (1 = first;
    000_90d7c8192601ed3a.txt §4.2.1, 002_e025d5ded135c1c4.txt §2.1) — the protocol's
    ``teams`` in this order; None for a team that joined later by an ``enter`` event (a
    reserve, 2023 §4.9.3; the sponsor's team, 2009 §2.13)."""

    __tablename__ = "season_team"
    __table_args__ = (UniqueConstraint("season_id", "team_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"), index=True)
    position: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    team: Mapped[Team] = relationship(lazy="joined")


class SeasonEvent(Model):
    """One event of ``sova.season-protocol/1`` (``payload``: the event object), in order
    (``seq`` from 1). ``game_id``: the closed game whose result this ``game`` event is (one
    event per game); None for the producer's events. ``by_user_id``/``created_at``: who
    stored it and when (UTC)."""

    __tablename__ = "season_events"
    __table_args__ = (UniqueConstraint("season_id", "seq"), UniqueConstraint("game_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict] = mapped_column(JSON)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("game.id"))
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SeasonPrizeChange(Model):
    """Audit of the producer's setting of the season's cash prize per unanswered question
    (2009 §1.2.2 names no amount; 2023 §4.11.1 names 300,00): who (``by_user_id``), when
    (``at``, UTC), from ``old_amount`` (None: not set) to ``new_amount``, in the season's
    currency."""

    __tablename__ = "season_prize_change"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    old_amount: Mapped[Decimal | None] = money_column(nullable=True)
    new_amount: Mapped[Decimal] = money_column()
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SeasonAmountChange(Model):
    """Audit of the producer's change of one amount of the season's individual prizes on the
    season page (``season_amount``; the keys are the book's ``Book.amounts``): who
    (``by_user_id``), when (``at``, UTC), which amount (``amount_key``), from ``old_amount``
    (None: not set) to ``new_amount``, in the season's currency. One submission changing
    several amounts writes one row per changed amount, all with the same ``at``."""

    __tablename__ = "season_amount_change"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    amount_key: Mapped[str] = mapped_column(String(40))
    old_amount: Mapped[Decimal | None] = money_column(nullable=True)
    new_amount: Mapped[Decimal] = money_column()
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SeasonDonorChange(Model):
    """Audit of the producer's setting of the season's donor on the season page
    (webapp.domain.donor): who (``by_user_id``), when (``at``, UTC), from ``old`` (the
    donor as it was printed: ``{name, city, details, representative}``) to ``new``, and how
    many unsigned gift agreements were issued again (``reissued``)."""

    __tablename__ = "season_donor_change"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    season_id: Mapped[int] = mapped_column(ForeignKey("season.id"), index=True)
    old: Mapped[dict] = mapped_column(JSON)
    new: Mapped[dict] = mapped_column(JSON)
    reissued: Mapped[int] = mapped_column(Integer, default=0)
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
