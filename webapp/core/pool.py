"""Pessimistic disconnect handling that costs nothing under load (the load target).

SQLAlchemy's ``pool_pre_ping`` sends a ping before *every* checkout: one more round trip per
request, about an eighth of a viewer submission's time in the web process. A connection
that was checked in a moment ago is as good as the ping would say, so here a connection is
pinged only when it has sat idle in the pool for ``idle_seconds`` or more (after a quiet
spell, or after a database restart that happened while it was idle). A ping that fails
raises ``DisconnectionError``, and the pool throws the connection away and checks out
another (SQLAlchemy's documented checkout-event protocol, up to three attempts).

What is given up: a connection used within the last ``idle_seconds`` when the database
restarts is found dead by the request that uses it next, which then answers 503
(``webapp.security``: a retry page, or JSON under ``/api/``) instead of being retried.
"""

from __future__ import annotations

import time

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

_IDLE_SINCE = "sova_idle_since"


def install_idle_ping(engine: Engine, idle_seconds: float) -> None:
    """Ping ``engine``'s pooled connections at checkout when they have been idle for
    ``idle_seconds`` (float, seconds; 0 pings every checkout, like ``pool_pre_ping``).
    Raises nothing itself; a failed ping becomes a fresh connection or, when the database
    is down, the connect error of that fresh connection."""

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_connection, record) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection, record, _proxy) -> None:
        since = record.info.get(_IDLE_SINCE)
        if since is None or time.monotonic() - since < idle_seconds:
            return  # a new connection, or one in use a moment ago
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise DisconnectionError("idle connection failed its ping") from exc
        if not alive:
            raise DisconnectionError("idle connection failed its ping")
