"""Process heartbeats in the database (``process_heartbeat``), read by ``sova health``.

A worker and the beat each run a :class:`Heartbeat` thread in their main process (started
by Celery's ``worker_ready`` / ``beat_init`` signals, ``workers.app``): every
``SOVA_HEARTBEAT_SECONDS`` (default 10) it writes ``beat_at`` (UTC) and the number of tasks
running to the process's row. The prefork pool renders PDFs in child processes, so the
heartbeat goes on while every child is busy, and it says the truth whatever the broker
(the embedded SQLAlchemy broker has no remote control, and a Redis broker that restarts
drops remote-control pings). The same tick sends again what a Redis broker lost by
restarting empty (:func:`webapp.tasks.outbox.after_broker_restart`).

Each write uses a connection of its own (an engine without a pool): nothing the thread
opens is inherited by a pool process forked later.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from datetime import datetime
from typing import cast

from flask import Flask, current_app
from sqlalchemy import Table, create_engine, delete, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from webapp.core.models import ProcessHeartbeat, utcnow
from webapp.extensions import db

log = logging.getLogger("sova.heartbeat")

#: ``sova health``: a heartbeat older than this many seconds is a dead process (three
#: missed beats at the default interval).
DEFAULT_MAX_AGE = 30.0


def interval() -> float:
    """``SOVA_HEARTBEAT_SECONDS`` (default 10): seconds between two beats."""
    return float(current_app.config.get("SOVA_HEARTBEAT_SECONDS", 10))


def _engine() -> Engine:
    return create_engine(current_app.config["SQLALCHEMY_DATABASE_URI"], poolclass=NullPool)


def _table() -> Table:
    return cast(Table, ProcessHeartbeat.__table__)


def write(engine: Engine, role: str, node: str, started_at: datetime, busy: int) -> None:
    """Upsert the row ``(role, node)`` with ``beat_at`` now (one transaction)."""
    table = _table()
    values = {"pid": os.getpid(), "busy": busy, "started_at": started_at, "beat_at": utcnow()}
    with engine.begin() as conn:
        key = (table.c.role == role) & (table.c.node == node)
        if conn.execute(update(table).where(key).values(**values)).rowcount == 0:
            conn.execute(insert(table).values(role=role, node=node, **values))


def remove(engine: Engine, role: str, node: str) -> None:
    table = _table()
    with engine.begin() as conn:
        conn.execute(delete(table).where((table.c.role == role) & (table.c.node == node)))


def read(role: str | None = None) -> list[dict]:
    """``[{"role", "node", "pid", "busy", "started_at", "age_seconds"}]`` of every row (of
    ``role``), freshest first, through the app's session (read only)."""
    query = select(ProcessHeartbeat).order_by(ProcessHeartbeat.beat_at.desc())
    if role:
        query = query.where(ProcessHeartbeat.role == role)
    now = utcnow()
    try:
        rows = db.session.scalars(query).all()
        return [
            {
                "role": r.role,
                "node": r.node,
                "pid": r.pid,
                "busy": r.busy,
                "started_at": r.started_at.isoformat(),
                "age_seconds": round((now - r.beat_at).total_seconds(), 1),
            }
            for r in rows
        ]
    finally:
        db.session.rollback()


class Heartbeat(threading.Thread):
    """The heartbeat thread of one process: ``role`` (``worker``/``beat``), ``node`` (its
    name), ``busy()`` the number of tasks running, ``on_tick()`` more work each beat (the
    broker-restart check). Errors are logged and retried at the next beat. :meth:`stop`
    ends it and deletes the row (a clean stop is not a dead process)."""

    def __init__(
        self,
        app: Flask,
        role: str,
        node: str,
        busy: Callable[[], int] = lambda: 0,
        on_tick: Callable[[], object] | None = None,
    ):
        super().__init__(name=f"sova-heartbeat-{role}", daemon=True)
        self.app, self.role, self.node, self.busy, self.on_tick = app, role, node, busy, on_tick
        self.started_at = utcnow()
        self._stop_event = threading.Event()
        with app.app_context():
            self.every = interval()
            self.engine = _engine()

    def tick(self) -> None:
        with self.app.app_context():
            try:
                write(self.engine, self.role, self.node, self.started_at, self.busy())
            except Exception as exc:  # the database is down: said once a beat, one line
                log.warning("heartbeat of %s %s not written: %s", self.role, self.node, exc)
            if self.on_tick is not None:
                try:
                    self.on_tick()
                except Exception as exc:  # the broker is down: one line a beat
                    log.warning("broker restart check failed (retried next beat): %s", exc)

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.tick()
            self._stop_event.wait(self.every)

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive():
            self.join(timeout=5)
        try:
            remove(self.engine, self.role, self.node)
        except Exception:
            log.warning("heartbeat of %s %s not removed", self.role, self.node, exc_info=True)
        self.engine.dispose()


__all__ = ["DEFAULT_MAX_AGE", "Heartbeat", "interval", "read", "remove", "write"]
