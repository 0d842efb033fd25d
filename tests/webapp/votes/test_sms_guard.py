"""The SMS callback's guard (docs/security.md): a malformed signature is a 401, never a
500; a body over 4 KiB is refused 413 before it is read; refused signatures are limited
per address (429) while a correctly signed gateway never is."""

from __future__ import annotations

import io

import pytest

from tests.webapp.votes.helpers import SECRET, open_vote, sign, sms_body

SQLITE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
SMS = "/api/v1/votes/sms"


def post(client, body: bytes, signature: str | None, **environ):
    headers = {} if signature is None else {"X-Sova-Signature": signature}
    return client.post(SMS, data=body, content_type="application/json", headers=headers, **environ)


@SQLITE
@pytest.mark.parametrize(
    "signature",
    [
        "é",
        "é" * 64,
        "ÿ" * 64,
        "zz",
        "g" * 64,
        "",
        "   ",
        "0" * 63,
        "0" * 65,
        "sha256=" + "0" * 64,
        "\x7f" * 64,
    ],
)
def test_malformed_signature_is_401(app, client, finished_game, api, signature):
    from webapp.extensions import db
    from webapp.votes.models import VoteMessage

    open_vote(api, finished_game())
    resp = post(client, sms_body("m1", "+79160000001", "1"), signature)
    assert resp.status_code == 401, resp.data
    assert resp.json == {
        "error": {"code": 401, "message": "Неверная или отсутствующая подпись X-Sova-Signature."}
    }
    assert db.session.scalar(db.select(db.func.count()).select_from(VoteMessage)) == 0


@SQLITE
def test_only_a_signed_body_is_parsed_and_checked_like_any_api_body(app, client):
    """The signature is checked on the raw body before it is parsed: an unsigned body, even
    one no JSON parser could take, is a 401; a signed one then gets the API's body checks
    (too deep, broken, not UTF-8, a lone surrogate: 422), and none is a 500."""
    deep = "Слишком глубокая вложенность JSON: больше 32 уровней."
    broken = "Тело запроса — не JSON в UTF-8."
    for body in (b"[" * 1500 + b"]" * 1500, b'{"message_id": "obryv', b'{"q": "\xff"}'):
        assert post(client, body, "0" * 64).status_code == 401
    cases = [
        (b"[" * 1500 + b"]" * 1500, {"_schema": [deep]}),
        (b"[" * 33 + b"]" * 33, {"_schema": [deep]}),
        (b'{"message_id": "obryv', {"_schema": [broken]}),
        (b'{"q": "\xff"}', {"_schema": [broken]}),
        (
            sms_body("m1", "+79160000001", "@").replace(b'"@"', b'"\\ud800"'),
            {"text": ["Недопустимый символ: одиночный суррогат UTF-16 (\\ud800–\\udfff)."]},
        ),
    ]
    for body, errors in cases:
        resp = post(client, body, sign(body))
        assert (resp.status_code, resp.json) == (422, {"errors": errors}), body
    # under another Content-Type, once signed: the API's own 422
    body = sms_body("m1", "+79160000001", "1")
    resp = client.post(
        SMS, data=body, content_type="text/plain", headers={"X-Sova-Signature": sign(body)}
    )
    assert resp.status_code == 422
    assert resp.json == {
        "errors": {
            "_schema": [
                "Тело запроса не прочитано как JSON: укажите заголовок "
                "Content-Type: application/json."
            ]
        }
    }


@SQLITE
def test_a_body_over_4_kib_is_413_before_it_is_read(app, client):
    huge = b"x" * (7 * 1024 * 1024)
    resp = post(client, huge, "0" * 64)
    assert resp.status_code == 413
    # just over the cap, even correctly signed: refused
    body = sms_body("m1", "+79160000001", "1" + " " * 4100)
    assert len(body) > 4096
    assert post(client, body, sign(body)).status_code == 413
    # a chunked body (no Content-Length) is read no further than the cap: refused (4xx)
    # with at most 4 KiB of it read (without the "input terminated" flag a de-chunking
    # server sets, Werkzeug reads no body at all)
    read = []

    class Stream(io.BytesIO):
        def read(self, size=-1):
            chunk = super().read(size)
            read.append(len(chunk))
            return chunk

    stream = Stream(huge)
    resp = client.post(
        SMS,
        input_stream=stream,
        content_type="application/json",
        headers={"X-Sova-Signature": "0" * 64, "Transfer-Encoding": "chunked"},
        environ_base={"wsgi.input_terminated": True},
    )
    assert resp.status_code in (413, 422) and sum(read) <= 4096


@pytest.fixture
def limited_app(make_app):
    app = make_app(
        WTF_CSRF_ENABLED=False,
        SOVA_SMS_SECRET=SECRET,
        RATELIMIT_ENABLED=True,
        SOVA_SMS_REFUSED_LIMIT="20 per minute",
    )
    with app.app_context():
        yield app


def test_forged_calls_are_limited_per_address_signed_ones_never(limited_app):
    client = limited_app.test_client()
    body = sms_body("m1", "+79160000001", "1")
    codes = [post(client, body, sign(body, "forged")).status_code for _ in range(300)]
    assert codes[:20] == [401] * 20 and codes[20:] == [429] * 280
    last = post(client, body, sign(body, "forged"))
    assert last.status_code == 429 and 1 <= int(last.headers["Retry-After"]) <= 60
    assert last.json["error"]["message"] == "Слишком много запросов с неверной подписью."
    # another address is not limited by this one's refusals
    other = post(client, body, "bad", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 401
    # the gateway at the limited address, signing correctly: every message answered
    for i in range(30):
        good = sms_body(f"g{i}", f"+7916000{i:04d}", "1")
        resp = post(client, good, sign(good))
        assert resp.status_code == 200 and resp.json == {"result": "late"}


def test_refusals_in_the_gateways_language(make_app):
    """The 401 and 503 messages are Russian by default, Belarusian or English by
    ``Accept-Language`` (each request in its own app context, as in production)."""
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMS_SECRET=SECRET)
    body = sms_body("m1", "+79160000001", "1")
    expected_401 = {
        None: "Неверная или отсутствующая подпись X-Sova-Signature.",
        "be": "Няправільны подпіс X-Sova-Signature або яго няма.",
        "en": "Bad or missing X-Sova-Signature signature.",
    }
    for lang, message in expected_401.items():
        headers = {"X-Sova-Signature": "0" * 64} | ({"Accept-Language": lang} if lang else {})
        resp = app.test_client().post(
            SMS, data=body, content_type="application/json", headers=headers
        )
        assert (resp.status_code, resp.json) == (401, {"error": {"code": 401, "message": message}})
    off = make_app(WTF_CSRF_ENABLED=False, SOVA_SMS_SECRET="")
    expected_503 = {
        None: "SOVA_SMS_SECRET не задан: приём SMS выключен.",
        "be": "SOVA_SMS_SECRET не зададзены: прыём SMS выключаны.",
        "en": "SOVA_SMS_SECRET is not set: the SMS callback is off.",
    }
    for lang, message in expected_503.items():
        headers = {"X-Sova-Signature": sign(body)} | ({"Accept-Language": lang} if lang else {})
        resp = off.test_client().post(
            SMS, data=body, content_type="application/json", headers=headers
        )
        assert (resp.status_code, resp.json) == (503, {"error": {"code": 503, "message": message}})
