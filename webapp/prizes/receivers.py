"""What the prizes feature does when games tell it something changed (the signals of
``webapp.core.signals``, connected by ``webapp.app.register_signals``; games do not import
prizes).

A season's new donor (``donor_changed``): the season's unsigned gift agreements are issued
again so that they name it. A game's new air date (``air_date_changed``): its unsigned gift
agreements are issued again so that they print it."""

from __future__ import annotations

from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.prizes.models import Prize
from webapp.prizes.operations import reissue_agreement

#: Prize statuses whose gift agreement is not signed yet (a new version may be issued).
UNSIGNED = ("owed", "details_requested", "details_received", "agreement_issued")


def reissue_for_new_donor(season: Season, user_id: int | None = None) -> int:
    """Issue a new version of every unsigned gift agreement of ``season``'s games
    (``reissue_agreement``: same number, rendered by the worker after commit); signed
    agreements keep the donor they were signed with. Returns how many were issued."""
    prizes = db.session.scalars(
        db.select(Prize)
        .join(Game, Game.id == Prize.game_id)
        .where(Game.season_id == season.id, Prize.status.in_(UNSIGNED))
        .order_by(Prize.id)
    ).all()
    count = 0
    for prize in prizes:
        if prize.agreement is not None:
            reissue_agreement(prize, user_id)
            count += 1
    return count


def reissue_for_new_air_date(game: Game, user_id: int | None = None) -> dict[str, int]:
    """Issue a new version of every unsigned gift agreement of ``game`` (they print its air
    date); a signed agreement keeps the date it was signed with and is only counted, so
    the producer is told. Returns ``{"reissued": n, "signed": m}``."""
    prizes = db.session.scalars(
        db.select(Prize).where(Prize.game_id == game.id).order_by(Prize.id)
    ).all()
    counts = {"reissued": 0, "signed": 0}
    for prize in prizes:
        if prize.agreement is None:
            continue
        if prize.status in UNSIGNED:
            reissue_agreement(prize, user_id)
            counts["reissued"] += 1
        else:
            counts["signed"] += 1
    return counts
