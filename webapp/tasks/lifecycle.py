"""Process signals of every worker and beat that registers Sova's tasks (``workers.tasks``).

A pool process disposes the database pool it inherited (connections are never shared
across a fork). The worker's and the beat's main process run a heartbeat thread
(``webapp.tasks.heartbeat``: a row in the database every ``SOVA_HEARTBEAT_SECONDS``, read by
``sova health``; each beat also sends again what a Redis broker lost by restarting
empty, ``webapp.tasks.outbox.after_broker_restart``); a warm shutdown stops it and deletes the row. The
Flask app is the one the Celery app was made for (``webapp.tasks.celery.celery_init_app``).
"""

from __future__ import annotations

import socket

from celery import current_app as current_celery
from celery.signals import beat_init, worker_process_init, worker_ready, worker_shutdown

from webapp.tasks.heartbeat import Heartbeat
from webapp.tasks.outbox import after_broker_restart

_heartbeats: list[Heartbeat] = []


def _flask_app(sender=None):
    app = getattr(getattr(sender, "app", None), "flask_app", None)
    return app or current_celery.flask_app


@worker_process_init.connect
def _fresh_pool_in_child(**_kwargs) -> None:
    from webapp.extensions import db

    with _flask_app().app_context():
        db.engine.dispose(close=False)


def _running() -> int:
    from celery.worker import state

    return len(state.active_requests)


@worker_ready.connect
def _worker_heartbeat(sender=None, **_kwargs) -> None:
    node = getattr(sender, "hostname", None) or f"celery@{socket.gethostname()}"
    beat = Heartbeat(
        _flask_app(sender), "worker", node, busy=_running, on_tick=after_broker_restart
    )
    _heartbeats.append(beat)
    beat.start()


@worker_shutdown.connect
def _stop_heartbeats(**_kwargs) -> None:
    while _heartbeats:
        _heartbeats.pop().stop()


@beat_init.connect
def _beat_heartbeat(sender=None, **_kwargs) -> None:
    beat = Heartbeat(_flask_app(sender), "beat", socket.gethostname(), on_tick=after_broker_restart)
    _heartbeats.append(beat)
    beat.start()
