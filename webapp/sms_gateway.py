"""The SMS gateway's callback on a short request path (:class:`GatewayPath`): a WSGI layer
in front of Flask that answers the broadcast burst's ordinary message — a correctly signed,
well-formed ``POST /api/v1/votes/sms`` — with the same operation, the same 200 answer and
the same headers as the Flask view, without the request machinery a machine caller never
uses (session, CSRF, login, language, the per-request Talisman, flask-smorest).

Why it exists: every callback went through the same Flask path as ``/healthz`` and then did
its own work on top (the HMAC, the body, the insert), so it could only be slower than the
probe it is measured against (2009 §3.1 at broadcast burst, docs/performance.md).

What it answers itself, and what it hands to Flask: it answers only when all of these hold,
and only with 200:

- ``POST`` to exactly the view's path (``/api/v1/votes/sms``), no query string, no
  ``Authorization`` header (a presented credential is judged by the API's token check);
- the short path is on (``SOVA_SMS_SHORT_PATH``, default on) and the database is PostgreSQL
  (where :func:`~webapp.votes.operations.receive_sms` commits each statement itself; on
  SQLite the request edge commits it);
- a plain-HTTP request is not one Talisman would redirect to HTTPS (production);
- ``Content-Type: application/json`` and a ``Content-Length`` of 1 to
  :data:`~webapp.api.votes.MAX_SMS_BODY` bytes;
- a secret is configured and the signature is right
  (:func:`~webapp.votes.operations.signature_ok`, checked on the raw body before anything
  parses it);
- the body passes the API's JSON checks (:func:`~webapp.api.body.json_depth`,
  :func:`~webapp.api.body.unfit_fields`) and loads with the view's schema
  (:data:`~webapp.api.votes.SMS_IN`);
- :func:`~webapp.votes.operations.receive_sms` returns an answer.

Anything else — a refused signature (401/429, counted by the limiter), a body too large
(413), no secret (503), a 422, a database outage, any exception — is handed to the Flask
app with the body as read, and Flask answers it as it always did. Handing over after
``receive_sms`` raised is safe because every statement it ran is committed on its own and
idempotent: the view runs it again and answers what is stored (a resent message).

The answer: ``{"result": …}`` serialised as Flask's JSON provider does, ``X-Request-ID``
(the caller's when usable, else a new one; on the log records meanwhile), the security
headers of :func:`webapp.security.answer_headers`, and the request counted in
``sova_http_requests`` / ``sova_http_request_duration_seconds`` under the view's endpoint.
``tests/webapp/votes/test_sms_gateway_path.py`` asserts status, body and headers equal to
the Flask path's on PostgreSQL.
"""

from __future__ import annotations

import io
import json
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, cast

from flask import Flask, Response
from marshmallow import ValidationError

from webapp.api.body import MAX_JSON_DEPTH, json_depth, unfit_fields
from webapp.api.votes import MAX_SMS_BODY, SIGNATURE_HEADER, SMS_IN
from webapp.observability import (
    HTTP_REQUESTS,
    HTTP_SECONDS,
    REQUEST_ID,
    REQUEST_ID_HEADER,
    clean_request_id,
)
from webapp.security import answer_headers
from webapp.votes import operations as ops

#: The callback's endpoint: its URL rule's, and the name Flask counts it under in
#: ``sova_http_requests``
ENDPOINT = "api.vote_sms"

_SIGNATURE_KEY = "HTTP_" + SIGNATURE_HEADER.upper().replace("-", "_")
_REQUEST_ID_KEY = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")

StartResponse = Callable[..., Any]


