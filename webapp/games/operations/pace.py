"""The host's reading pace, calibrated from the console's recorded readings (reads only).

The console records, on the server's clock, the spin (``GameEvent.created_at``) and the
host's tap that starts the minute (the ``minute`` event's ``at``): the reading of the
round's question ended then and began at about the spin. Each such pair of a round of one
question is one :class:`webapp.domain.reading.Reading` of the host who tapped the spin.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from webapp.accounts.models import User
from webapp.domain.reading import (
    DEFAULT_SYLLABLES_PER_SECOND,
    MIN_CALIBRATION_READINGS,
    Reading,
    calibrated_rate,
)
from webapp.domain.rules import replay
from webapp.extensions import db
from webapp.games.models import Game, GameEvent
from webapp.games.operations.common import GameError
from webapp.games.operations.play import game_context, game_rules
from webapp.games.queries import question_syllables


def recorded_readings(game: Game) -> list[tuple[int | None, Reading]]:
    """The readings the console recorded in ``game``: ``[(the spin's user id, Reading)]``
    in play order, one per round of one question whose minute was started after its spin
    (a blitz or superblitz round, a round without a ``minute`` start, is left out)."""
    events = sorted(game.events, key=lambda e: e.seq)
    payloads = [e.payload for e in events]
    envelopes = {env.sector: env for env in game.envelopes}
    out: list[tuple[int | None, Reading]] = []
    spin: GameEvent | None = None
    for index, event in enumerate(events):
        kind = event.payload.get("type")
        if kind == "spin":
            spin = event
            continue
        if kind != "minute" or event.payload.get("action") != "start" or spin is None:
            continue
        state = replay(
            game.season.book,
            game.table,
            game_context(game),
            payloads[:index],
            rules=game_rules(game),
        )
        played = state["rounds"][-1] if state["rounds"] else {}
        env = envelopes.get(int(played.get("sector") or 0))
        if env is None or len(played["questions"]) != 1 or len(env.questions) != 1:
            spin = None
            continue
        ended = datetime.fromisoformat(event.payload["at"])
        seconds = Decimal(str(round((ended - spin.created_at).total_seconds(), 1)))
        out.append(
            (spin.by_user_id, Reading(question_syllables(env.questions[0].question), seconds))
        )
        spin = None  # one reading per spin
    return out


def host_readings(user_id: int) -> list[Reading]:
    """Every reading of the host ``user_id`` in every game they spun in."""
    game_ids = db.session.scalars(
        db.select(GameEvent.game_id).where(GameEvent.by_user_id == user_id).distinct()
    ).all()
    return [
        reading
        for game_id in sorted(game_ids)
        for who, reading in recorded_readings(db.session.get_one(Game, game_id))
        if who == user_id
    ]


def host_pace(user_id: int | None) -> dict:
    """``{"rate": Decimal syllables a second, "readings": int, "calibrated": bool}``: the
    host's calibrated pace from :data:`MIN_CALIBRATION_READINGS` readings on
    (``webapp.domain.reading.calibrated_rate``), else the default; no host: the default."""
    readings = host_readings(user_id) if user_id is not None else []
    rate = calibrated_rate(readings)
    calibrated = len([r for r in readings if r.seconds > 0]) >= MIN_CALIBRATION_READINGS
    return {"rate": rate, "readings": len(readings), "calibrated": calibrated}


def game_rate(game: Game) -> Decimal:
    """The pace the game's reading time is estimated at: its host's (:func:`host_pace`),
    or :data:`DEFAULT_SYLLABLES_PER_SECOND` when the producer named no host."""
    if game.host_user_id is None:
        return DEFAULT_SYLLABLES_PER_SECOND
    return host_pace(game.host_user_id)["rate"]


def host_choices() -> list[tuple[str, str]]:
    """The active «host» users as ``(id, name or e-mail)`` select choices, «—» (none)
    first."""
    hosts = db.session.scalars(
        db.select(User).where(User.role == "host", User.active.is_(True)).order_by(User.email)
    ).all()
    return [("", "—"), *((str(u.id), u.name or u.email) for u in hosts)]


def set_game_host(game: Game, user_id: int | None) -> Game:
    """Name the episode's host (None: none). Raises GameError unless ``user_id`` is an
    active «host» user. Flushes only."""
    if user_id is not None:
        user = db.session.get(User, user_id)
        if user is None or user.role != "host" or not user.active:
            raise GameError({"host_user_id": ["ведущий не найден"]})
    game.host_user_id = user_id
    db.session.flush()
    return game
