"""Closing a game: outcomes of every envelope question, prizes, numbered agreements."""

from __future__ import annotations

import re

from webapp.core.models import Document, utcnow
from webapp.domain.money import Money
from webapp.domain.prizes import unanswered_question_prizes
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations import GameConflict, game_state
from webapp.jobs import enqueue
from webapp.prizes.models import GiftAgreement, Prize
from webapp.submissions.models import set_status


def agreement_prefix(season: Season) -> str:
    """The number prefix of a season's agreements: the first 4-digit year in its name
    (``"Сезон 2023"`` → ``"2023"``), else ``"S<id>"``."""
    m = re.search(r"(19|20)\d\d", season.name)
    return m.group(0) if m else f"S{season.id}"


def next_agreement_seq(season: Season) -> int:
    """The next gap-free number of the season. The season row is locked (``FOR UPDATE`` on
    PostgreSQL; SQLite writers are serialised by ``BEGIN IMMEDIATE``)."""
    db.session.execute(db.select(Season.id).where(Season.id == season.id).with_for_update())
    current = db.session.scalar(db.select(db.func.max(GiftAgreement.seq))
                                .where(GiftAgreement.season_id == season.id))
    return (current or 0) + 1


def close_game(game: Game, user_id: int | None) -> list[Prize]:
    """Close a finished game (idempotent: closing twice returns the same prizes).

    Every envelope question gets its outcome from the replay: ``unanswered`` (asked, not
    answered right: its authors are owed the prize), ``answered``, or ``unasked`` (never
    asked — back to the approved pool). Played questions become ``used`` with the air date.
    One Prize per author share, one GiftAgreement per prize numbered ``<year>-0001``
    without gaps, and ``prizes.issue_agreement`` queued for each. Raises GameConflict.
    """
    if game.status == "closed":
        return prizes_of(game)
    if game.status != "finished":
        raise GameConflict(f"game {game.id} is {game.status}; only a finished game is closed")
    season = game.season
    if season.unanswered_prize is None:
        raise GameConflict(f"season {season.name!r} has no cash prize per unanswered question;"
                           " set it first")
    state = game_state(game)
    unanswered = {(u["sector"], u["slot"]) for u in state["unanswered"]}
    played_sectors = {r["sector"] for r in state["rounds"]}
    asked = {(r["sector"], q["slot"]) for r in state["rounds"] for q in r["questions"]
             if q.get("asked")}
    owed: list[tuple[int, list[int]]] = []
    for env in game.envelopes:
        for eq in env.questions:
            key = (env.sector, eq.slot)
            q = eq.question
            if key in unanswered:
                eq.outcome = "unanswered"
                owed.append((q.id, [qa.author_id for qa in q.authors]))
            elif env.sector in played_sectors and key in asked:
                eq.outcome = "answered"
            else:
                eq.outcome = "unasked"
            if eq.outcome == "unasked":
                set_status(q, "approved", by_user_id=user_id,
                           reason=f"не сыгран в игре {game.id}: возвращён в пул")
            else:
                q.aired_on = game.air_date
                set_status(q, "used", by_user_id=user_id, reason=f"сыгран в игре {game.id}")
    entitlements = unanswered_question_prizes(
        season.ruleset, owed, Money(season.unanswered_prize, season.currency))
    prefix = agreement_prefix(season)
    seq = next_agreement_seq(season)
    for ent in entitlements:
        prize = Prize(game_id=game.id, question_id=ent.question_key, author_id=ent.author_key,
                      kind=ent.kind, amount=ent.money.amount, currency=ent.money.currency,
                      rule=ent.rule, status="owed", created_at=utcnow())
        db.session.add(prize)
        db.session.flush()
        doc = Document(key=f"gift_agreement:prize:{prize.id}:v1", kind="gift_agreement",
                       game_id=game.id, prize_id=prize.id, version=1, status="pending",
                       created_at=utcnow())
        db.session.add(doc)
        db.session.flush()
        db.session.add(GiftAgreement(prize_id=prize.id, season_id=season.id, seq=seq,
                                     number=f"{prefix}-{seq:04d}", status="pending",
                                     document_id=doc.id, created_at=utcnow()))
        seq += 1
        enqueue("prizes.issue_agreement", prize.id)
    game.status = "closed"
    game.closed_at = utcnow()
    db.session.flush()
    return prizes_of(game)


def prizes_of(game: Game) -> list[Prize]:
    return list(db.session.scalars(db.select(Prize).where(Prize.game_id == game.id)
                                   .order_by(Prize.id)).all())
