"""Reads of the 2009 §3.1 audience vote."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import func, select

from webapp.core.crypto import lookup_hash
from webapp.core.models import Document
from webapp.domain import vote as rules
from webapp.domain.books import cite
from webapp.domain.text import isolate, team_phrase
from webapp.domain.vote import RULE
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.queries import donor_context
from webapp.votes.models import Vote, VoteAward, VoteMessage


def vote_of(game_id: int) -> Vote | None:
    """The latest vote of game ``game_id`` (a game has at most one), or None."""
    return db.session.scalar(select(Vote).where(Vote.game_id == game_id).order_by(Vote.id.desc()))


def best_player_vote(game: Game) -> dict | None:
    """``{"vote_id", "status", "candidates", "winner"}`` of ``game``'s audience vote (the
    2009 §3.1 best player follows it), or None when none was held: what the votes feature
    hands ``webapp.prizes.operations.award_prize`` (and what the app hands the prizes'
    award page, ``webapp.app.register_handovers``)."""
    vote = vote_of(game.id)
    if vote is None:
        return None
    return {
        "vote_id": vote.id,
        "status": vote.status,
        "candidates": list(vote.candidates),
        "winner": vote.winner,
    }


def open_vote() -> Vote | None:
    """The vote open now (at most one), or None."""
    return db.session.scalar(select(Vote).where(Vote.status == "open"))


def awards(game_id: int) -> list[VoteAward]:
    """The recorded §3.1 best-player decisions of game ``game_id`` (after its vote or
    without one), oldest first."""
    return list(
        db.session.scalars(
            select(VoteAward).where(VoteAward.game_id == game_id).order_by(VoteAward.id)
        )
    )


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


def _shown(at: datetime | None, zone: str) -> str:
    return at.astimezone(ZoneInfo(zone)).strftime("%d.%m.%Y %H:%M:%S %Z") if at else "—"


def result_context(vote: Vote) -> dict:
    """The context of ``templates/pdf/vote_result.html`` (primitives only)::

        {"game": {"title", "named", "date", "season", "team": "команда «Королёва»" or ""},
         "vote_id": int,
         "candidates": [{"n", "name", "votes"}], "counted", "repeats", "invalid", "late",
         "opened_at", "closed_at", "zone": str (times shown in the season's zone),
         "winner": str | None, "log_sha256": str, "seal": str,
         "rule": "п. 3.1 Правил сезона 2009 г." (webapp.domain.books.cite),
         "donor": {"name", "city", "place", "details", "representative"}}

    ``game.named``: the game's own title, "" for an untitled game (whose ``title``, «Игра
    02.12.2026», is never put in quotes after the word «Игра»).

    ``donor``: the season's donor (the general sponsor who gives the prize, 2009 §3.1;
    :func:`webapp.prizes.queries.donor_context`), named in the text, the signatures and
    the stamp line.

    The counts are the ones frozen at close. ``seal``: a keyed hash (the app's key
    material, :func:`webapp.core.crypto.lookup_hash`) of the result's canonical JSON, so
    Sova can tell a genuine document's figures from altered ones."""
    import json

    game = db.session.get_one(Game, vote.game_id)
    zone = game.season.timezone
    frozen = vote.votes or {}
    candidates = [
        {"n": n, "name": name, "votes": int(frozen.get(str(n), 0))}
        for n, name in enumerate(vote.candidates, start=1)
    ]
    summary = {
        "vote_id": vote.id,
        "game_id": game.id,
        "candidates": candidates,
        "counted": vote.counted or 0,
        "repeats": vote.repeats or 0,
        "invalid": vote.invalid or 0,
        "late": vote.late or 0,
        "opened_at": vote.opened_at.isoformat(),
        "closed_at": vote.closed_at.isoformat() if vote.closed_at else None,
        "log_sha256": vote.log_sha256,
    }
    seal = lookup_hash("vote-result:" + json.dumps(summary, sort_keys=True, ensure_ascii=False))
    return {
        "game": {
            # names isolated as in Game.label: the result puts them in a sentence
            "title": isolate(game.display_title),
            "named": isolate(game.title or ""),
            "date": game.air_date.isoformat(),
            "season": isolate(game.season.name),
            "team": team_phrase(game.team or (game.team_row.name if game.team_row else "")),
        },
        "vote_id": vote.id,
        "candidates": candidates,
        "counted": summary["counted"],
        "repeats": summary["repeats"],
        "invalid": summary["invalid"],
        "late": summary["late"],
        "opened_at": _shown(vote.opened_at, zone),
        "closed_at": _shown(vote.closed_at, zone),
        "zone": zone,
        "winner": vote.candidates[vote.winner - 1] if vote.winner else None,
        "log_sha256": vote.log_sha256 or "",
        "seal": seal,
        "rule": cite(RULE),
        "donor": donor_context(game.season),
    }


# --- counts and the log -------------------------------------------------------------------


def live_counts(vote: Vote) -> dict:
    """The contract's counts of ``vote`` from its log (one GROUP BY on the tally index):
    ``{candidates: [{n, name, votes}], counted, repeats, invalid, late}``."""
    rows = db.session.execute(
        select(VoteMessage.result, VoteMessage.candidate, func.count())
        .where(VoteMessage.vote_id == vote.id)
        .group_by(VoteMessage.result, VoteMessage.candidate)
    ).all()
    t = rules.Tally(list(vote.candidates))
    for result, candidate, n in rows:
        if result == rules.COUNTED:
            if candidate is not None:  # a counted row always names its candidate
                t.votes[candidate] = t.votes.get(candidate, 0) + n
        elif result == rules.REPEAT:
            t.repeats += n
        elif result == rules.INVALID:
            t.invalid += n
        else:
            t.late += n
    return t.as_json()


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def log_lines(vote: Vote, batch: int = 5000):
    """The vote log in arrival order (``id``), as :func:`webapp.domain.vote.log_line`
    strings; streamed in batches of ``batch`` rows."""
    last = 0
    seq = 0
    while True:
        rows = db.session.execute(
            select(
                VoteMessage.id,
                VoteMessage.message_id,
                VoteMessage.msisdn_hash,
                VoteMessage.text,
                VoteMessage.received_at,
                VoteMessage.arrived_at,
                VoteMessage.result,
                VoteMessage.candidate,
            )
            .where(VoteMessage.vote_id == vote.id, VoteMessage.id > last)
            .order_by(VoteMessage.id)
            .limit(batch)
        ).all()
        if not rows:
            return
        for r in rows:
            seq += 1
            yield rules.log_line(
                seq,
                r.message_id,
                r.msisdn_hash or "",
                r.text,
                _iso(r.received_at),
                r.arrived_at.isoformat(),
                r.result,
                r.candidate,
            )
        last = rows[-1].id