class GatewayPath:
    """WSGI middleware: ``GatewayPath(wsgi_app, flask_app)``; answers the callbacks the
    module doc lists and passes every other request to ``wsgi_app`` untouched (a callback
    it read the body of is passed with that body)."""

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]], flask_app: Flask):
        self.wsgi_app = wsgi_app
        self.flask_app = flask_app
        self.path = next(r.rule for r in flask_app.url_map.iter_rules() if r.endpoint == ENDPOINT)
        self._postgresql: bool | None = None

    def __call__(self, environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        if (
            environ.get("PATH_INFO") != self.path
            or environ.get("REQUEST_METHOD") != "POST"
            or not self._eligible(environ)
        ):
            return self.wsgi_app(environ, start_response)
        started = time.perf_counter()
        length = int(environ["CONTENT_LENGTH"])
        body = environ["wsgi.input"].read(length)
        answer = self._answer(environ, body) if len(body) == length else None
        if answer is None:
            environ["wsgi.input"] = io.BytesIO(body)
            return self.wsgi_app(environ, start_response)
        payload, rid = answer
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(payload))),
            *answer_headers(self._secure(environ), self._production()),
            # what the Flask path sends, whose hooks read the (cookie) session
            ("Vary", "Cookie"),
            (REQUEST_ID_HEADER, rid),
        ]
        start_response("200 OK", headers)
        HTTP_REQUESTS.labels(ENDPOINT, "POST", "200").inc()
        HTTP_SECONDS.labels(ENDPOINT).observe(time.perf_counter() - started)
        return [payload]

    def _production(self) -> bool:
        return self.flask_app.config.get("SOVA_ENV") == "production"

    @staticmethod
    def _secure(environ: dict) -> bool:
        # Talisman's reading: the scheme, or a proxy's X-Forwarded-Proto (which
        # webapp.core.proxies has removed already unless the proxy is trusted)
        return (
            environ.get("wsgi.url_scheme") == "https"
            or environ.get("HTTP_X_FORWARDED_PROTO") == "https"
        )

    def _eligible(self, environ: dict) -> bool:
        """Whether the request may take the short path before its body is read."""
        config = self.flask_app.config
        if not config.get("SOVA_SMS_SHORT_PATH", True) or not config.get("SOVA_SMS_SECRET"):
            return False
        if environ.get("QUERY_STRING") or "HTTP_AUTHORIZATION" in environ:
            return False
        if self._production() and not self.flask_app.debug and not self._secure(environ):
            return False  # Talisman redirects it to HTTPS
        mimetype = environ.get("CONTENT_TYPE", "").split(";", 1)[0].strip().lower()
        if mimetype != "application/json":
            return False
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return False
        if not 0 < length <= MAX_SMS_BODY:
            return False
        if self._postgresql is None:
            with self.flask_app.app_context():
                from webapp.extensions import db

                self._postgresql = db.engine.dialect.name == "postgresql"
        return self._postgresql

    def _answer(self, environ: dict, body: bytes) -> tuple[bytes, str] | None:
        """``(JSON body, request id)`` of the 200 answer, or None to hand the request to
        Flask."""
        rid = clean_request_id(environ.get(_REQUEST_ID_KEY)) or uuid.uuid4().hex
        token = REQUEST_ID.set(rid)
        try:
            with self.flask_app.app_context():
                if not ops.signature_ok(body, environ.get(_SIGNATURE_KEY)):
                    return None
                try:
                    data = json.loads(body)
                except ValueError:
                    return None
                if not isinstance(data, dict) or json_depth(data) > MAX_JSON_DEPTH:
                    return None
                if unfit_fields(data):
                    return None
                try:
                    sms = SMS_IN.load(data)
                except ValidationError:
                    return None
                try:
                    result = ops.receive_sms(
                        ops.Sms(sms["message_id"], sms["msisdn"], sms["text"], sms["received_at"])
                    )
                except Exception:  # noqa: BLE001 — Flask answers it (422, 503, 500), see above
                    return None
                # the JSON provider's own answer: the same bytes as the view's
                response = cast(Response, self.flask_app.json.response({"result": result}))
                return response.get_data(), rid
        except ops.SignatureUnavailable:
            return None
        finally:
            REQUEST_ID.reset(token)
