"""Signed link tokens of the viewer pages (itsdangerous, keyed by ``SECRET_KEY``).

Kept apart from the views so that a worker (``workers.notify`` mailing the "my questions"
link) signs the same token without importing a view module.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer

from webapp.submissions.models import Author

MY_LINK_AGE = 24 * 3600  # seconds a "my questions" link stays valid
MY_LINK_SALT = "my-questions"


def signer(salt: str) -> URLSafeTimedSerializer:
    """The app's serializer for tokens of one purpose (``salt``)."""
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=salt)


def my_link_token(author: Author) -> str:
    """A signed token for ``/my/<token>``: valid 24 h and once (``link_version``)."""
    return signer(MY_LINK_SALT).dumps({"a": author.id, "v": author.link_version})


def read_my_link(token: str) -> dict[str, Any] | None:
    """The payload ``{"a": author id, "v": link version}`` of a valid, unexpired token,
    else None (bad signature or older than :data:`MY_LINK_AGE`)."""
    try:
        data = signer(MY_LINK_SALT).loads(token, max_age=MY_LINK_AGE)
    except BadSignature:
        return None
    return data if isinstance(data, dict) else None


CONFIRM_LINK_AGE = 90 * 24 * 3600  # seconds the link of the "received" e-mail confirms
CONFIRM_SALT = "confirm-author"


def confirm_token(question_id: int, author_id: int) -> str:
    """A signed token for ``/confirm/<token>``: mailed only to the address given with the
    question, it proves that the address's owner sent it."""
    return signer(CONFIRM_SALT).dumps({"q": question_id, "a": author_id})


def read_confirm_token(token: str) -> dict[str, Any] | None:
    """The payload ``{"q": question id, "a": author id}`` of a valid token younger than
    :data:`CONFIRM_LINK_AGE`, else None."""
    try:
        data = signer(CONFIRM_SALT).loads(token, max_age=CONFIRM_LINK_AGE)
    except BadSignature:
        return None
    return data if isinstance(data, dict) else None
