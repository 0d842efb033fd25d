"""The SMS callback's short path (``webapp.sms_gateway``) on PostgreSQL: it answers the
ordinary signed message without Flask's request machinery, with the status, body and
headers the Flask view gives; everything else — a refused signature, a body Flask refuses,
a credential, a query string, SQLite — is answered by Flask as before."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from flask import request_started
from prometheus_client import REGISTRY

from tests.webapp.votes.helpers import SECRET, open_vote, sign, sms_body

PG = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

#: Headers whose values differ from one answer to the next whoever gives them
PER_ANSWER = {"X-Request-ID", "Date"}


@contextmanager
def flask_requests(app):
    """The list of paths Flask dispatched meanwhile (its ``request_started`` signal)."""
    seen: list[str] = []

    def record(_sender, **_extra):
        from flask import request

        seen.append(request.path)

    request_started.connect(record, app)
    try:
        yield seen
    finally:
        request_started.disconnect(record, app)


def post(client, body: bytes, signature: str | None = None, **kwargs):
    headers = {"X-Sova-Signature": signature or sign(body), **kwargs.pop("headers", {})}
    kwargs.setdefault("content_type", "application/json")
    return client.post("/api/v1/votes/sms", data=body, headers=headers, **kwargs)


def answer(resp) -> tuple[int, bytes, dict[str, str]]:
    headers = {k: v for k, v in resp.headers.items() if k not in PER_ANSWER}
    return resp.status_code, resp.get_data(), headers


def assert_same(short, full) -> None:
    status, body, headers = answer(short)
    assert (status, body) == answer(full)[:2]
    assert headers == answer(full)[2]


def answered_both_ways(app, client, body: bytes, **kwargs):
    """``(short, flask)`` answers to ``body`` sent twice (the second is a resent message:
    the same answer), first by the short path, then with it off; asserts which path
    answered each."""
    with flask_requests(app) as seen:
        short = post(client, body, **kwargs)
    assert seen == []
    app.config["SOVA_SMS_SHORT_PATH"] = False
    try:
        with flask_requests(app) as seen:
            full = post(client, body, **kwargs)
        assert seen == ["/api/v1/votes/sms"]
    finally:
        app.config["SOVA_SMS_SHORT_PATH"] = True
    return short, full


@PG
def test_the_short_path_answers_as_the_flask_view(app, api, finished_game):
    open_vote(api, finished_game())
    client = app.test_client()
    for i, (number, text, result) in enumerate(
        [
            ("+79160000001", "1", "counted"),
            ("+79160000002", "Поташёв", "counted"),
            ("+79160000001", "3", "repeat"),
            ("+79160000003", "никто", "invalid"),
        ]
    ):
        short, full = answered_both_ways(app, client, sms_body(f"m{i}", number, text))
        assert short.json == {"result": result}
        assert_same(short, full)
        assert short.headers["Content-Type"] == "application/json"
        assert short.headers["Content-Security-Policy"].startswith("default-src 'self'")
    # a message read by a number the season's country does not know is Flask's 422
    with flask_requests(app) as seen:
        refused = post(client, sms_body("m9", "12", "1"))
    assert refused.status_code == 422 and seen == ["/api/v1/votes/sms"]


@PG
def test_the_short_path_keeps_the_request_id_and_the_metrics(app, api, finished_game):
    open_vote(api, finished_game())
    client = app.test_client()
    labels = {"endpoint": "api.vote_sms", "method": "POST", "status": "200"}
    before = REGISTRY.get_sample_value("sova_http_requests_total", labels) or 0
    with flask_requests(app) as seen:
        resp = post(client, sms_body("r1", "+79160000011", "2"), headers={"X-Request-ID": "gw-42"})
        other = post(client, sms_body("r2", "+79160000012", "2"))
    assert seen == []
    assert resp.json == {"result": "counted"} and resp.headers["X-Request-ID"] == "gw-42"
    assert len(other.headers["X-Request-ID"]) == 32  # a new uuid4 hex
    assert REGISTRY.get_sample_value("sova_http_requests_total", labels) == before + 2


@PG
def test_what_the_short_path_leaves_to_flask(app, api, finished_game):
    from webapp.extensions import db
    from webapp.votes.models import VoteMessage

    open_vote(api, finished_game())
    client = app.test_client()
    body = sms_body("f1", "+79160000021", "1")
    cases = [
        ("a wrong signature", dict(signature=sign(body, "another-secret")), 401),
        ("a malformed signature", dict(signature="zz"), 401),
        ("another content type", dict(content_type="text/plain"), 422),
        ("a query string", dict(query_string={"lang": "en"}), 200),
        ("a credential", dict(headers={"Authorization": "Bearer nonsense"}), 401),
    ]
    for why, kwargs, status in cases:
        with flask_requests(app) as seen:
            resp = post(client, body, **kwargs)
        assert (why, resp.status_code, seen) == (why, status, ["/api/v1/votes/sms"])
    # a signed body Flask refuses after the signature: a lone surrogate, a body too deep
    for raw in (b'{"message_id": "\\ud800", "msisdn": "+79160000022", "text": "1"}', b"[" * 40):
        with flask_requests(app) as seen:
            resp = post(client, raw)
        assert resp.status_code == 422 and seen == ["/api/v1/votes/sms"]
    # only the message with the query string was written, once
    db.session.rollback()
    assert [m.message_id for m in db.session.query(VoteMessage).all()] == ["f1"]


@PG
def test_without_a_secret_flask_answers_503(app, api, finished_game):
    open_vote(api, finished_game())
    app.config["SOVA_SMS_SECRET"] = None
    with flask_requests(app) as seen:
        resp = post(app.test_client(), sms_body("s1", "+79160000031", "1"), signature="00")
    assert resp.status_code == 503 and seen == ["/api/v1/votes/sms"]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_on_sqlite_flask_answers(app, api, finished_game):
    open_vote(api, finished_game())
    with flask_requests(app) as seen:
        resp = post(app.test_client(), sms_body("q1", "+79160000041", "1"))
    assert resp.json == {"result": "counted"} and seen == ["/api/v1/votes/sms"]


def test_production_headers_and_plain_http(make_app, pg_url):
    """In production the short path answers HTTPS only (plain HTTP is Talisman's redirect)
    and sends HSTS as Talisman does."""
    from cryptography.fernet import Fernet

    app = make_app(
        SOVA_ENV="production",
        SOVA_SECRET_KEY="k" * 64,
        SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        SOVA_DATABASE_URL=pg_url,
        SOVA_SMS_SECRET=SECRET,
    )
    client = app.test_client()
    body = sms_body("p1", "+79160000051", "1")
    with flask_requests(app) as seen:
        plain = post(client, body)
    assert plain.status_code == 302 and seen == ["/api/v1/votes/sms"]
    short, full = answered_both_ways(app, client, body, base_url="https://localhost")
    assert short.json == {"result": "late"}  # no vote open
    assert_same(short, full)
    assert short.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    with app.app_context():
        from webapp.extensions import db

        db.engine.dispose()
