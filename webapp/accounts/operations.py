"""Writes for staff accounts. Operations flush; the caller (request, CLI) commits."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import current_app
from itsdangerous import BadData, URLSafeTimedSerializer
from sqlalchemy.orm.attributes import set_committed_value

from webapp.accounts.models import (
    REVOKE_REASONS,
    ROLES,
    ApiToken,
    LoginLock,
    User,
    token_digest,
)
from webapp.core.chars import code_point, forbidden, forbidden_in_password
from webapp.core.models import utcnow
from webapp.extensions import db

#: The one argon2id hasher (memory-hard) of staff passwords; the tests swap in the
#: cheapest parameters (tests/fixtures/speedups.py).
PASSWORD_HASHER = PasswordHasher()


#: Consecutive failed password checks that lock an account's source (OWASP ASVS 2.2.1).
LOCKOUT_THRESHOLD = 5
#: How long a lock lasts.
LOCKOUT_DURATION = timedelta(minutes=15)


class AccountError(ValueError):
    """Invalid account data (unknown role, duplicate e-mail)."""


class AccountLocked(AccountError):
    """Login refused: the account is locked until ``locked_until`` (aware UTC) after
    :data:`LOCKOUT_THRESHOLD` failed password checks in a row."""

    def __init__(self, locked_until: datetime):
        super().__init__(f"account locked until {locked_until.isoformat()}")
        self.locked_until = locked_until


def create_user(
    email: str, role: str, password: str | None = None, name: str = "", with_token: bool = False
) -> tuple[User, str | None]:
    """Create a staff user. Returns (user, token or None); the token is shown once.

    Raises AccountError for an unknown role, an e-mail already used, or a name, address
    or password holding a character no text may hold (:mod:`webapp.core.chars`).
    """
    email = email.strip().lower()
    if role not in ROLES:
        raise AccountError(f"unknown role {role!r}; one of: {', '.join(ROLES)}")
    if not email or "@" not in email:
        raise AccountError(f"not an e-mail address: {email!r}")
    if db.session.scalar(db.select(User).filter_by(email=email)):
        raise AccountError(f"a user with e-mail {email} exists already")
    if (c := forbidden(name) or forbidden(email)) is not None:
        raise AccountError(f"недопустимый символ {code_point(c)} в имени или адресе")
    user = User(email=email, role=role, name=name or email.split("@")[0])
    if password:
        _check_password_chars(password)
        user.password_hash = PASSWORD_HASHER.hash(password)
    db.session.add(user)
    db.session.flush()
    return user, issue_token(user) if with_token else None


def _check_password_chars(password: str) -> None:
    """Refuse (:class:`AccountError`) a password holding a control character (BEL, TAB, LF,
    …) or another character text may not hold (:func:`webapp.core.chars.forbidden_in_password`):
    no keyboard types one, so it came from a paste or a script and locks its owner out."""
    c = forbidden_in_password(password)
    if c is not None:
        raise AccountError(f"пароль содержит недопустимый символ {code_point(c)}")


def issue_token(user: User) -> str:
    """A new API bearer token for ``user`` (32 random bytes, URL-safe base64; only its
    SHA-256 is stored, in a new :class:`ApiToken` row). Returned once; flushes."""
    token = secrets.token_urlsafe(32)
    db.session.add(ApiToken(user_id=user.id, token_hash=token_digest(token)))
    db.session.flush()
    return token


def revoke_tokens(user: User, reason: str, by: User | None = None) -> int:
    """Revoke every working API token of ``user``: ``revoked_at`` now, ``revoked_by_id``
    ``by`` (None: the user or a command), ``revoked_reason`` one of
    :data:`webapp.accounts.models.REVOKE_REASONS`. Returns how many were revoked;
    flushes. A request under way with such a token has been let in already; the next one
    is refused (401)."""
    if reason not in REVOKE_REASONS:
        raise AccountError(f"unknown revocation reason {reason!r}")
    done = db.session.execute(
        db.update(ApiToken)
        .where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow(), revoked_by_id=by.id if by else None, revoked_reason=reason)
    )
    return done.rowcount  # type: ignore[attr-defined]  # a CursorResult at run time


def revoke_token(token: ApiToken, by: User) -> bool:
    """Revoke one token (an admin's «Отозвать»): False when it was revoked already (the
    first revocation's audit stays as it was); flushes."""
    done = db.session.execute(
        db.update(ApiToken)
        .where(ApiToken.id == token.id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow(), revoked_by_id=by.id, revoked_reason="admin")
    )
    return done.rowcount == 1  # type: ignore[attr-defined]  # a CursorResult at run time


def sign_out_everywhere(user: User, by: User | None = None) -> int:
    """An admin's «Выйти везде»: end every login session of ``user``
    (:func:`end_sessions`) and revoke every API token (:func:`revoke_tokens`, reason
    ``sign_out``). Returns the number of tokens revoked; flushes."""
    end_sessions(user)
    return revoke_tokens(user, "sign_out", by)


def deactivate(user: User, by: User | None = None) -> int:
    """Switch a staff account off: it cannot log in, its sessions end and its API tokens
    are revoked (reason ``deactivated``; switching it on again later brings none of them
    back). Returns the number of tokens revoked; flushes."""
    user.active = False
    db.session.flush()
    end_sessions(user)
    return revoke_tokens(user, "deactivated", by)


def check_password(user: User | None, password: str) -> bool:
    """True when ``password`` matches the user's argon2 hash (constant-time verify)."""
    if user is None or not user.password_hash:
        PASSWORD_HASHER.hash(password or "x")  # same cost whether or not the user exists
        return False
    try:
        return PASSWORD_HASHER.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def _redis():
    """A Redis client for the login attempt counter when ``SOVA_REDIS_URL`` is set (one
    per process), else None (the database counts)."""
    url = current_app.config.get("SOVA_REDIS_URL")
    if not url:
        return None
    clients = current_app.extensions.setdefault("sova_login_redis", {})
    if url not in clients:
        import redis

        clients[url] = redis.Redis.from_url(url)
    return clients[url]


def _attempt_key(user: User, source: str) -> str:
    return f"sova:login-attempts:{user.id}:{source}"


#: The longest ``LoginLock.source`` (an IPv6 address fits with room to spare).
SOURCE_MAX = 80


def login_source(address: str | None, device: str | None = None) -> str:
    """Where a login attempt comes from, as its lock-out is keyed (:class:`LoginLock`):
    ``"device:<digest>"`` for a browser that carries this account's device cookie (``device``
    is the cookie's nonce, already checked against the account), else ``"addr:<client
    address>"`` (``"addr:?"`` when unknown)."""
    if device:
        return "device:" + hashlib.sha256(device.encode()).hexdigest()[:40]
    return f"addr:{address or '?'}"[:SOURCE_MAX]


def _upsert():
    """The dialect's ``INSERT`` with ``ON CONFLICT`` (PostgreSQL, SQLite)."""
    if db.session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(LoginLock)


def count_attempt(user: User, source: str, window: timedelta) -> int:
    """Count one login attempt of ``user`` from ``source`` BEFORE its password is checked,
    atomically, and return its number since the source's last success or expired lock:
    Redis ``INCR`` (the key lives ``window``) when ``SOVA_REDIS_URL`` is set, else
    ``INSERT … ON CONFLICT DO UPDATE SET failures = failures + 1 RETURNING failures``
    (PostgreSQL and SQLite). Concurrent attempts get distinct numbers, so no more than the
    threshold are ever checked."""
    client = _redis()
    if client is not None:
        pipe = client.pipeline()
        pipe.incr(_attempt_key(user, source))
        pipe.expire(_attempt_key(user, source), int(window.total_seconds()) or 1)
        n = int(pipe.execute()[0])
        # shown to admins and tests, the highest number wins; Redis decides
        stmt = _upsert().values(user_id=user.id, source=source, failures=n)
        db.session.execute(
            stmt.on_conflict_do_update(
                index_elements=["user_id", "source"],
                set_={"failures": db.case((LoginLock.failures < n, n), else_=LoginLock.failures)},
            ),
            execution_options={"synchronize_session": False},
        )
        return n
    stmt = _upsert().values(user_id=user.id, source=source, failures=1)
    return db.session.execute(
        stmt.on_conflict_do_update(
            index_elements=["user_id", "source"],
            set_={"failures": LoginLock.failures + 1},
        ).returning(LoginLock.failures),
        execution_options={"synchronize_session": False},
    ).scalar_one()


def reset_attempts(user: User, source: str | None = None) -> None:
    """Forget the attempt count of ``user`` from ``source`` (a success, an expired lock), or
    from every source (None: an admin's unlock)."""
    client = _redis()
    rows = db.delete(LoginLock).where(LoginLock.user_id == user.id)
    if source is not None:
        rows = rows.where(LoginLock.source == source)
    if client is not None:
        sources = [source] if source is not None else _sources(user)
        for one in sources:
            client.delete(_attempt_key(user, one))
    db.session.execute(rows, execution_options={"synchronize_session": False})


def _sources(user: User) -> list[str]:
    return list(db.session.scalars(db.select(LoginLock.source).filter_by(user_id=user.id)))


def lock_state(user: User, source: str) -> LoginLock | None:
    """The lock-out row of ``user`` from ``source`` as stored now, or None."""
    return db.session.execute(
        db.select(LoginLock)
        .filter_by(user_id=user.id, source=source)
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()


def authenticate(
    email: str,
    password: str,
    *,
    address: str | None = None,
    devices: Mapping[int, str] | None = None,
    threshold: int = LOCKOUT_THRESHOLD,
    duration: timedelta = LOCKOUT_DURATION,
    now: datetime | None = None,
) -> User | None:
    """The active user with this e-mail and password, or None; flushes the lock-out state.

    The lock-out is per account *and source* (:func:`login_source`: the client's
    ``address``, or — when ``devices``, the browser's device cookie as ``{user id: nonce}``,
    names this account — the device that signed in to it before): failures from one source lock that
    source only, so someone who knows a staff e-mail locks out their own address and
    browser, never the account's owner elsewhere or on their own trusted browser (a lock of
    the account was a denial of service before a live game).

    Each attempt (also one while locked) is counted before anything is checked
    (:func:`count_attempt`, atomic): only attempts numbered 1..``threshold`` from a source
    have their password checked; the ``threshold``-th failure, and any attempt numbered
    above it (a parallel burst), set the source's ``locked_until = now + duration``. While
    locked, even the right password from that source is refused with
    :class:`AccountLocked` (the password is still hashed, so timing says nothing). A success
    resets the source's count; so does the first attempt after its lock expired. Unknown
    e-mails cost one hash and record nothing (the per-address rate limit in
    :mod:`webapp.security` covers them). The caller commits (also on failure, so that the
    count is kept).
    """
    now = now or utcnow()
    user = db.session.scalar(db.select(User).filter_by(email=(email or "").strip().lower()))
    if user is None:
        check_password(None, password)
        return None
    source = login_source(address, (devices or {}).get(user.id))
    state = lock_state(user, source)
    seen_lock = state.locked_until if state is not None else None
    if seen_lock is not None and seen_lock <= now:  # expired: one request resets it
        gone = db.session.execute(
            db.delete(LoginLock).where(
                LoginLock.user_id == user.id,
                LoginLock.source == source,
                LoginLock.locked_until == seen_lock,
            ),
            execution_options={"synchronize_session": False},
        )
        if gone.rowcount == 1:  # type: ignore[attr-defined]  # a CursorResult at run time
            client = _redis()
            if client is not None:
                client.delete(_attempt_key(user, source))
    n = count_attempt(user, source, duration)  # every attempt, also while locked
    if seen_lock is not None and seen_lock > now:
        check_password(None, password)
        raise AccountLocked(seen_lock)
    if n > threshold:  # beyond the limit: not even checked
        check_password(None, password)
        _lock(user, source, now + duration)
        raise AccountLocked(now + duration)
    if user.active and check_password(user, password):
        reset_attempts(user, source)
        return user
    if n == threshold:
        _lock(user, source, now + duration)
    return None


def _lock(user: User, source: str, until: datetime) -> None:
    db.session.execute(
        db.update(LoginLock).filter_by(user_id=user.id, source=source).values(locked_until=until),
        execution_options={"synchronize_session": False},
    )


def end_sessions(user: User) -> None:
    """Invalidate every login session of ``user`` on the server side (logout, a password
    change, an admin's "sign out everywhere"): a copied session cookie carries the old
    ``session_version`` and is refused from now on. Atomic increment; flushes."""
    db.session.execute(
        db.update(User).where(User.id == user.id).values(session_version=User.session_version + 1)
    )
    db.session.refresh(user)


def set_password(user: User, password: str, by: User | None = None) -> int:
    """Set a new password (argon2id), end all of the user's sessions and revoke their API
    tokens (reason ``password``: whoever knew the old password may have made or copied
    one). Returns the number of tokens revoked; flushes. Raises :class:`AccountError` for a
    password holding a control character (:func:`_check_password_chars`)."""
    _check_password_chars(password)
    user.password_hash = PASSWORD_HASHER.hash(password)
    db.session.flush()
    end_sessions(user)
    return revoke_tokens(user, "password", by)


#: How long a staff invitation link works (until the invitee's first password, at most).
INVITATION_DAYS = 7
_INVITATION_SALT = "sova.staff-invitation"


def _invitation_serializer() -> URLSafeTimedSerializer:
    secret = current_app.secret_key
    assert secret  # create_app always sets one (generated into the instance at worst)
    return URLSafeTimedSerializer(secret, salt=_INVITATION_SALT)


def invitation_token(user: User) -> str:
    """A signed one-time invitation for ``user`` (itsdangerous, the app's secret key):
    ``{"u": id, "v": session_version}``. It stops working after :data:`INVITATION_DAYS`,
    and as soon as the account's session version moves on — the invitee's first password,
    a new invitation, «Задать пароль», «Выйти везде» — so a link works once."""
    return _invitation_serializer().dumps({"u": user.id, "v": user.session_version or 0})


def invite_user(email: str, role: str, name: str, by: User) -> tuple[User, str]:
    """The admin's «Новый сотрудник»: a staff account without a password (nobody can log in
    to it yet) and its invitation token (:func:`invitation_token`). Raises
    :class:`AccountError` (in Russian: the page shows it) for an unknown role or a taken
    e-mail (the form refuses what is not an address, ``.local`` ones included: no demo
    account is made this way); flushes."""
    email = (email or "").strip().lower()
    if role not in ROLES:
        raise AccountError("такой роли нет")
    if db.session.scalar(db.select(User).filter_by(email=email)):
        raise AccountError(f"сотрудник с почтой {email} уже есть")
    user, _ = create_user(email, role, name=name.strip())
    return user, invitation_token(user)


def renew_invitation(user: User) -> str:
    """A new invitation link for an account that has no password yet: the older links stop
    working (:func:`end_sessions` moves the version on). Raises :class:`AccountError` for
    an account with a password (use «Задать пароль») or a switched-off one; flushes."""
    if user.password_hash or not user.active:
        raise AccountError("приглашение — только для учётной записи без пароля")
    end_sessions(user)
    return invitation_token(user)


def user_for_invitation(token: str) -> User | None:
    """The account a working invitation ``token`` is for, or None: a bad signature, older
    than :data:`INVITATION_DAYS`, a version that moved on, a password set already, or a
    switched-off account."""
    try:
        data = _invitation_serializer().loads(token, max_age=INVITATION_DAYS * 86400)
    except BadData:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    user = db.session.get(User, data["u"])
    if (
        user is None
        or not user.active
        or user.password_hash
        or (user.session_version or 0) != data.get("v")
    ):
        return None
    return user


def accept_invitation(user: User, password: str) -> None:
    """The invitee's first password (:func:`set_password`: the version moves on, so the
    link is spent). Raises :class:`AccountError` when it is the account's e-mail."""
    if password.strip().lower() == user.email:
        raise AccountError("пароль не может совпадать с адресом почты")
    set_password(user, password)


def user_for_session(session_id: str) -> User | None:
    """The active user of a login session id ``"<id>:<session_version>"``
    (``User.get_id``), or None when the id is malformed, the user inactive, or the
    session's version is not the user's current one (it was ended)."""
    user_id, _, version = (session_id or "").partition(":")
    if not user_id.isdigit() or not version.isdigit():
        return None
    user = db.session.get(User, int(user_id))
    if user is None or not user.active or (user.session_version or 0) != int(version):
        return None
    return user


#: How stale ``ApiToken.last_used_at`` may get before a request writes it again: one
#: write a minute per token, not one per request.
TOUCH_EVERY = timedelta(minutes=1)


def user_by_token(token: str, now: datetime | None = None) -> User | None:
    """The active user whose API token is ``token`` and not revoked, or None. Records the
    use in ``last_used_at`` when the stored one is older than :data:`TOUCH_EVERY`
    (committed with the request, like any of its writes)."""
    if not token:
        return None
    row = db.session.scalar(
        db.select(ApiToken).where(
            ApiToken.token_hash == token_digest(token), ApiToken.revoked_at.is_(None)
        )
    )
    if row is None or not row.user.active:
        return None
    now = now or utcnow()
    if row.last_used_at is None or row.last_used_at <= now - TOUCH_EVERY:
        db.session.execute(
            db.update(ApiToken)
            .where(
                ApiToken.id == row.id,
                (ApiToken.last_used_at.is_(None)) | (ApiToken.last_used_at <= now - TOUCH_EVERY),
            )
            .values(last_used_at=now),
            execution_options={"synchronize_session": False},
        )
        set_committed_value(row, "last_used_at", now)
    return row.user


def change_password(
    user: User,
    current: str,
    new: str,
    *,
    address: str | None = None,
    devices: Mapping[int, str] | None = None,
    threshold: int = LOCKOUT_THRESHOLD,
    duration: timedelta = LOCKOUT_DURATION,
) -> int:
    """``user`` chooses a new password: ``current`` is checked as a login attempt from
    ``address``/``devices`` (counted by the lock-out: :func:`authenticate`, so the form
    cannot be used to guess it), then
    :func:`set_password` — every session ends and every API token is revoked. Returns the
    number of tokens revoked; flushes. Raises :class:`AccountLocked` while locked, and
    :class:`AccountError` for a wrong current password (the attempt is counted: the
    caller keeps it), a new one equal to the current one or to the e-mail."""
    checked = authenticate(
        user.email,
        current,
        address=address,
        devices=devices,
        threshold=threshold,
        duration=duration,
    )
    if checked is None:
        raise AccountError("текущий пароль неверен")
    if new == current:
        raise AccountError("новый пароль совпадает с текущим")
    return reset_password(user, new, by=user)


def reset_password(user: User, new: str, by: User) -> int:
    """``by`` (the user, or the admin for a forgotten password) gives ``user`` the password
    ``new``: :func:`set_password` (sessions end, tokens revoked; returns how many).
    Raises :class:`AccountError` when it is the account's e-mail."""
    if new.strip().lower() == user.email:
        raise AccountError("пароль не может совпадать с адресом почты")
    return set_password(user, new, by=by)
