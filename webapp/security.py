"""HTTP security controls, wired by :func:`init_security` (``docs/security.md``).

- Security headers (Flask-Talisman): a Content-Security-Policy whose ``script-src`` is
  ``'self'`` only (no inline script may run), ``frame-ancestors 'none'`` and
  ``X-Frame-Options: DENY``, ``X-Content-Type-Options: nosniff``, a strict referrer policy,
  and HSTS (one year) in production only (``SOVA_ENV=production``), where plain-HTTP requests
  are also redirected to HTTPS (``/healthz`` excepted, for load balancers).
- Session cookie flags: HttpOnly, SameSite=Lax, Secure in production (``webapp.config``;
  Talisman is told the same so it does not override them).
- A login rate limit (the shared Flask-Limiter ``webapp.extensions.limiter``, initialised in
  ``register_extensions``): ``SOVA_LOGIN_RATE_LIMIT`` per client address (default
  ``"10 per minute"``) on ``POST /login``, counted in Redis when ``SOVA_REDIS_URL`` is set
  and in process memory otherwise. The per-account lock-out lives in
  :func:`webapp.accounts.operations.authenticate`.
- Database outages: an ``OperationalError``/``InterfaceError`` (or any ``DBAPIError`` whose
  connection was invalidated) becomes ``503`` with ``Retry-After: 5`` — a plain retry page
  for browsers, ``{"error": {"code": 503, "message": …}}`` for ``/api/`` — after the session
  is rolled back, so nothing is half-written and the next request reconnects by itself.
- ``GET /healthz`` (public): ``{"status": "ok", "database": "ok"}`` or 503 with
  ``"database": "unavailable"``.
"""

from __future__ import annotations

import functools
import logging
import time

from flask import Flask, Response, abort, current_app, jsonify, render_template_string, request
from flask_talisman import Talisman
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from webapp.core.access import access
from webapp.extensions import db, limiter

log = logging.getLogger(__name__)

#: The Content-Security-Policy of every response: scripts and styles only from our own
#: files; no inline script, no inline style attribute.
CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": ["'self'", "data:"],
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}

HSTS_MAX_AGE = 31_536_000  # seconds (one year)
FRAME_OPTIONS = "DENY"
REFERRER_POLICY = "strict-origin-when-cross-origin"
#: Talisman's default Permissions-Policy, named here so that :func:`answer_headers` and
#: Talisman send the same one
PERMISSIONS_POLICY = {"browsing-topics": "()"}
RETRY_AFTER = 5  # seconds, in the Retry-After header of a 503
MAX_ID = 2**31 - 1  # the largest primary key an Integer column holds

DB_UNAVAILABLE = "База данных временно недоступна. Повторите попытку через несколько секунд."

# Deliberately standalone (no base.html): base.html reads current_user, which queries the
# database that has just failed.
_RETRY_PAGE = """<!doctype html>
<html lang="ru"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Сервис временно недоступен — Сова</title>
<link rel="stylesheet" href="{{ url_for('static', filename='sova.css') }}"></head>
<body><main><h1>Сервис временно недоступен (503)</h1>
<p>{{ message }}</p><p><a href="{{ request.full_path }}">Повторить</a> ·
<a href="{{ url_for('submissions.index') }}">На главную</a></p></main></body></html>"""


def login_rate_limit() -> str:
    """The limit string of ``POST /login`` (Flask-Limiter syntax), from the app config."""
    return current_app.config.get("SOVA_LOGIN_RATE_LIMIT", "10 per minute")


def retry_after() -> str | None:
    """Seconds until the limit this request broke lets it through again, as the
    ``Retry-After`` of its 429 (RFC 9110 §10.2.3): a string of an integer ≥ 1, or None
    outside a rate-limited request. Flask-Limiter writes its headers only when
    ``RATELIMIT_HEADERS_ENABLED`` (off: webapp.config), so the 429 handler asks it here;
    the window is read from the limiter's storage once, for this answer only."""
    breached = limiter.current_limit
    if breached is None:
        return None
    return str(max(1, breached.reset_at - int(time.time())))


