"""The vote's refusals (:class:`VoteError` 409, :class:`VoteInputError` 422), its result
document's kind, and the gateway's signature and phone-number key."""

from __future__ import annotations

import hmac

from flask import current_app

from webapp.core.crypto import lookup_hash
from webapp.core.errors import OperationError
from webapp.domain import vote as rules

RESULT_DOCUMENT = "vote_result"


class VoteError(OperationError, RuntimeError):
    """A refusal by the vote's state or the rules (HTTP 409): ``message`` in Russian,
    ``rule`` the clause or None; the 409 body is ``{"message", "rule"}``."""

    status = 409

    def __init__(self, message: str, rule: str | None = rules.RULE):
        super().__init__(message, error={"message": message, "rule": rule})
        self.rule = rule


class VoteInputError(OperationError, ValueError):
    """Invalid input (HTTP 422): ``errors`` ``{field: [message]}``; ``str(exc)`` joins the
    messages (``"; "``) for a flash message."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(m for msgs in errors.values() for m in msgs), errors=errors)


# --- the gateway's signature --------------------------------------------------------------


class SignatureUnavailable(Exception):
    """``SOVA_SMS_SECRET`` is not set: the callback is off (503)."""


#: HMAC-SHA256 objects keyed with each ``SOVA_SMS_SECRET`` seen, nothing hashed yet: each
#: callback copies one instead of keying a new one.
_MACS: dict[str, hmac.HMAC] = {}


def signature_ok(body: bytes, signature: str | None) -> bool:
    """True if ``signature`` is the hex HMAC-SHA256 of the raw request ``body`` under
    ``SOVA_SMS_SECRET`` (hex in either case; compared as bytes in constant time,
    ``hmac.compare_digest``); False for a missing or malformed one (any text). Raises
    SignatureUnavailable when no secret is configured."""
    secret = current_app.config.get("SOVA_SMS_SECRET")
    if not secret:
        raise SignatureUnavailable()
    mac = _MACS.get(secret)
    if mac is None:  # the key's pads, computed once per secret (one dict entry in practice)
        mac = _MACS[secret] = hmac.new(secret.encode(), digestmod="sha256")
    mac = mac.copy()
    mac.update(body)
    expected = mac.hexdigest().encode("ascii")
    # bytes, not str: compare_digest refuses a str with a non-ASCII character (TypeError),
    # and a header may carry any (Werkzeug decodes headers as Latin-1)
    given = (signature or "").strip().lower().encode("utf-8", "replace")
    return hmac.compare_digest(expected, given)


def msisdn_key(msisdn: str, region: str = rules.DEFAULT_REGION) -> str | None:
    """Keyed hash (hex) of the phone number's E.164 digits read in ``region`` (the season's
    country), never the number itself; None if it is no phone number
    (:func:`webapp.domain.vote.normalise_msisdn`). The digits are those the key was made
    of before numbers were read by phonenumbers, so stored keys stay comparable."""
    number = rules.normalise_msisdn(msisdn, region)
    return lookup_hash(f"msisdn:{number}") if number else None
