"""Writes for staff accounts. Operations flush; the caller (request, CLI) commits."""

from __future__ import annotations

import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from webapp.accounts.models import ROLES, User, token_digest
from webapp.extensions import db

_hasher = PasswordHasher()  # argon2id, memory-hard


class AccountError(ValueError):
    """Invalid account data (unknown role, duplicate e-mail)."""


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


def user_by_token(token: str) -> User | None:
    """The active user whose API token is ``token``, or None."""
    if not token:
        return None
    user = db.session.scalar(db.select(User).filter_by(token_hash=token_digest(token)))
    return user if user and user.active else None
