"""The cap on a request body that a view sets for itself (the SMS callback's), applied by
the API's ``before_request`` guard in :mod:`webapp.api` before anything reads the body; and
the API's reading of a JSON body, which keeps a JSON number's literal (:class:`NumberLiteral`)."""

from __future__ import annotations

import json
from typing import Any

import flask
import flask_smorest
from flask import abort, request
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request


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


class NumberLiteral(float):
    """A JSON number with a fraction or an exponent as the client wrote it: a ``float``
    everywhere (``NumberLiteral("1e5") == 100000.0``) that keeps its ``literal``
    (``"1e5"``), so a money field can refuse exponent notation
    (:func:`webapp.domain.money.parse_amount`) that the float alone no longer shows."""

    literal: str

    def __new__(cls, literal: str) -> NumberLiteral:
        number = super().__new__(cls, literal)
        number.literal = literal
        return number


class JSONArgumentsParser(FlaskParser):
    """webargs' parser of the API's arguments, reading each JSON number with a fraction or
    an exponent as a :class:`NumberLiteral` (integers stay ``int``). A malformed body is
    refused as webargs refuses it (``_handle_invalid_json_error``)."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if not is_json_request(req):
            return core.missing
        data = req.get_data(cache=True)
        return json.loads(data.decode("utf-8"), parse_float=NumberLiteral)


class Blueprint(flask_smorest.Blueprint):
    """The API's blueprints: flask-smorest's, with :class:`JSONArgumentsParser`."""

    ARGUMENTS_PARSER = JSONArgumentsParser()
