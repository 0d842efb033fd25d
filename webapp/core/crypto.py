"""Encryption of personal data at rest (Fernet / MultiFernet from ``cryptography``).

Keys come from ``SOVA_ENCRYPTION_KEYS`` (comma-separated, newest first). Equality look-ups
(an author's e-mail) use a keyed BLAKE2b hash under a key derived from the same secret, so
the plaintext is never stored.
"""

from __future__ import annotations

import hashlib

from cryptography.fernet import Fernet, MultiFernet
from flask import current_app


def _fernet() -> MultiFernet:
    keys = current_app.config["SOVA_ENCRYPTION_KEYS"]
    return MultiFernet([Fernet(k) for k in keys])


def encrypt(text: str | None) -> str | None:
    """Encrypt ``text`` (str) to a Fernet token (str); None stays None."""
    if text is None:
        return None
    return _fernet().encrypt(text.encode()).decode()


def decrypt(token: str | None) -> str | None:
    """Decrypt a Fernet token made by :func:`encrypt`; raises cryptography's InvalidToken."""
    if token is None:
        return None
    return _fernet().decrypt(token.encode()).decode()


def lookup_hash(value: str) -> str:
    """Keyed hash (hex, 64 chars) of an already normalised value, for equality look-ups."""
    key = hashlib.sha256(b"sova-lookup:" + current_app.config["SECRET_KEY"].encode()).digest()
    return hashlib.blake2b(value.encode(), key=key[:32], digest_size=32).hexdigest()
