"""Reads of the 2009 §3.1 audience vote."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select

from webapp.core.models import Document
from webapp.extensions import db
from webapp.votes.models import Vote, VoteAward
from webapp.votes.operations import live_counts


def vote_of(game_id: int) -> Vote | None:
    """The latest vote of game ``game_id`` (a game has at most one), or None."""
    return db.session.scalar(select(Vote).where(Vote.game_id == game_id)
                             .order_by(Vote.id.desc()))


def open_vote() -> Vote | None:
    """The vote open now (at most one), or None."""
    return db.session.scalar(select(Vote).where(Vote.status == "open"))


def awards(vote: Vote) -> list[VoteAward]:
    """The recorded §3.1 award decisions of ``vote``, oldest first."""
    return list(db.session.scalars(select(VoteAward).where(VoteAward.vote_id == vote.id)
                                   .order_by(VoteAward.id)))


def _local(at: datetime | None, zone: str) -> str | None:
    return at.astimezone(ZoneInfo(zone)).isoformat() if at else None


def vote_json(vote: Vote, zone: str = "Europe/Moscow") -> dict:
    """The contract's ``vote`` object: ``{status, candidates: [{n, name, votes}], counted,
    repeats, invalid, late}`` (live counts from the log), plus ``id``, ``game_id``,
    ``opened_at``, ``closed_at`` (ISO 8601 in the season's zone), ``winner`` (number or
    None), ``log_sha256`` and ``document`` ``{id, status}`` once closed."""
    out = {"id": vote.id, "game_id": vote.game_id, "status": vote.status}
    out.update(live_counts(vote))
    out["opened_at"] = _local(vote.opened_at, zone)
    out["closed_at"] = _local(vote.closed_at, zone)
    out["winner"] = vote.winner
    out["log_sha256"] = vote.log_sha256
    doc = db.session.get(Document, vote.document_id) if vote.document_id else None
    out["document"] = {"id": doc.id, "status": doc.status} if doc else None
    return out
