"""The request id of the running HTTP request or task (a context variable), kept apart from
:mod:`webapp.observability` so that :mod:`webapp.tasks.outbox` and the features can read it without
importing the metrics (which read every feature's tables)."""

from __future__ import annotations

import contextvars
import re

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "sova_request_id", default=None
)
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def current_request_id() -> str | None:
    """The request id of the running request or task, or None."""
    return REQUEST_ID.get()


def clean_request_id(value: str | None) -> str | None:
    """``value`` if it is a usable request id (1–64 of ``[A-Za-z0-9._-]``), else None."""
    return value if value and _VALID_ID.match(value) else None
