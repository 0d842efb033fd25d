"""Paperwork: the commission's minutes issued and re-issued, the gift agreement re-issued —
one at a time, or every unsigned one of a season whose donor changed or of a game whose day
of air changed (games hand these two to their operations: ``set_donor``, ``set_air_time``)."""

from __future__ import annotations

from webapp.core.models import Document, utcnow
from webapp.domain.prizes import (
    COMMISSION_MINUTES,
    GIFT_AGREEMENT,
)
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.prizes.models import (
    CommissionMinutes,
    Prize,
)
from webapp.prizes.operations.common import (
    PrizeError,
    agreement_prefix,
    next_minutes_seq,
    request_prize_document,
)


def issue_minutes(prize: Prize, season: Season | None = None) -> CommissionMinutes:
    """Number the prize commission's minutes of ``prize`` (a Crystal Owl prize, 2023
    §4.11.2–§4.11.5) and queue their first rendering (``prizes.render_minutes``).

    The number (``<season prefix>-К-<seq:04d>``, e.g. ``2023-К-0001``) is the next one
    without gaps of the season's year series (:func:`next_minutes_seq`), taken in the
    caller's transaction (the series locked) and kept for good. Idempotent: minutes already numbered are returned as they are (no new number, no
    new document, nothing queued).
    """
    existing = db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize.id)
    )
    if existing is not None:
        return existing
    season = season or prize.game.season
    seq = next_minutes_seq(season)
    minutes = CommissionMinutes(
        prize_id=prize.id,
        season_id=season.id,
        seq=seq,
        number=f"{agreement_prefix(season)}-К-{seq:04d}",
        created_at=utcnow(),
    )
    db.session.add(minutes)
    request_prize_document(COMMISSION_MINUTES, prize)
    return minutes


def _next_version(prize: Prize, kind: str) -> int:
    """1 + the highest version of the prize's documents of ``kind`` (1 when there is none)."""
    latest = db.session.scalar(
        db.select(db.func.max(Document.version)).where(
            Document.prize_id == prize.id, Document.kind == kind
        )
    )
    return 1 + (latest or 0)


def reissue_minutes(prize: Prize, user_id: int | None) -> Document:
    """A new version of the prize commission's minutes (e.g. after the commission's members
    changed in the configuration): same number, next version, rendered by
    ``prizes.render_minutes``; the prize's status does not change. ``user_id``: who asked
    (kept for the views' uniform call; documents record no author). Raises PrizeError when
    the prize has no minutes."""
    minutes = db.session.scalar(
        db.select(CommissionMinutes).where(CommissionMinutes.prize_id == prize.id)
    )
    if minutes is None:
        raise PrizeError(f"у приза {prize.id} нет протокола комиссии")
    doc = request_prize_document(
        COMMISSION_MINUTES, prize, _next_version(prize, COMMISSION_MINUTES)
    )
    return doc


def reissue_agreement(prize: Prize, user_id: int | None) -> Document:
    """A new version of the prize's gift agreement (e.g. once the address is known): same
    number, next version, rendered by ``prizes.issue_agreement``. Raises PrizeError when
    the prize has no agreement or is already signed."""
    agreement = prize.agreement
    if agreement is None:
        raise PrizeError(f"у приза {prize.id} нет договора дарения")
    if prize.status in ("signed", "paid", "closed"):
        raise PrizeError(f"договор {agreement.number} уже подписан: новая версия не выпускается")
    doc = request_prize_document(GIFT_AGREEMENT, prize, _next_version(prize, GIFT_AGREEMENT))
    agreement.document_id = doc.id
    agreement.status = "pending"
    return doc


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
