"""Writes for staff accounts. Operations flush; the caller (request, CLI) commits."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from webapp.accounts.models import ROLES, User, token_digest
from webapp.core.models import utcnow
from webapp.extensions import db

_hasher = PasswordHasher()  # argon2id, memory-hard


#: Consecutive failed password checks that lock an account (OWASP ASVS 2.2.1).
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


def create_user(email: str, role: str, password: str | None = None, name: str = "",
                with_token: bool = False) -> tuple[User, str | None]:
    """Create a staff user. Returns (user, token or None); the token is shown once.

    Raises AccountError for an unknown role or an e-mail already used.
    """
    email = email.strip().lower()
    if role not in ROLES:
        raise AccountError(f"unknown role {role!r}; one of: {', '.join(ROLES)}")
    if not email or "@" not in email:
        raise AccountError(f"not an e-mail address: {email!r}")
    if db.session.scalar(db.select(User).filter_by(email=email)):
        raise AccountError(f"a user with e-mail {email} exists already")
    user = User(email=email, role=role, name=name or email.split("@")[0])
    if password:
        user.password_hash = _hasher.hash(password)
    token = None
    if with_token:
        token = secrets.token_urlsafe(32)
        user.token_hash = token_digest(token)
    db.session.add(user)
    db.session.flush()
    return user, token


def check_password(user: User | None, password: str) -> bool:
    """True when ``password`` matches the user's argon2 hash (constant-time verify)."""
    if user is None or not user.password_hash:
        _hasher.hash(password or "x")  # same cost whether or not the user exists
        return False
    try:
        return _hasher.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def authenticate(email: str, password: str, *, threshold: int = LOCKOUT_THRESHOLD,
                 duration: timedelta = LOCKOUT_DURATION,
                 now: datetime | None = None) -> User | None:
    """The active user with this e-mail and password, or None; flushes the lock-out state.

    A wrong password adds one to ``user.failed_logins``; the ``threshold``-th failure in a row
    sets ``locked_until = now + duration`` and resets the count. While locked, even the right
    password is refused with :class:`AccountLocked` (the password is still hashed, so timing
    says nothing). A success resets the count. Unknown e-mails cost one hash and record
    nothing (the per-address rate limit in :mod:`webapp.security` covers them).
    The caller commits (also on failure, so that the count is kept).
    """
    now = now or utcnow()
    user = db.session.scalar(db.select(User).filter_by(email=(email or "").strip().lower()))
    if user is not None and user.locked_until is not None and user.locked_until > now:
        check_password(None, password)
        raise AccountLocked(user.locked_until)
    if user is not None and user.active and check_password(user, password):
        user.failed_logins = 0
        user.locked_until = None
        db.session.flush()
        return user
    if user is None:
        check_password(None, password)
        return None
    # atomic increment: concurrent failures are all counted
    db.session.execute(db.update(User).where(User.id == user.id)
                       .values(failed_logins=User.failed_logins + 1))
    db.session.refresh(user)
    if user.failed_logins >= threshold:
        user.failed_logins = 0
        user.locked_until = now + duration
        db.session.flush()
    return None


def end_sessions(user: User) -> None:
    """Invalidate every login session of ``user`` on the server side (logout, a password
    change, an admin's "sign out everywhere"): a copied session cookie carries the old
    ``session_version`` and is refused from now on. Atomic increment; flushes."""
    db.session.execute(db.update(User).where(User.id == user.id)
                       .values(session_version=User.session_version + 1))
    db.session.refresh(user)


def set_password(user: User, password: str) -> None:
    """Set a new password (argon2id) and end all of the user's sessions; flushes."""
    user.password_hash = _hasher.hash(password)
    db.session.flush()
    end_sessions(user)


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


def unlock(user: User) -> None:
    """Lift a lock-out (admin action); flushes."""
    user.failed_logins = 0
    user.locked_until = None
    db.session.flush()


def user_by_token(token: str) -> User | None:
    """The active user whose API token is ``token``, or None."""
    if not token:
        return None
    user = db.session.scalar(db.select(User).filter_by(token_hash=token_digest(token)))
    return user if user and user.active else None
