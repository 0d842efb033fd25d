"""The life of a game as an explicit state machine (pure: standard library only).

``draft → ready → live → finished → closed``, with the host's undo stepping back from
``live`` and ``finished``. Every allowed change is listed in :data:`TRANSITIONS` with the
step that makes it and where that step comes from; anything else raises
:class:`InvalidTransition`. Staying in a state is no change (an unruled note after the end,
the undo of one, the table filled again): :func:`check_transition` accepts it.

* ``draft → ready``: the table is filled (sectors and envelopes: 2023 §3.3, 2009 §1.3),
  ``webapp.games.operations.table.fill_table``; the table is edited and locked in ``ready``.
* ``ready → live``: the console records the first event (``sova.game-protocol/1``: a game
  is its ordered event list), ``webapp.games.operations.play.record_event``. A first event
  never ends a game: points are won by answers, which follow a spin (2023 §3.2, 2009 §1.2).
* ``live → finished``: an event gives a side its winning points (2023 §3.10, 2009 §1.8).
* ``live → ready`` / ``finished → live``: the host undoes the only event / the event that
  ended the game (``webapp.games.operations.play.undo_last_event``).
* ``finished → closed``: the producer closes the played game; the questions get their
  outcomes and the unanswered ones owe their authors the prize (2023 §4.11.1, 2009 §1.2.2),
  ``webapp.games.close.close_game``. A closed game is final: nothing of it is
  recorded or undone, and only a closed game is ever public.
"""

from __future__ import annotations

__all__ = [
    "FINAL_STATES",
    "INITIAL_STATE",
    "STATES",
    "TRANSITIONS",
    "InvalidTransition",
    "allowed_targets",
    "can_transition",
    "check_transition",
]

# In the order of a game's life.
STATES: tuple[str, ...] = (
    "draft",  # created on the season page, no table yet
    "ready",  # the table is filled: envelopes, reserves
    "live",  # events recorded, no side has its winning points yet
    "finished",  # a side has its winning points; not closed yet
    "closed",  # outcomes and prizes recorded; final
)

#: The state a new game starts in (``webapp.games.season.operations.create_game``).
INITIAL_STATE = "draft"

#: ``(from, to)`` → the step that makes the change and where it comes from.
TRANSITIONS: dict[tuple[str, str], str] = {
    ("draft", "ready"): "the table is filled (2023 §3.3, 2009 §1.3)",
    ("ready", "live"): "the first event is recorded (sova.game-protocol/1)",
    ("live", "finished"): "a side has its winning points (2023 §3.10, 2009 §1.8)",
    ("live", "ready"): "the host undoes the only event",
    ("finished", "live"): "the host undoes the event that ended the game",
    ("finished", "closed"): "the producer closes the game (2023 §4.11.1, 2009 §1.2.2)",
}

FINAL_STATES: frozenset[str] = frozenset(
    s for s in STATES if not any(origin == s for origin, _ in TRANSITIONS)
)


class InvalidTransition(ValueError):
    """A status change of a game that the state machine does not allow.

    ``message`` is Russian, for producers and hosts."""

    def __init__(self, from_status: str, to_status: str, message: str) -> None:
        super().__init__(message)
        self.from_status = from_status
        self.to_status = to_status
        self.message = message


def allowed_targets(from_status: str) -> frozenset[str]:
    """Statuses reachable in one step from ``from_status``.

    Raises InvalidTransition for a status that is not in :data:`STATES`."""
    if from_status not in STATES:
        raise InvalidTransition(from_status, "", f"неизвестный статус игры «{from_status}»")
    return frozenset(to for origin, to in TRANSITIONS if origin == from_status)


def can_transition(from_status: str, to_status: str) -> bool:
    """True if ``from_status → to_status`` is allowed or no change (unknown statuses: False)."""
    try:
        check_transition(from_status, to_status)
    except InvalidTransition:
        return False
    return True


def check_transition(from_status: str, to_status: str) -> None:
    """Raise :class:`InvalidTransition` unless ``from_status → to_status`` is allowed (or
    ``to_status`` is ``from_status``: no change).

    The message names both statuses and what is allowed instead, e.g.
    ``"переход игры «draft» → «live» запрещён; из «draft» можно: ready"``."""
    if to_status not in STATES:
        raise InvalidTransition(from_status, to_status, f"неизвестный статус игры «{to_status}»")
    targets = allowed_targets(from_status)
    if to_status == from_status or to_status in targets:
        return
    allowed = ", ".join(s for s in STATES if s in targets) or "ничего (конечный статус)"
    raise InvalidTransition(
        from_status,
        to_status,
        f"переход игры «{from_status}» → «{to_status}» запрещён; из «{from_status}» можно: {allowed}",
    )
