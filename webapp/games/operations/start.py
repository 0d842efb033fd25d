"""Starting a game on the console: the first event is accepted only when
the table is locked and its envelopes were rendered — what the host reads and what the
experts open is then the same locked table — or when the producer confirmed starting
without them (audited: a ``GameEventAudit`` row with action ``start_ok``)."""

from __future__ import annotations

from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.games.models import Game, GameEventAudit
from webapp.games.operations.common import GameConflict, GameError

#: ``GameEventAudit.action`` of the producer's confirmation to start without envelopes.
START_OK = "start_ok"


def envelopes_rendered(game: Game) -> bool:
    """True when a rendered (``ready``) envelopes PDF of ``game`` exists."""
    found = db.session.scalar(
        db.select(Document.id)
        .where(
            Document.game_id == game.id,
            Document.kind == "envelopes",
            Document.status == "ready",
        )
        .limit(1)
    )
    return found is not None


def start_confirmation(game: Game) -> GameEventAudit | None:
    """The producer's confirmation to start ``game`` without a locked table or rendered
    envelopes (the latest ``start_ok`` audit row), or None."""
    return db.session.scalar(
        db.select(GameEventAudit)
        .where(GameEventAudit.game_id == game.id, GameEventAudit.action == START_OK)
        .order_by(GameEventAudit.id.desc())
        .limit(1)
    )


def start_refusal(game: Game) -> str | None:
    """Why the console may not record ``game``'s first event, in Russian, or None (the game
    is not ``ready`` to start or has events already, the table is locked and its envelopes
    rendered, or the producer confirmed starting without them)."""
    if game.status != "ready" or game.events or start_confirmation(game) is not None:
        return None  # a draft or closed game is refused by record_event itself
    locked = game.table_locked_at is not None
    if locked and envelopes_rendered(game):
        return None
    missing = (
        "стол не заблокирован и конверты не напечатаны"
        if not locked
        else "конверты ещё не напечатаны (их PDF не готов)"
    )
    return (
        f"Игру нельзя начать: {missing}. Продюсер блокирует стол и печатает конверты "
        "на странице игры — или там же разрешает начать без них."
    )


def allow_start(game: Game, user_id: int | None, reason: str) -> GameEventAudit:
    """The producer's confirmation to start ``game`` although :func:`start_refusal` refuses
    it: an audit row (``action="start_ok"``, ``seq=0``, ``payload={"reason", "locked",
    "envelopes"}``, who, when). Idempotent while a confirmation exists. GameConflict when
    nothing needs confirming (not ``ready``, started, or printed); GameError (422) without a
    ``reason`` (stripped, 1..500 characters)."""
    existing = start_confirmation(game)
    if existing is not None:
        return existing
    if start_refusal(game) is None:
        raise GameConflict(
            "подтверждать нечего: игра не готова к началу, уже идёт "
            "или её стол заблокирован и конверты напечатаны"
        )
    reason = (reason or "").strip()
    if not reason or len(reason) > 500:
        raise GameError({"reason": ["укажите причину (до 500 знаков)"]})
    row = GameEventAudit(
        game_id=game.id,
        action=START_OK,
        seq=0,
        payload={
            "reason": reason,
            "locked": game.table_locked_at is not None,
            "envelopes": envelopes_rendered(game),
        },
        by_user_id=user_id,
        at=utcnow(),
    )
    db.session.add(row)
    db.session.flush()
    return row
