"""Security controls of webapp.security and the login lock-out (``docs/security.md``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from webapp.accounts.models import LoginLock, User
from webapp.accounts.operations import LOCKOUT_THRESHOLD
from webapp.core.models import utcnow
from webapp.extensions import db

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def _user(email: str) -> User:
    db.session.expire_all()
    return db.session.scalar(db.select(User).filter_by(email=email))


def _lock(email: str, source: str = "addr:127.0.0.1") -> LoginLock | None:
    """The lock-out row of the account from ``source`` (the test client's address)."""
    db.session.expire_all()
    return db.session.scalar(
        db.select(LoginLock).join(User).filter(User.email == email, LoginLock.source == source)
    )


@pytest.mark.parametrize(
    "path", ["/", "/login", "/healthz", "/api/v1/openapi.json", "/no-such-page"]
)
def test_security_headers_exact_on_every_kind_of_response(client, path):
    resp = client.get(path)
    assert resp.headers["Content-Security-Policy"] == CSP
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["X-Frame-Options"] == "DENY"
    assert resp.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert "Strict-Transport-Security" not in resp.headers  # development: no HSTS


def test_csp_has_no_unsafe_inline_for_scripts(client):
    policy = dict(
        part.strip().split(" ", 1)
        for part in client.get("/").headers["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert "unsafe" not in policy["script-src"] and "unsafe" not in policy["default-src"]


def test_production_sends_hsts_and_redirects_plain_http(make_app):
    from cryptography.fernet import Fernet

    app = make_app(
        SOVA_ENV="production",
        SOVA_SECRET_KEY="k" * 64,
        SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
    )
    client = app.test_client()
    plain = client.get("/login")
    assert plain.status_code == 302
    assert plain.headers["Location"] == "https://localhost/login"
    secure = client.get("/login", base_url="https://localhost")
    assert secure.status_code == 200
    assert secure.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    # the load balancer's health check is not redirected
    assert client.get("/healthz").status_code == 200
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["REMEMBER_COOKIE_SECURE"] is True


def test_session_cookie_flags(login, app):
    client = login("editor")
    cookie = client.get_cookie("session")
    assert cookie is not None
    assert cookie.http_only is True
    assert cookie.same_site == "Lax"
    assert app.config["SESSION_COOKIE_SECURE"] is False  # development over http only


def test_healthz_is_public_json(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.get_json() == {"status": "ok", "database": "ok"}


def test_login_lockout_after_exactly_five_failures(client, staff, app):
    assert LOCKOUT_THRESHOLD == 5
    staff("editor")
    email = "editor@test.local"
    for attempt in range(1, 5):
        resp = client.post("/login", data={"email": email, "password": "wrong"})
        assert resp.status_code == 401, attempt
        assert _lock(email).failures == attempt
        assert _lock(email).locked_until is None
    resp = client.post("/login", data={"email": email, "password": "wrong"})  # 5th
    assert resp.status_code == 401
    row = _lock(email)
    assert row.failures == 5  # kept while locked: a parallel burst stays counted
    lock = row.locked_until - utcnow()
    assert timedelta(minutes=14, seconds=50) < lock <= timedelta(minutes=15)
    # now even the right password is refused
    resp = client.post("/login", data={"email": email, "password": "editor-pw"})
    assert resp.status_code == 429
    assert "Вход временно заблокирован" in resp.get_data(as_text=True)
    assert client.get("/editor/queue").status_code == 302  # not logged in


def test_lock_expires_and_success_resets_count(client, staff):
    staff("host")
    email = "host@test.local"
    for _ in range(3):
        client.post("/login", data={"email": email, "password": "wrong"})
    assert _lock(email).failures == 3
    assert client.post("/login", data={"email": email, "password": "host-pw"}).status_code == 302
    assert _lock(email) is None  # nothing counted any more
    # an expired lock no longer blocks
    client.post("/logout")
    client.delete_cookie("sova_device")  # counted by the address again, as a new browser
    for _ in range(5):
        client.post("/login", data={"email": email, "password": "wrong"})
    assert client.post("/login", data={"email": email, "password": "host-pw"}).status_code == 429
    db.session.execute(
        sa.update(LoginLock)
        .where(LoginLock.source == "addr:127.0.0.1")
        .values(locked_until=utcnow() - timedelta(seconds=1))
    )
    db.session.commit()
    assert client.post("/login", data={"email": email, "password": "host-pw"}).status_code == 302


def test_an_attacker_locks_out_their_own_address_and_browser_not_the_host(app, staff):
    """Anyone who knows the host's e-mail could lock the host out for 15 minutes before a
    live game (five wrong passwords locked the account). Now the attacker's address is
    locked, and a forged device cookie does not help them; the host signs in from another
    address, and from their own browser (it signed in before) even behind the attacker's
    address (one office, one NAT)."""
    staff("host")
    email, right = "host@test.local", {"email": "host@test.local", "password": "host-pw"}
    attacker, office, home = "203.0.113.9", "198.51.100.7", "192.0.2.44"

    def post(client, address, data):
        return client.post("/login", data=data, environ_base={"REMOTE_ADDR": address})

    own = app.test_client()  # the host's browser signs in once, days before
    assert post(own, office, right).status_code == 302
    assert own.get_cookie("sova_device").http_only is True
    own.post("/logout")

    intruder = app.test_client()
    for _ in range(5):
        assert post(intruder, attacker, {"email": email, "password": "guess"}).status_code == 401
    assert post(intruder, attacker, right).status_code == 429  # their address: locked
    intruder.set_cookie("sova_device", "forged.value")
    assert post(intruder, attacker, right).status_code == 429  # a forged device: the address
    assert _lock(email, f"addr:{attacker}").locked_until is not None

    assert post(app.test_client(), home, right).status_code == 302  # another address
    assert post(own, attacker, right).status_code == 302  # the host's browser, same address
    # the host's browser keeps its own count: five failures lock that browser only
    own.post("/logout")
    for _ in range(5):
        assert post(own, office, {"email": email, "password": "typo"}).status_code == 401
    assert post(own, office, right).status_code == 429
    assert post(app.test_client(), office, right).status_code == 302  # the office's address


def test_unknown_email_records_nothing(client, staff):
    staff("editor")
    resp = client.post("/login", data={"email": "nobody@test.local", "password": "x"})
    assert resp.status_code == 401
    assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 1


def test_login_rate_limit_answers_429_per_address(make_app):
    app = make_app(
        WTF_CSRF_ENABLED=False, RATELIMIT_ENABLED=True, SOVA_LOGIN_RATE_LIMIT="3 per minute"
    )
    client = app.test_client()
    codes = [
        client.post("/login", data={"email": f"u{i}@test.local", "password": "x"}).status_code
        for i in range(5)
    ]
    assert codes == [401, 401, 401, 429, 429]
    # GET of the form is not limited
    assert client.get("/login").status_code == 200
    # another address is counted separately
    other = client.post(
        "/login",
        data={"email": "u@test.local", "password": "x"},
        environ_base={"REMOTE_ADDR": "10.0.0.7"},
    )
    assert other.status_code == 401


def test_default_login_rate_limit_is_ten_per_minute(app):
    assert app.config["SOVA_LOGIN_RATE_LIMIT"] == "10 per minute"


@pytest.mark.shipped_password_hasher
def test_passwords_hashed_with_argon2id(staff):
    staff("editor")
    user = _user("editor@test.local")
    assert user.password_hash.startswith("$argon2id$")
    assert "m=65536" in user.password_hash  # 64 MiB: memory-hard


def test_database_outage_gives_503_retry_page_and_json(app, client, staff):
    """A connection-level database error anywhere in a request → 503 (the real outage is in
    tests/integration/test_faults.py)."""
    from sqlalchemy.exc import OperationalError

    staff("editor")

    @app.route("/__boom")
    def boom():
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    boom.sova_access = "public"
    app.add_url_rule("/api/v1/__boom", "api_boom", boom)
    page = client.get("/__boom")
    assert page.status_code == 503
    assert page.headers["Retry-After"] == "5"
    assert "Сервис временно недоступен (503)" in page.get_data(as_text=True)
    api = client.get("/api/v1/__boom")
    assert api.status_code == 503
    assert api.get_json() == {
        "error": {
            "code": 503,
            "message": "База данных временно недоступна. Повторите попытку через несколько секунд.",
        }
    }


def test_programming_errors_are_not_hidden_as_503(app, client):
    from sqlalchemy.exc import IntegrityError

    @app.route("/__dup")
    def dup():
        raise IntegrityError("INSERT", {}, Exception("duplicate"))

    app.config["PROPAGATE_EXCEPTIONS"] = False
    assert client.get("/__dup").status_code == 500


def test_login_rate_limit_counts_in_redis_when_configured(make_app, redis_url):
    import redis

    app = make_app(
        WTF_CSRF_ENABLED=False,
        RATELIMIT_ENABLED=True,
        SOVA_REDIS_URL=redis_url,
        SOVA_LOGIN_RATE_LIMIT="2 per minute",
    )
    assert app.config["RATELIMIT_STORAGE_URI"] == redis_url
    client = app.test_client()
    ip = {"REMOTE_ADDR": "10.9.8.7"}
    codes = [
        client.post(
            "/login", data={"email": "x@test.local", "password": "x"}, environ_base=ip
        ).status_code
        for _ in range(3)
    ]
    assert codes == [401, 401, 429]
    keys = [k.decode() for k in redis.Redis.from_url(redis_url).keys("*10.9.8.7*")]
    assert len(keys) == 1 and "accounts.login" in keys[0]


def _dead_redis_app(make_app, **extra):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return make_app(
        WTF_CSRF_ENABLED=False,
        RATELIMIT_ENABLED=True,
        PROPAGATE_EXCEPTIONS=False,
        SOVA_REDIS_URL=f"redis://127.0.0.1:{port}/0",
        **extra,
    )


def test_redis_outage_does_not_turn_rate_limited_pages_into_500(make_app):
    """Kills: the rate limiter's Redis (nothing listens on its port). Viewers and staff
    must still get their pages (the limiter falls back to memory), never a 500."""
    client = _dead_redis_app(make_app).test_client()
    assert client.post("/login", data={"email": "a@test.local", "password": "x"}).status_code == 401
    assert client.post("/submit", data={}).status_code < 500


def test_with_fallback_settings_a_redis_outage_is_harmless(make_app):
    """The fix the test above waits for, shown to work."""
    client = _dead_redis_app(
        make_app, RATELIMIT_SWALLOW_ERRORS=True, RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True
    ).test_client()
    assert client.post("/login", data={"email": "a@test.local", "password": "x"}).status_code == 401
    assert client.post("/submit", data={}).status_code < 500
