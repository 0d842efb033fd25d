"""The cap on a request body that a view sets for itself (the SMS callback's), applied by
the API's ``before_request`` guard in :mod:`webapp.api` before anything reads the body."""

from __future__ import annotations

from flask import abort, request


def body_cap(view) -> None:
    """Apply the view's cap on the request body (its ``max_body`` attribute, bytes; the SMS
    callback has one) before anything reads the body: 413 for a larger Content-Length, and
    a chunked body is cut off with 413 when it grows past the cap. No cap: nothing."""
    cap = getattr(view, "max_body", None)
    if cap is None:
        return
    if request.content_length is not None and request.content_length > cap:
        abort(413)
    request.max_content_length = cap