@functools.cache
def answer_headers(secure: bool, production: bool) -> tuple[tuple[str, str], ...]:
    """The security headers Talisman (configured by :func:`init_security`) puts on the
    answer of a view without options of its own, as ``(name, value)`` pairs: for a WSGI
    path that answers outside Flask (:mod:`webapp.sms_gateway`). ``secure``: the request
    came over HTTPS (or a proxy said so); HSTS only then, and only in ``production``.
    ``tests/webapp/votes/test_sms_gateway_path.py`` asserts them equal to Talisman's."""
    csp = "; ".join(
        f"{section} {value if isinstance(value, str) else ' '.join(value)}"
        for section, value in CSP.items()
    )
    headers = [
        ("Permissions-Policy", ", ".join(f"{k}={v}" for k, v in PERMISSIONS_POLICY.items())),
        ("X-Frame-Options", FRAME_OPTIONS),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", csp),
    ]
    if production and secure:
        headers.append(("Strict-Transport-Security", f"max-age={HSTS_MAX_AGE}; includeSubDomains"))
    headers.append(("Referrer-Policy", REFERRER_POLICY))
    return tuple(headers)


def init_security(app: Flask) -> None:
    """Install headers, cookie flags, the limiter, the 503 handler and ``/healthz`` on ``app``.

    Reads ``SOVA_ENV``, ``SESSION_COOKIE_*`` and ``SOVA_LOGIN_RATE_LIMIT``. Must run after
    ``limiter.init_app(app)`` (the limiter itself is configured by ``RATELIMIT_*``).
    """
    production = app.config.get("SOVA_ENV") == "production"
    Talisman(
        app,
        force_https=production,
        strict_transport_security=production,
        strict_transport_security_max_age=HSTS_MAX_AGE,
        strict_transport_security_include_subdomains=True,
        content_security_policy=CSP,
        permissions_policy=PERMISSIONS_POLICY,
        frame_options=FRAME_OPTIONS,
        referrer_policy=REFERRER_POLICY,
        session_cookie_secure=bool(app.config.get("SESSION_COOKIE_SECURE", production)),
        session_cookie_http_only=True,
        session_cookie_samesite=app.config.get("SESSION_COOKIE_SAMESITE", "Lax"),
        x_content_type_options=True,
    )

    app.config.setdefault("SOVA_LOGIN_RATE_LIMIT", "10 per minute")

    _register_db_errors(app)

    @app.url_value_preprocessor
    def ids_in_range(_endpoint, values):
        """An ``<int:…>`` URL part beyond a database integer cannot name a row, nor can a
        text part with a NUL (``%00``, which PostgreSQL refuses in a query): 404, before the
        database sees it (SQLite overflows past 2**63-1)."""
        if values and any(
            (isinstance(v, int) and not 0 <= v <= MAX_ID) or (isinstance(v, str) and "\x00" in v)
            for v in values.values()
        ):
            abort(404)

    @access("public")
    def healthz():
        """Liveness and database reachability: 200 ``{"status": "ok", "database": "ok"}``
        or 503 ``{"status": "degraded", "database": "unavailable"}``."""
        try:
            db.session.execute(text("SELECT 1"))
            return jsonify(status="ok", database="ok")
        except DBAPIError:
            db.session.rollback()
            return jsonify(status="degraded", database="unavailable"), 503

    healthz.talisman_view_options = {"force_https": False}
    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])


_SQLITE_OUTAGE = ("database is locked", "unable to open", "disk i/o error", "readonly database")


def is_connection_error(exc: BaseException) -> bool:
    """True for a database error that means "the database cannot serve us right now" (a
    lost or refused connection, a server shutting down, SQLite locked or unreadable); False
    for errors in the statement or the data, which stay 500s (bugs to fix)."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated or isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    if type(exc.orig).__module__.startswith("sqlite3"):
        return any(text_ in str(exc.orig).lower() for text_ in _SQLITE_OUTAGE)
    return True


def db_unavailable_response(exc: BaseException):
    """The 503 answer for a database outage (JSON under ``/api/``, a retry page otherwise)."""
    log.warning(
        "database unavailable on %s %s: %s",
        request.method,
        request.path,
        str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
    )
    try:
        db.session.rollback()
    except Exception:  # noqa: BLE001 — the connection is gone; the pool discards it
        log.debug("rollback after a database outage failed", exc_info=True)
    body: Response | str
    form_page = current_app.extensions.get("sova_outage_forms", {}).get(request.endpoint)
    if request.path.startswith("/api/"):
        body = jsonify({"error": {"code": 503, "message": DB_UNAVAILABLE}})
    elif form_page is not None and request.method == "POST":
        # a form whose text must not be lost (the viewer's question): the form again, with
        # what was typed and the message; registered by its blueprint
        body = form_page()
    else:
        body = render_template_string(_RETRY_PAGE, message=DB_UNAVAILABLE)
    return body, 503, {"Retry-After": str(RETRY_AFTER)}


def _register_db_errors(app: Flask) -> None:
    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError):
        if not is_connection_error(exc):
            raise exc  # a real bug: Flask turns it into a 500
        return db_unavailable_response(exc)
