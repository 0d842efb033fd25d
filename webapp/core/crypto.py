"""Encryption of personal data at rest (Fernet / MultiFernet from ``cryptography``).

Keys come from ``SOVA_ENCRYPTION_KEYS`` (a list; in the environment comma-separated,
newest first): the first key encrypts, every key decrypts. Key rotation:

1. ``sova keys generate`` prints a new key; put it FIRST in ``SOVA_ENCRYPTION_KEYS``
   (keep the old ones after it) and restart;
2. ``sova keys rotate`` re-encrypts every stored token under the first key
   (:func:`rotate`, ``MultiFernet.rotate``);
3. remove the old keys from the environment.

Equality look-ups (an author's e-mail, a payee's personal number) use a keyed BLAKE2b hash
under a key derived from ``SECRET_KEY``, so the plaintext is never stored.
"""

from __future__ import annotations

import hashlib
from typing import overload

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from flask import current_app

__all__ = [
    "InvalidToken",
    "decrypt",
    "encrypt",
    "generate_key",
    "lookup_hash",
    "needs_rotation",
    "rotate",
]


def _keys() -> list[str]:
    keys = current_app.config["SOVA_ENCRYPTION_KEYS"]
    if isinstance(keys, str):
        keys = keys.split(",")
    return [k.strip() for k in keys if k.strip()]


def _fernet() -> MultiFernet:
    keys = _keys()
    if not keys:
        raise RuntimeError("SOVA_ENCRYPTION_KEYS is empty: no key to encrypt with")
    return MultiFernet([Fernet(k) for k in keys])


def encrypt(text: str | None) -> str | None:
    """Encrypt ``text`` (str) to a Fernet token (str) under the first key; None stays None."""
    if text is None:
        return None
    return _fernet().encrypt(text.encode()).decode()


@overload
def decrypt(token: str) -> str: ...
@overload
def decrypt(token: None) -> None: ...
@overload
def decrypt(token: str | None) -> str | None: ...
def decrypt(token: str | None) -> str | None:
    """Decrypt a Fernet token made by :func:`encrypt` with any configured key; raises
    cryptography's InvalidToken when no key fits."""
    if token is None:
        return None
    return _fernet().decrypt(token.encode()).decode()


def rotate(token: str | None) -> str | None:
    """Re-encrypt ``token`` under the first key (same plaintext, original timestamp kept);
    None stays None. Raises InvalidToken when no configured key decrypts it."""
    if token is None:
        return None
    return _fernet().rotate(token.encode()).decode()


def needs_rotation(token: str | None) -> bool:
    """True if ``token`` is not readable with the first (current) key alone."""
    if token is None:
        return False
    try:
        Fernet(_keys()[0]).decrypt(token.encode())
    except InvalidToken:
        return True
    return False


def generate_key() -> str:
    """A new random Fernet key (url-safe base64 of 32 bytes, str)."""
    return Fernet.generate_key().decode()


def lookup_hash(value: str) -> str:
    """Keyed hash (hex, 64 chars) of an already normalised value, for equality look-ups."""
    key = hashlib.sha256(b"sova-lookup:" + current_app.config["SECRET_KEY"].encode()).digest()
    return hashlib.blake2b(value.encode(), key=key[:32], digest_size=32).hexdigest()
