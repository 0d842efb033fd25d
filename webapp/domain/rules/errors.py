"""Errors of the rules engine: a refused event (:class:`RuleViolation`) and malformed input
(:class:`ProtocolError`). Both serialise to the error JSON of the game protocol
(``shared/contracts/game-protocol.md``, "A refusal prints, and exits 2")."""

from __future__ import annotations

from typing import Any


class RuleViolation(Exception):
    """An event the rule set forbids at that point of the game.

    ``event_index`` is the 0-based index of the refused event in the event list (``None`` when
    what the rules refuse is outside the events: a table plan, 002_e025d5ded135c1c4.txt §1.3),
    ``rule`` cites the clause that forbids it (``"000_90d7c8192601ed3a.txt §3.7.1"``),
    ``message`` says why in plain English (``"club help only while the experts are behind
    (score 3:3)"``; the contract's error JSON and ``sova game replay`` print it).
    ``code`` names the refusal (``"club_help_not_behind"``) and ``params`` its values as plain
    data (``{"score": "3:3"}``: str, int, or a list of str); a person reads the refusal in
    their language through :func:`webapp.domain.books.refusal_text`, whose wording
    (shared, or the book's own) holds every code. ``code`` is ``None`` only for a refusal raised outside the rule
    books' engine (the text then falls back to ``message``).
    """

    def __init__(
        self,
        event_index: int | None,
        rule: str,
        message: str,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        prefix = f"event {event_index}: " if event_index is not None else ""
        super().__init__(f"{prefix}{message} ({rule})")
        self.event_index = event_index
        self.rule = rule
        self.message = message
        self.code = code
        self.params: dict[str, Any] = dict(params or {})

    def to_json(self) -> dict[str, Any]:
        """``{"error": {"event": i or None, "rule": "000_….txt §3.x", "message": "…"}}``."""
        return {"error": {"event": self.event_index, "rule": self.rule, "message": self.message}}


class ProtocolError(ValueError):
    """Malformed input: unknown format or rule set, bad table or context, unknown event type,
    missing field, field of the wrong type. ``event_index`` is the index of the faulty event,
    or ``None`` when the fault is outside the event list. Not a rule of the rule books, so
    ``to_json()`` gives ``"rule": None``. ``ru``, ``be``: the fault in Russian and in
    Belarusian where the raiser gives them (the season's events: the API's 409 and the staff
    pages show the Russian)."""

    def __init__(
        self,
        message: str,
        event_index: int | None = None,
        ru: str | None = None,
        be: str | None = None,
    ) -> None:
        prefix = f"event {event_index}: " if event_index is not None else ""
        super().__init__(prefix + message)
        self.event_index = event_index
        self.message = message
        self.ru = ru  # the same fault in Russian, where the raiser gives one (the API, pages)
        self.be = be

    def to_json(self) -> dict[str, Any]:
        """``{"error": {"event": i or None, "rule": None, "message": "…"}}``."""
        return {"error": {"event": self.event_index, "rule": None, "message": self.message}}
