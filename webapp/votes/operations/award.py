"""The §3.1 award decision (the vote's winner or the sponsor's representative's choice, with
its reason) and the purge of phone-number hashes after the retention period."""

from __future__ import annotations

from datetime import datetime

from flask_babel import gettext as _
from sqlalchemy import select, update

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.operations import PrizeError, award_prize
from webapp.votes.models import Vote, VoteAward, VoteMessage
from webapp.votes.operations.common import VoteError
from webapp.votes.queries import best_player_vote

# --- the award and the purge --------------------------------------------------------------


def record_award(vote: Vote, chosen: str, reason: str, user_id: int | None) -> VoteAward:
    """Record the §3.1 best player of the vote's game: the vote's winner, or — «в отдельных
    случаях» — another candidate chosen by the sponsor's representative with a ``reason``.
    Awards the prize the book's audience vote decides (``AwardRule.decided_by_vote``, 2009
    §3.1 ``best_player_of_game``; ``webapp.prizes.operations.award_prize``), whose rules — ``webapp.domain.vote.best_player_award`` — are
    the same on every page) and returns the kept decision (VoteAward: who, when, winner,
    chosen, reason; written by ``webapp.votes.receivers``). Raises VoteError for an open
    vote, a choice the rules refuse or a prize refusal; nothing is written then."""
    if vote.status != "closed":
        raise VoteError(_("сначала закройте голосование"))
    game = db.session.get_one(Game, vote.game_id)
    voted = next((r for r in game.season.book.awards.values() if r.decided_by_vote), None)
    if voted is None:
        raise VoteError(
            f"в правилах {game.season.book.name} г. нет приза, который решает голосование"
        )
    try:
        made = award_prize(
            game,
            voted.kind,
            user_id,
            recipient=chosen,
            team=list(vote.candidates),
            reason=reason,
            vote=best_player_vote(game),
        )
    except PrizeError as exc:
        raise VoteError(exc.message, exc.rule) from exc
    return db.session.scalars(
        select(VoteAward)
        .where(VoteAward.game_id == game.id, VoteAward.prize_id == made[0].id)
        .order_by(VoteAward.id.desc())
    ).first() or _missing_award(made[0].id)


def _missing_award(prize_id: int) -> VoteAward:
    raise VoteError(f"решение о призе № {prize_id} не записано", None)


def purge_numbers(now: datetime | None = None) -> int:
    """Delete the phone-number hashes of every closed vote past ``purge_after`` (the beat
    task ``votes.purge_numbers``). Returns how many votes were purged. The counts, the log's
    recorded SHA-256 and the result document stay."""
    now = now or utcnow()
    ids = list(
        db.session.scalars(
            select(Vote.id).where(
                Vote.status == "closed", Vote.purge_after <= now, Vote.numbers_purged_at.is_(None)
            )
        )
    )
    for vote_id in ids:
        db.session.execute(
            update(VoteMessage).where(VoteMessage.vote_id == vote_id).values(msisdn_hash=None)
        )
        db.session.execute(update(Vote).where(Vote.id == vote_id).values(numbers_purged_at=now))
    return len(ids)
