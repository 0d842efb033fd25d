"""The cap on a request body that a view sets for itself (the SMS callback's), applied by
the API's ``before_request`` guard in :mod:`webapp.api` before anything reads the body; the
checks of a JSON body every API view gets (:func:`json_refusal`); and the API's reading of
a JSON body, which keeps a JSON number's literal (:class:`NumberLiteral`)."""

from __future__ import annotations

import json
from typing import Any

import flask
import flask_smorest
from flask import abort, jsonify, request
from flask_babel import gettext
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from webapp.core.chars import code_point, forbidden


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


def flatten(messages, prefix: str = "") -> dict[str, list[str]]:
    """webargs' nested messages → ``{"authors.0.name": ["…"]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict):
                out.update(flatten(value, name))
            else:
                out[name] = [str(v) for v in (value if isinstance(value, list) else [value])]
    else:
        out[prefix or "_schema"] = [str(messages)]
    return out


def unfit_fields(data, prefix: str = "") -> dict[str, str]:
    """Dotted paths (``"authors.0.name"``) of the strings in parsed JSON ``data`` (keys
    too) that hold a character user text may not hold (:func:`webapp.core.chars.forbidden`:
    a lone UTF-16 surrogate — valid as a JSON escape ``\\ud800``, but no character —, a
    control but TAB/LF/CR, a noncharacter such as U+FFFE, a bidi override), each with the
    first such character."""
    if isinstance(data, str):
        c = forbidden(data)
        return {prefix or "_schema": c} if c is not None else {}
    found: dict[str, str] = {}
    items = (
        data.items()
        if isinstance(data, dict)
        else (enumerate(data) if isinstance(data, list) else ())
    )
    for key, value in items:
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(key, str) and forbidden(key) is not None:
            found[path] = forbidden(key) or ""
        found.update(unfit_fields(value, path))
    return found


def unfit_message(c: str) -> str:
    """The 422 message for character ``c`` of :func:`unfit_fields`, in the client's language."""
    if "\ud800" <= c <= "\udfff":
        return gettext("Недопустимый символ: одиночный суррогат UTF-16 (\\ud800–\\udfff).")
    return gettext("Недопустимый символ %(code)s: удалите его.", code=code_point(c))


#: The deepest nesting of arrays and objects an API body may have. The deepest body of the
#: contracts (a game protocol's event) is 3 levels; Python's JSON decoder and our walkers
#: recurse, so a body nested a thousand levels deep would end in a RecursionError and a 500.
MAX_JSON_DEPTH = 32


def json_depth(data) -> int:
    """Nesting depth of parsed JSON ``data``: 0 for a scalar, 1 for ``[]`` or ``{"a": 1}``,
    +1 per level; computed without recursion, stopping once past MAX_JSON_DEPTH."""
    deepest, stack = 0, [(data, 0)]
    while stack and deepest <= MAX_JSON_DEPTH:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth + 1)
            stack.extend((item, depth + 1) for item in value)
    return deepest


def json_refusal(view):
    """The 422 answer to the current API request's body, or None if it may be read: a body
    sent under a Content-Type other than JSON, a JSON body that does not parse, is nested
    deeper than MAX_JSON_DEPTH or has a character user text may not hold in any string
    (:func:`unfit_fields`: a nested body and a lone surrogate used to reach code that could
    not take them and became a 500; a U+FFFE in a team name made the Atom feed invalid
    XML). Applies ``view``'s body cap (:func:`~webapp.api.body.body_cap`) before reading."""
    if (
        not request.is_json
        and request.method in ("POST", "PUT", "PATCH")
        and request.content_length != 0
    ):
        body_cap(view)
        if not request.get_data(cache=True).strip():
            return None
        # a body under another Content-Type (text/plain, a form) is not read as JSON:
        # say so, instead of «Обязательное поле.» for every field
        message = gettext(
            "Тело запроса не прочитано как JSON: укажите заголовок Content-Type: application/json."
        )
        return jsonify(errors={"_schema": [message]}), 422
    if request.is_json:
        body_cap(view)
        try:
            body = request.get_json(silent=True)
            too_deep = json_depth(body) > MAX_JSON_DEPTH
        except RecursionError:  # the decoder's own limit (~1 000 levels)
            body, too_deep = None, True
        if too_deep:
            message = gettext(
                "Слишком глубокая вложенность JSON: больше %(levels)s уровней.",
                levels=MAX_JSON_DEPTH,
            )
            return jsonify(errors={"_schema": [message]}), 422
        if body is None and request.get_data(cache=True).strip() not in (b"", b"null"):
            # truncated or not UTF-8: invalid input, a 422 like any other (api.md), not
            # Werkzeug's bare 400
            message = gettext("Тело запроса — не JSON в UTF-8.")
            return jsonify(errors={"_schema": [message]}), 422
        bad = unfit_fields(body)
        if bad:
            return jsonify(errors={p: [unfit_message(c)] for p, c in bad.items()}), 422
    return None


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
