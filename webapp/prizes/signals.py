"""Back-edges of the prizes feature through signals (DESIGN "Features depend one way").

What the author's status page shows of prizes (``public_events`` of submissions):
``prize_owed`` when a prize for the question exists, ``paid`` when it was paid. The status
page shows both only after the game's air date.

A season's new donor (``donor_changed`` of games): the season's unsigned gift agreements
are issued again so that they name it. A game's new air date (``air_date_changed`` of
games): its unsigned gift agreements are issued again so that they print it."""

from __future__ import annotations

from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations import air_date_changed
from webapp.games.season.operations import donor_changed
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.prizes.operations import reissue_agreement
from webapp.submissions.models import Question
from webapp.submissions.queries import public_events


@public_events.connect
def prize_events(question: Question) -> list[dict]:
    """``[{"status": "prize_owed" | "paid", "at": datetime}]`` for ``question``'s prizes."""
    prizes = db.session.scalars(
        db.select(Prize).where(Prize.question_id == question.id).order_by(Prize.id)
    ).all()
    if not prizes:
        return []
    events = [{"status": "prize_owed", "at": min(p.created_at for p in prizes)}]
    paid_at = db.session.scalar(
        db.select(db.func.min(PrizeStatusChange.created_at)).where(
            PrizeStatusChange.prize_id.in_([p.id for p in prizes]),
            PrizeStatusChange.to_status == "paid",
        )
    )
    if paid_at is not None:
        events.append({"status": "paid", "at": paid_at})
    return events


#: Prize statuses whose gift agreement is not signed yet (a new version may be issued).
UNSIGNED = ("owed", "details_requested", "details_received", "agreement_issued")


@donor_changed.connect
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


@air_date_changed.connect
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
