"""The 2009 §3.1 audience vote (002_e025d5ded135c1c4.txt §3.1): votes, their SMS log and
the recorded award decision.

Exactness comes from the keys, not from locks in Python:

* ``vote_message`` is unique on ``(vote_id, message_id)``: a resent message is inserted
  once (``INSERT … ON CONFLICT DO NOTHING``) and answered from the stored row;
* a partial unique index on ``(vote_id, msisdn_hash) WHERE result = 'counted'`` admits one
  counted vote per phone number per vote, whatever the concurrency;
* a partial unique index on ``vote.status WHERE status = 'open'``: at most one vote open.

Phone numbers are stored only as keyed hashes (``webapp.core.crypto.lookup_hash``) and set
to NULL ``SOVA_VOTE_RETENTION_DAYS`` after closing (beat task ``votes.purge_numbers``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model

VOTE_STATUSES = ("open", "closed")
BigId = BigInteger().with_variant(Integer, "sqlite")


class Vote(Model):
    """One audience vote for the best player of game ``game_id``. ``candidates``: names,
    numbered 1..N in list order (as announced on air). ``status``: open → closed. At close
    the counts are frozen (``counted``, ``repeats``, ``invalid``, ``late``, ``votes``:
    ``{"1": 17, …}``), with ``winner`` (candidate number or None for a tie), the vote log's
    SHA-256 and the result document. ``purge_after``: when the phone-number hashes go;
    ``numbers_purged_at``: when they went."""

    __tablename__ = "vote"
    __table_args__ = (
        Index(
            "uq_vote_one_open",
            "status",
            unique=True,
            sqlite_where=text("status = 'open'"),
            postgresql_where=text("status = 'open'"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(10), default="open")
    candidates: Mapped[list] = mapped_column(JSON)
    opened_at: Mapped[datetime] = mapped_column(UTCDateTime)
    opened_by: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    votes: Mapped[dict | None] = mapped_column(JSON)
    counted: Mapped[int | None] = mapped_column(Integer)
    repeats: Mapped[int | None] = mapped_column(Integer)
    invalid: Mapped[int | None] = mapped_column(Integer)
    late: Mapped[int | None] = mapped_column(Integer)
    winner: Mapped[int | None] = mapped_column(Integer)
    log_sha256: Mapped[str | None] = mapped_column(String(64))
    document_id: Mapped[int | None] = mapped_column(ForeignKey("document.id"))
    purge_after: Mapped[datetime | None] = mapped_column(UTCDateTime)
    numbers_purged_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class VoteMessage(Model):
    """One SMS of the vote log, as answered: ``result`` counted / repeat / invalid / late,
    ``candidate`` the number it named (None if invalid). ``msisdn_hash``: keyed hash of the
    normalised number (NULL after the retention period). ``received_at``: the gateway's
    time; ``arrived_at``: Sova's. A late message is filed under the latest vote."""

    __tablename__ = "vote_message"
    __table_args__ = (
        UniqueConstraint("vote_id", "message_id", name="uq_vote_message_id"),
        Index(
            "uq_vote_counted_msisdn",
            "vote_id",
            "msisdn_hash",
            unique=True,
            sqlite_where=text("result = 'counted'"),
            postgresql_where=text("result = 'counted'"),
        ),
        # ``result`` included, not a key column: as a key it let the planner read a
        # number's counted message through this index (every counted row of the vote)
        # rather than through ``uq_vote_counted_msisdn`` when the statistics were stale
        Index("ix_vote_message_tally", "vote_id", "candidate", postgresql_include=["result"]),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    vote_id: Mapped[int] = mapped_column(ForeignKey("vote.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(String(100))
    msisdn_hash: Mapped[str | None] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(String(500), default="")
    received_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    arrived_at: Mapped[datetime] = mapped_column(UTCDateTime)
    result: Mapped[str] = mapped_column(String(10))
    candidate: Mapped[int | None] = mapped_column(Integer)


class VoteAward(Model):
    """The §3.1 best-player decision of game ``game_id`` (audit), made on any page that
    awards the prize: the vote (None: no vote was held), the vote's winner (None for a tie
    or no vote), the player chosen, whether the sponsor's representative decided instead of
    the vote (``overridden``) and why (``reason``), who recorded it and when, and the Prize
    made."""

    __tablename__ = "vote_award"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    vote_id: Mapped[int | None] = mapped_column(
        ForeignKey("vote.id", ondelete="CASCADE"), index=True
    )
    game_id: Mapped[int | None] = mapped_column(
        ForeignKey("game.id", ondelete="CASCADE"), index=True
    )
    prize_id: Mapped[int | None] = mapped_column(ForeignKey("prize.id"))
    winner_name: Mapped[str | None] = mapped_column(String(200))
    chosen_name: Mapped[str] = mapped_column(String(200))
    overridden: Mapped[bool] = mapped_column(Boolean, default=False)
    reason: Mapped[str] = mapped_column(String(1000), default="")
    by_user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
