"""HTTP API v1 (``shared/contracts/api.md``), built with flask-smorest.

The API calls the same operations as the pages; errors: 422 ``{"errors": {field: [msg]}}``,
401/403/404, 409 ``{"error": {...}}`` (a rule refusal is the game-protocol error object).
"""

from __future__ import annotations

from flask import Flask, g, jsonify, request
from werkzeug.exceptions import HTTPException

from webapp.extensions import api, csrf


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


def register_api(app: Flask) -> None:
    from webapp.api import schemas
    from webapp.api.views import blp

    # the documented default error body is the one `handle` below really sends
    api.ERROR_SCHEMA = schemas.ApiError
    api.init_app(app, spec_kwargs={
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    })
    api.register_blueprint(blp)
    csrf.exempt(blp)

    @app.before_request
    def api_bearer_only():
        """The API authenticates by bearer token only (contracts/api.md): a staff session
        cookie is ignored under /api/, because the API is CSRF-exempt (issue 7)."""
        if request.path.startswith("/api/"):
            from webapp.extensions import login_manager

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
        return jsonify({"error": {"code": exc.code, "message": exc.description}}), exc.code

    api.handle_http_exception = handle
    app.extensions["sova_api_error"] = handle
