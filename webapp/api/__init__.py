"""HTTP API v1 (``shared/contracts/api.md``), built with flask-smorest.

The API calls the same operations as the pages; errors: 422 ``{"errors": {field: [msg]}}``,
401/403/404, 409 ``{"error": {...}}`` (a rule refusal is the game-protocol error object).
Validation and HTTP error texts are in the client's language (``Accept-Language``: ru, be, en;
Russian by default; :mod:`webapp.api.messages`).
"""

from __future__ import annotations

from flask import Flask, current_app, g, jsonify, request
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from webapp.api.body import body_cap, flatten, json_refusal
from webapp.api.messages import http_message, install
from webapp.core.access import allowed_roles, refuse
from webapp.extensions import api, csrf, login_manager

install()  # marshmallow's messages in the client's language, before any schema is declared


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
