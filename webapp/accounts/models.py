"""Staff users and their roles (``shared/DESIGN.md`` Security)."""

from __future__ import annotations

import hashlib
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model

ROLES = ("editor", "chief_editor", "producer", "host", "accountant", "admin")
#: How the pages name each role (staff pages are Russian).
ROLE_LABELS = {
    "editor": "редактор",
    "chief_editor": "главный редактор",
    "producer": "продюсер",
    "host": "ведущий",
    "accountant": "бухгалтер",
    "admin": "администратор",
}


#: The domain of the demo staff accounts ``sova seed-demo`` creates (``editor@sova.local``…):
#: a reserved name (RFC 6762 ``.local``) no real mailbox has. Production refuses them.
DEMO_DOMAIN = "sova.local"


def is_demo_email(email: str) -> bool:
    """Whether ``email`` is one of the demo staff accounts' addresses (:data:`DEMO_DOMAIN`)."""
    return (email or "").strip().lower().endswith("@" + DEMO_DOMAIN)


def token_digest(token: str) -> str:
    """SHA-256 hex of an API token (the token itself is never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class User(UserMixin, Model):
    """A staff member. ``role``: one of :data:`ROLES`; ``password_hash``: argon2id;
    ``tokens``: the API bearer tokens issued to them (:class:`ApiToken`); the login
    lock-out state is per source, in :class:`LoginLock`. The ``user`` table's ``token_hash``
    column is left unmapped: the tokens are rows of ``api_token`` (migration
    ``0022_api_tokens``)."""

    __tablename__ = "user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(20))
    password_hash: Mapped[str | None] = mapped_column(String(200))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Part of the login session's id (get_id): bumped by logout, a password change or an
    # admin's "sign out everywhere", so every older session cookie stops working.
    session_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    def get_id(self) -> str:  # flask-login: stored in the session as ``_user_id``
        """``"<id>:<session_version>"``: :func:`webapp.app` 's user loader admits a session
        only while its version is the user's current one."""
        return f"{self.id}:{self.session_version or 0}"

    @property
    def is_active(self) -> bool:  # flask-login
        return bool(self.active)

    tokens: Mapped[list[ApiToken]] = relationship(
        "ApiToken",
        foreign_keys="ApiToken.user_id",
        back_populates="user",
        order_by="ApiToken.id",
    )


class LoginLock(Model):
    """The login lock-out state of one account from one source (migration
    0033_login_lock; :func:`webapp.accounts.operations.authenticate`): ``source`` is
    ``"addr:<client address>"``, or ``"device:<digest>"`` for a browser that signed in to
    this account before (its device cookie); ``failures``: the attempts counted since the
    last success or expired lock; ``locked_until``: the end of the current lock (aware UTC).
    The account itself is never locked: its owner signs in from another address or a
    trusted device while an attacker's source is locked."""

    __tablename__ = "login_lock"

    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), primary_key=True)
    source: Mapped[str] = mapped_column(String(80), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


#: Why a token stopped working (``ApiToken.revoked_reason``), as the staff page says it.
REVOKE_REASONS = {
    "sign_out": "выход везде",
    "password": "новый пароль",
    "deactivated": "учётная запись отключена",
    "admin": "отозван администратором",
}


class ApiToken(Model):
    """An API bearer token of a staff user (migration 0022_api_tokens). Only the SHA-256
    of the token is stored (``token_hash``); ``created_at``; ``last_used_at``: the last
    request it authenticated (UTC, to the minute: written at most once a minute,
    :data:`webapp.accounts.operations.TOUCH_EVERY`); ``revoked_at``/``revoked_by_id``/
    ``revoked_reason`` (a key of :data:`REVOKE_REASONS`): when, by whom and why it stopped
    working — the audit of a revocation. A revoked token never works again."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    revoked_reason: Mapped[str | None] = mapped_column(String(20))

    user: Mapped[User] = relationship(User, foreign_keys=[user_id], back_populates="tokens")
    revoked_by: Mapped[User | None] = relationship(User, foreign_keys=[revoked_by_id])

    @property
    def revoked_reason_label(self) -> str:
        """The reason as the staff page says it."""
        return REVOKE_REASONS.get(self.revoked_reason or "", self.revoked_reason or "")
