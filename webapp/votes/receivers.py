"""The votes feature's answer to the prizes feature's best-player notification
(``best_player_awarded`` of ``webapp.core.signals``, connected by
``webapp.app.register_signals``; votes build on prizes): whichever page awards the 2009
§3.1 best player of a game (``/prizes/games/<id>/award``, the API, the vote page), the
decision is kept in ``VoteAward`` (audit). The game's vote itself is handed to the award by
its caller (``webapp.votes.queries.best_player_vote``)."""

from __future__ import annotations

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.votes.models import VoteAward


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
