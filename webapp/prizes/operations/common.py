"""What the prizes operations share: allowed status changes, ``PrizeError``, the
seasons' agreement and minutes numbers, a recorded status change, a new prize, a document
row, a numbered gift agreement."""

from __future__ import annotations

import re

from webapp.core.documents import Owner, request_document
from webapp.core.errors import OperationError
from webapp.core.models import Document, utcnow
from webapp.domain.prizes import (
    GIFT_AGREEMENT,
)
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.prizes.models import (
    STATUS_LABELS,
    CommissionMinutes,
    GiftAgreement,
    Prize,
    PrizeStatusChange,
)

#: Allowed status changes. A prize without a gift agreement (2023 §4.11.6, 2009 §3) goes
#: owed → paid → closed (or owed → closed for a prize without cash, 2009 §3.1).
TRANSITIONS = {
    "owed": {"details_requested", "details_received", "agreement_issued"},
    "details_requested": {"details_requested", "details_received", "agreement_issued"},
    "details_received": {"agreement_issued"},
    "agreement_issued": {"details_requested", "details_received", "signed"},
    "signed": {"paid"},
    "paid": {"closed"},
    "closed": set(),
}
NO_AGREEMENT_TRANSITIONS = {
    "owed": {"details_requested", "details_received", "paid", "closed"},
    "details_requested": {"details_requested", "details_received", "paid"},
    "details_received": {"paid"},
    "paid": {"closed"},
    "closed": set(),
}


class PrizeError(OperationError, RuntimeError):
    """A prize operation the prize's state does not allow (HTTP 409 / a flash message), or
    bad input to one (``status=422``). ``rule``: the clause for a refusal by the rule book,
    else None."""

    status = 409

    def __init__(self, message: str, rule: str | None = None, status: int | None = None):
        super().__init__(message, error={"message": message, "rule": rule}, status=status)
        self.rule = rule


def agreement_prefix(season: Season) -> str:
    """The number prefix of a season's agreements: the first 4-digit year in its name
    (``"Сезон 2023"`` → ``"2023"``), else ``"S<id>"``."""
    m = re.search(r"(19|20)\d\d", season.name)
    return m.group(0) if m else f"S{season.id}"


def _lock_series(season: Season) -> str:
    """Lock the rows of the seasons that share ``season``'s number prefix
    (:func:`agreement_prefix`; a superset: every season whose name holds it) and return the
    prefix. ``FOR UPDATE`` on PostgreSQL; SQLite writers are serialised by
    ``BEGIN IMMEDIATE``."""
    prefix = agreement_prefix(season)
    db.session.execute(
        db.select(Season.id)
        .where(db.or_(Season.id == season.id, Season.name.contains(prefix, autoescape=True)))
        .with_for_update()
    )
    return prefix


def next_agreement_seq(season: Season) -> int:
    """The next gap-free number of the season's series (:func:`agreement_prefix`): one
    series per prefix, shared by every season whose name holds the same year («Сезон 2023»
    and «Сезон 2023, осень» number 2023-0001, 2023-0002, … together), so that a number is
    never issued twice (``uq_gift_agreement_number``). The series is locked
    (:func:`_lock_series`)."""
    prefix = _lock_series(season)
    current = db.session.scalar(
        db.select(db.func.max(GiftAgreement.seq)).where(
            GiftAgreement.number.startswith(f"{prefix}-", autoescape=True)
        )
    )
    return (current or 0) + 1


def next_minutes_seq(season: Season) -> int:
    """The next gap-free number of the prize commission minutes of the season's series
    (``2023-К-0001``), shared like the agreements' (:func:`next_agreement_seq`) but in its
    own sequence, so that a number is never issued twice
    (``uq_commission_minutes_number_ever``)."""
    prefix = _lock_series(season)
    current = db.session.scalar(
        db.select(db.func.max(CommissionMinutes.seq)).where(
            CommissionMinutes.number.startswith(f"{prefix}-К-", autoescape=True)
        )
    )
    return (current or 0) + 1


#: What moving to a status means, as a refusal names it («отметить оплату нельзя — …»).
STATUS_ACTIONS = {
    "details_requested": "запросить реквизиты",
    "details_received": "принять реквизиты",
    "agreement_issued": "выписать договор",
    "signed": "отметить договор подписанным",
    "paid": "отметить оплату",
    "closed": "закрыть приз",
}


