"""The life of a viewer question as an explicit state machine (pure: standard library only).

Editorial moderation: ``received → prechecked → in_review → approved /
rejected → assigned → played → answered / unanswered → archived``; ``withdrawn`` by the
author while nothing has been decided for a game. Every allowed change is listed in
:data:`TRANSITIONS`; anything else raises :class:`ForbiddenTransition`.

Notes on the edges that are not on the straight line:

* ``None → archived``: an already played question imported from a packet for duplicate
  search only (``sova import --as archive``).
* ``approved ↔ rejected`` and ``approved/rejected → in_review``: an editor may revise a
  decision (or send it back for rework) while the question is not in a game.
* ``assigned → approved``: an envelope question that was not asked goes back to the pool
  at game close (000_90d7c8192601ed3a.txt §3.3: only a played sector is used up).
* ``assigned → played → answered / unanswered``: the game close records that the question
  was asked and then its outcome (an unanswered one owes its author the cash prize,
  000_90d7c8192601ed3a.txt §4.11.1).
"""

from __future__ import annotations

__all__ = [
    "FINAL_STATES",
    "INITIAL_STATES",
    "STATES",
    "TRANSITIONS",
    "ForbiddenTransition",
    "allowed_targets",
    "can_transition",
    "check_transition",
]

# In the order of a question's life.
STATES: tuple[str, ...] = (
    "received",  # stored, pre-check pending
    "prechecked",  # automatic checks done (report stored)
    "in_review",  # in the editors' queue
    "approved",  # in the approved pool
    "rejected",
    "assigned",  # in a game's envelope
    "played",  # asked in a played game
    "answered",  # the experts answered it right
    "unanswered",  # the experts failed: the author is owed the prize
    "archived",  # kept for duplicate search only (played long ago or imported)
    "withdrawn",  # taken back by its author
)

# Statuses a new question may start in (``None`` → status).
INITIAL_STATES: frozenset[str] = frozenset({"received", "archived"})

TRANSITIONS: dict[str, frozenset[str]] = {
    "received": frozenset({"prechecked", "withdrawn"}),
    "prechecked": frozenset({"in_review", "withdrawn"}),
    "in_review": frozenset({"approved", "rejected", "withdrawn"}),
    "approved": frozenset({"rejected", "in_review", "assigned", "withdrawn"}),
    "rejected": frozenset({"approved", "in_review"}),
    "assigned": frozenset({"played", "approved"}),
    "played": frozenset({"answered", "unanswered"}),
    "answered": frozenset({"archived"}),
    "unanswered": frozenset({"archived"}),
    "archived": frozenset(),
    "withdrawn": frozenset(),
}

FINAL_STATES: frozenset[str] = frozenset(s for s, t in TRANSITIONS.items() if not t)


class ForbiddenTransition(ValueError):
    """A status change the state machine does not allow.

    ``from_status`` is ``None`` for a new question; ``message`` is Russian, for editors.
    """

    def __init__(self, from_status: str | None, to_status: str, message: str) -> None:
        super().__init__(message)
        self.from_status = from_status
        self.to_status = to_status
        self.message = message


def allowed_targets(from_status: str | None) -> frozenset[str]:
    """Statuses reachable in one step from ``from_status`` (``None``: a new question).

    Raises ForbiddenTransition for a status that is not in :data:`STATES`.
    """
    if from_status is None:
        return INITIAL_STATES
    if from_status not in TRANSITIONS:
        raise ForbiddenTransition(from_status, "", f"неизвестный статус «{from_status}»")
    return TRANSITIONS[from_status]


def can_transition(from_status: str | None, to_status: str) -> bool:
    """True if ``from_status → to_status`` is allowed (unknown statuses: False)."""
    try:
        return to_status in allowed_targets(from_status)
    except ForbiddenTransition:
        return False


def check_transition(from_status: str | None, to_status: str) -> None:
    """Raise :class:`ForbiddenTransition` unless ``from_status → to_status`` is allowed.

    The message names both statuses and what is allowed instead, e.g.
    ``"переход «received» → «approved» запрещён; из «received» можно: prechecked, withdrawn"``.
    """
    if to_status not in TRANSITIONS:
        raise ForbiddenTransition(from_status, to_status, f"неизвестный статус «{to_status}»")
    targets = allowed_targets(from_status)
    if to_status in targets:
        return
    origin = "нового вопроса" if from_status is None else f"«{from_status}»"
    allowed = ", ".join(s for s in STATES if s in targets) or "ничего (конечный статус)"
    raise ForbiddenTransition(
        from_status,
        to_status,
        f"переход «{from_status or '—'}» → «{to_status}» запрещён; из {origin} можно: {allowed}",
    )
