"""The one base of every operation's refusal: :class:`OperationError`.

An operation (``webapp.<feature>.operations``) raises a subclass when bad input or the
state of the data refuses the action. It never commits; the request edge
(:mod:`webapp.core.edge`) rolls the transaction back and turns the refusal into the
answer: under ``/api/`` ``422 {"errors": {field: [message]}}`` or ``409 {"error": {...}}``
(``shared/contracts/api.md``), on a page the flash message and redirect (or
re-rendered form) the view declared with :func:`webapp.core.edge.on_refusal`.
"""

from __future__ import annotations

from typing import Any


class OperationError(Exception):
    """An operation refused: nothing it did may be committed.

    - ``errors``: ``{field: [message, …]}`` (field errors; the API's 422 body), may be empty;
    - ``message``: one human-readable sentence (``str(exc)``), shown in a flash message;
    - ``status``: the HTTP status of the refusal, 422 (bad input) or 409 (the state of the
      data does not allow it); subclasses set a class default;
    - ``error``: the 409 body's object (``{"message": …}`` unless a subclass says more,
      e.g. the game-protocol error ``{"event", "rule", "message"}``).
    """

    status: int = 422

    def __init__(
        self,
        message: str = "",
        *,
        errors: dict[str, list[str]] | None = None,
        status: int | None = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.errors: dict[str, list[str]] = dict(errors or {})
        if status is not None:
            self.status = status
        self._error = error

    @property
    def error(self) -> dict[str, Any]:
        """The JSON object of a 409 answer (``{"message": str(self)}`` by default)."""
        return self._error if self._error is not None else {"message": str(self)}