def refusal_text(prize: Prize, to: str) -> str:
    """Why ``prize`` cannot move to ``to``, in plain words of what must happen first:
    ``"приз 1 («реквизиты запрошены»): отметить оплату нельзя — сначала нужен подписанный
    договор (загрузите скан)"``."""
    now = prize.status
    if now == "closed":
        reason = "приз уже закрыт"
    elif now == "paid":
        reason = "приз уже выплачен, оплату не исправить"
    elif now == "signed" and to != "paid":
        reason = "договор уже подписан, дальше — отметка об оплате"
    elif now == "details_received" and to in ("details_requested", "details_received"):
        reason = "реквизиты уже получены"
    elif to == "signed":
        reason = "сначала нужен выписанный договор дарения"
    elif to == "paid":
        reason = "сначала нужен подписанный договор (загрузите скан)"
    elif to == "closed":
        reason = "сначала нужно отметить оплату"
    else:
        reason = "сейчас этот шаг не предусмотрен"
    return (
        f"приз {prize.id} («{STATUS_LABELS.get(now, now)}»): "
        f"{STATUS_ACTIONS.get(to, STATUS_LABELS.get(to, to))} нельзя — {reason}"
    )


def change_status(prize: Prize, to: str, user_id: int | None, note: str = "") -> Prize:
    """Move ``prize`` to status ``to`` and record who and when (PrizeStatusChange).

    Allowed moves: :data:`TRANSITIONS` (or :data:`NO_AGREEMENT_TRANSITIONS` for a prize
    without a gift agreement). Raises PrizeError for any other move.
    """
    graph = TRANSITIONS if prize.agreement is not None else NO_AGREEMENT_TRANSITIONS
    if to not in graph.get(prize.status, set()):
        raise PrizeError(refusal_text(prize, to))
    _record(prize, prize.status, to, user_id, note)
    return prize


def _record(prize: Prize, from_status: str | None, to: str, user_id: int | None, note: str) -> None:
    now = utcnow()
    prize.status = to
    prize.status_changed_at = now
    db.session.add(
        PrizeStatusChange(
            prize_id=prize.id,
            from_status=from_status,
            to_status=to,
            by_user_id=user_id,
            note=note[:300],
            created_at=now,
        )
    )
    db.session.flush()


def new_prize(game: Game, user_id: int | None, note: str, **fields) -> Prize:
    """A new ``owed`` prize of ``game`` with ``fields``, flushed, its first status change
    recorded (by ``user_id``, with ``note``): the one way every award makes a prize."""
    prize = Prize(game_id=game.id, status="owed", created_at=utcnow(), **fields)
    db.session.add(prize)
    db.session.flush()
    _record(prize, None, "owed", user_id, note)
    return prize


def request_prize_document(kind: str, prize: Prize, version: int = 1) -> Document:
    """The pending Document of ``kind`` for ``prize``, version ``version``, its rendering
    queued (:func:`webapp.core.documents.request_document`). Earlier versions of that kind
    and prize still ``pending`` become ``superseded``: only the newest version is rendered,
    so they are owed by nobody (``sova outbox status``)."""
    if version > 1:
        db.session.execute(
            db.update(Document)
            .where(
                Document.prize_id == prize.id,
                Document.kind == kind,
                Document.version < version,
                Document.status == "pending",
            )
            .values(status="superseded")
            .execution_options(synchronize_session="fetch")
        )
    doc, _made = request_document(
        kind,
        f"{kind}:prize:{prize.id}:v{version}",
        Owner(game_id=prize.game_id, prize_id=prize.id),
        version=version,
    )
    return doc


def number_agreement(prize: Prize, season: Season) -> GiftAgreement:
    """Take the season's next number for ``prize`` and queue its rendering."""
    seq = next_agreement_seq(season)
    doc = request_prize_document(GIFT_AGREEMENT, prize)
    agreement = GiftAgreement(
        prize_id=prize.id,
        season_id=season.id,
        seq=seq,
        number=f"{agreement_prefix(season)}-{seq:04d}",
        status="pending",
        document_id=doc.id,
        created_at=utcnow(),
    )
    db.session.add(agreement)
    db.session.flush()
    return agreement
