"""The request edge: the one place that commits, rolls back and answers a refusal.

Modelled on Indico's ``RH.process``: :func:`run` calls the view; when it returns, the
transaction is committed (through :func:`webapp.tasks.outbox.commit`, which also relays the outbox
messages the request queued); when it raises, the transaction is rolled back. An
:class:`~webapp.core.errors.OperationError` (an operation's refusal) is answered here:

- under ``/api/``: ``422 {"errors": {field: [message]}}`` or ``409 {"error": {...}}``
  (``shared/contracts/api.md``), by the exception's ``status``;
- on a page: what the view declared with :func:`on_refusal` before calling the operation
  (a flash message and a redirect, or a response of its own such as the form again);
  without a declaration, the error page with the refusal's status.

Views therefore call operations and return; they hold no ``commit()``/``rollback()``.
A view that must end the transaction itself mid-request (the one exception today: the
viewer form catching the database's refusal of a duplicate idempotency key *at commit*)
says so where it does it.

An answer of status 400 or more is a refusal too: the edge rolls back instead of
committing, unless the view called :func:`keep` (the login page's 401/429, which must
record the failed attempt). A view may also finish a 2xx/3xx answer without writing what
it did (:func:`discard`).

``webapp.app.SovaFlask.dispatch_request`` calls :func:`run` for every request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, flash, g, jsonify, redirect, render_template, request
from werkzeug.exceptions import HTTPException

from webapp.core.errors import OperationError
from webapp.extensions import db
from webapp.tasks.outbox import commit

#: A view's answer to a refusal: called with the error, after the rollback.
Respond = Callable[[OperationError], Any]


class _Refusal(HTTPException):
    """Carries an OperationError's status to the error page (``error.html``)."""

    def __init__(self, exc: OperationError) -> None:
        super().__init__(description=str(exc))
        self.code = exc.status


def on_refusal(
    flash_prefix: str | None = None, redirect_to: str | None = None, respond: Respond | None = None
) -> None:
    """Declare how this page answers an operation's refusal (before calling it).

    ``flash_prefix`` + ``str(exc)`` is flashed as an error and the browser is redirected to
    ``redirect_to`` (a URL); or ``respond(exc)`` builds the answer (called after the
    rollback). API views declare nothing: their answer is the contract's JSON.
    """
    g.sova_refusal = (flash_prefix, redirect_to, respond)


def discard() -> None:
    """End this request with a rollback instead of a commit (a refusal the view caught)."""
    g.sova_discard = True


def keep() -> None:
    """Commit this request's writes even though its answer is an error status (4xx)."""
    g.sova_keep = True


def refusal_response(exc: OperationError) -> Any:
    """The answer to ``exc`` for the current request (see the module doc)."""
    if request.path.startswith("/api/"):
        if exc.status == 409:
            return jsonify({"error": exc.error}), 409
        return jsonify({"errors": exc.errors}), exc.status
    flash_prefix, redirect_to, respond = g.get("sova_refusal", (None, None, None))
    if respond is not None:
        return respond(exc)
    if flash_prefix is not None:
        flash(f"{flash_prefix}{exc}", "error")
    if redirect_to is not None:
        return redirect(redirect_to)
    return render_template("error.html", error=_Refusal(exc), own_description=str(exc)), exc.status


def run(view: Callable[[], Any]) -> Any:
    """Call ``view`` in one transaction: commit when it returns a 1xx-3xx answer (or a
    4xx after :func:`keep`), roll back when it raises, answers 4xx/5xx or called
    :func:`discard`; an OperationError becomes :func:`refusal_response`. Returns the
    response object."""
    try:
        rv = view()
    except OperationError as exc:
        db.session.rollback()
        return refusal_response(exc)
    except BaseException:
        db.session.rollback()
        raise
    response = current_app.make_response(rv)
    refused = response.status_code >= 400 and not g.pop("sova_keep", False)
    if g.pop("sova_discard", False) or refused:
        db.session.rollback()
    else:
        commit()
    return response
