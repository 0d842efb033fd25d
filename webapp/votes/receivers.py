"""The votes feature's answers to the prizes feature's best-player signals
(``best_player_vote``, ``best_player_awarded`` of ``webapp.core.signals``, connected by
``webapp.app.register_signals``; votes build on prizes): whichever page awards the 2009
§3.1 best player of a game (``/prizes/games/<id>/award``, the API, the vote page), the
rules see the game's vote and the decision is kept in ``VoteAward`` (audit)."""

from __future__ import annotations

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.votes.models import VoteAward
from webapp.votes.queries import vote_of


def game_vote(game) -> dict | None:
    """``{"vote_id", "status", "candidates", "winner"}`` of ``game``'s vote, or None."""
    vote = vote_of(game.id)
    if vote is None:
        return None
    return {
        "vote_id": vote.id,
        "status": vote.status,
        "candidates": list(vote.candidates),
        "winner": vote.winner,
    }


def keep_decision(
    game,
    *,
    prize,
    vote_id: int | None,
    winner_name: str | None,
    chosen: str,
    overridden: bool,
    reason: str,
    user_id: int | None,
) -> VoteAward:
    """Record the decision (flushed in the caller's transaction)."""
    row = VoteAward(
        vote_id=vote_id,
        game_id=game.id,
        prize_id=prize.id,
        winner_name=winner_name,
        chosen_name=chosen,
        overridden=overridden,
        reason=reason[:1000],
        by_user_id=user_id,
        at=utcnow(),
    )
    db.session.add(row)
    db.session.flush()
    return row
