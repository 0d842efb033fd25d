"""HTTP API v1 (``shared/contracts/api.md``), built with flask-smorest.

The API calls the same operations as the pages; errors: 422 ``{"errors": {field: [msg]}}``,
401/403/404, 409 ``{"error": {...}}`` (a rule refusal is the game-protocol error object).
Validation and HTTP error texts are in the client's language (``Accept-Language``: ru, be, en;
Russian by default; :mod:`webapp.api.messages`).
"""

from __future__ import annotations

from flask import Flask, current_app, g, jsonify, request
from flask_babel import gettext
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from webapp.api.body import body_cap
from webapp.api.messages import http_message, install
from webapp.core.access import allowed_roles, refuse
from webapp.core.chars import code_point, forbidden
from webapp.extensions import api, csrf, login_manager

install()  # marshmallow's messages in the client's language, before any schema is declared


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
#: recurse, so a body of ~1 000 levels was a RecursionError and a 500.
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


#: The OpenAPI document's extra parts: how a caller proves who it is.
SPEC_KWARGS = {
    "components": {
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            # a game's broadcast token (webapp.onair): vMix sends no headers
            "broadcastKey": {"type": "apiKey", "in": "query", "name": "key"},
        }
    },
}


def register_api(app: Flask) -> None:
    # Imported here, not at the top: the schemas must be declared after install() above has
    # put marshmallow's messages in place, and the views declare them when imported.
    from webapp.api import game_views as _game_views  # noqa: F401  (its routes join blp)
    from webapp.api import onair_views as _onair_views  # noqa: F401  (its routes join blp)
    from webapp.api import schemas
    from webapp.api import votes as _votes  # noqa: F401  (its routes join blp)
    from webapp.api.views import blp

    # the documented default error body is the one `handle` below really sends
    api.ERROR_SCHEMA = schemas.ApiError
    api.init_app(app, spec_kwargs=SPEC_KWARGS)
    api.register_blueprint(blp)
    csrf.exempt(blp)
    from webapp.api.season_views import blp as season_blp

    api.register_blueprint(season_blp)
    csrf.exempt(season_blp)

    @app.before_request
    def api_json_guard():
        """422 for a body sent under a Content-Type other than JSON, a JSON body that does
        not parse, is nested deeper than MAX_JSON_DEPTH or has a character user text may not
        hold in any string (:func:`json_refusal`). A view whose body is signed
        (``signed_body``: the SMS callback) gets only its cap here: it checks the signature
        of the raw body first and calls :func:`json_refusal` itself after it, so an
        unsigned body is never parsed."""
        if not request.path.startswith("/api/"):
            return None
        view = current_app.view_functions.get(request.endpoint or "")
        if getattr(view, "signed_body", False):
            body_cap(view)
            return None
        if not request.is_json and request.method in ("POST", "PUT", "PATCH"):
            spec = getattr(view, "sova_access", None)
            if spec is not None and request.content_length != 0:
                # a staff endpoint answers who may call it first: 401/403
                refuse(allowed_roles(spec), api=True)
        return json_refusal(view)

    @app.before_request
    def api_bearer_only():
        """The API authenticates by bearer token only (contracts/api.md): a staff session
        cookie is ignored under /api/, because the API is CSRF-exempt."""
        if request.path.startswith("/api/"):
            # flask-login reads the request's user from g._login_user before the session
            g._login_user = login_manager.anonymous_user()

    def handle(exc: HTTPException):
        data = getattr(exc, "data", None) or {}
        if exc.code == 422 and "messages" in data:
            msgs = data["messages"]
            merged = {}
            for location in ("json", "query", "form"):
                if location in msgs:
                    merged.update(flatten(msgs[location]))
            return jsonify({"errors": merged}), 422
        if exc.code == 422 and "errors" in data:
            return jsonify({"errors": data["errors"]}), 422
        if exc.code == 409 and "error" in data:
            return jsonify({"error": data["error"]}), 409
        own = exc.description if exc.description != type(exc).description else None
        if isinstance(exc, RateLimitExceeded):
            own = None  # Flask-Limiter describes the limit in English («5 per 1 minute»)
        # Werkzeug's default descriptions are English: the client's language instead
        message = own or http_message(exc.code)
        return jsonify({"error": {"code": exc.code, "message": message}}), exc.code

    api.handle_http_exception = handle
    app.extensions["sova_api_error"] = handle
