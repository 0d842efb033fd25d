"""Celery bound to the Flask app (Flask's Celery pattern, Superset's settings).

JSON only; tasks take primary keys; ``acks_late`` + ``reject_on_worker_lost`` with
idempotent tasks; prefetch 1; time limits; the beat sweeps the outbox every 30 s and
reconciles owed work (``outbox.reconcile``, :func:`webapp.owed.reconcile`) every
``SOVA_RECONCILE_SECONDS`` (60). Every task that returns marks its outbox row done
(:func:`webapp.jobs.mark_done`), so the database knows what the broker lost.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import Celery, Task
from flask import Flask

from webapp.core.request_id import REQUEST_ID, clean_request_id
from webapp.jobs import mark_done

#: Seconds a message taken by a worker stays invisible to the others before the Redis
#: transport restores it (a worker killed mid-task). Must exceed the longest hard time
#: limit (``prizes.render_register``: 360 s) and the longest retry countdown held by a
#: worker (``retry_backoff_max``: 600 s), or a slow task would be delivered twice. A killed
#: worker's task is usually sent again sooner by ``outbox.reconcile``
#: (``SOVA_OWED_AFTER_SECONDS``).
VISIBILITY_TIMEOUT = 900

#: Chatty library loggers held at WARNING in every process that runs tasks: WeasyPrint
#: logs each layout step of every PDF at INFO on ``weasyprint.progress``.
#: Options of every ``celery worker`` command line (deploy/, ``sova worker``, the cluster
#: test): no gossip, mingle or event heartbeats. Sova uses none of them (health checks ping
#: through remote control, which stays), and the gossip step is what crashes a worker when
#: the Redis broker restarts (celery/kombu#582; celery/celery#8030, #8091: workers that
#: stop consuming after a Redis reconnect unless these are off).
WORKER_FLAGS = ("--without-gossip", "--without-mingle", "--without-heartbeat")

QUIET_LOGGERS = ("weasyprint", "weasyprint.progress", "fontTools")


def quiet_library_loggers() -> None:
    """Set :data:`QUIET_LOGGERS` to ``logging.WARNING`` (warnings and errors still show)."""
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)


def celery_init_app(app: Flask) -> Celery:
    """Create the Celery app for ``app`` and store it in ``app.extensions["celery"]``.
    Also quiets the WeasyPrint loggers (:func:`quiet_library_loggers`)."""
    quiet_library_loggers()

    class FlaskTask(Task):
        def __call__(self, *args, **kwargs):
            from flask import has_app_context

            request = self.request
            rid = clean_request_id(
                getattr(request, "sova_request_id", None)
                or (getattr(request, "headers", None) or {}).get("sova_request_id")
            )
            token = REQUEST_ID.set(rid) if rid else None
            try:
                if has_app_context():
                    result = self.run(*args, **kwargs)
                    mark_done(request.id)
                    return result
                with app.app_context():
                    result = self.run(*args, **kwargs)
                    mark_done(request.id)  # the outbox row is done: nothing owed
                    return result
            finally:
                if token is not None:
                    REQUEST_ID.reset(token)

    celery = Celery(app.name, task_cls=FlaskTask)
    broker = app.config["SOVA_BROKER_URL"]
    celery.conf.update(
        broker_url=broker,
        result_backend=None,
        task_ignore_result=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=120,
        task_time_limit=180,
        # A broker restart (Redis without persistence) must not end the worker: retry the
        # connection for ever (Celery's default gives up after 100 attempts and exits), at
        # start-up too. The worker command lines add --without-gossip --without-mingle
        # --without-heartbeat (WORKER_FLAGS): Celery's gossip step can die on the reconnect
        # ("Unrecoverable error: AttributeError ... 'hostname'", celery/kombu#582).
        broker_connection_retry=True,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        # A task running when the connection drops runs to its end (its database work
        # commits and marks its outbox row done; the lost ack only means a redelivery that
        # the idempotent task ignores, and an emptied Redis has nothing to redeliver).
        # Cancelling it would cut SMTP exchanges short and leave e-mails in doubt.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        # kombu's SQLAlchemy transport hands these options to create_engine(): Redis only.
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT}
        if broker.startswith(("redis", "rediss"))
        else {},
        worker_hijack_root_logger=False,
        beat_schedule={
            "outbox-sweep": {"task": "outbox.sweep", "schedule": timedelta(seconds=30)},
            "outbox-reconcile": {
                "task": "outbox.reconcile",
                "schedule": timedelta(seconds=float(app.config.get("SOVA_RECONCILE_SECONDS", 60))),
            },
            "prizes-remind-details": {
                "task": "prizes.remind_details",
                "schedule": timedelta(hours=24),
            },
            "prizes-purge-payee-details": {
                "task": "prizes.purge_payee_details",
                "schedule": timedelta(hours=24),
            },
            "votes-purge-numbers": {"task": "votes.purge_numbers", "schedule": timedelta(hours=24)},
        },
        beat_schedule_filename=str(
            __import__("pathlib").Path(app.config["SOVA_INSTANCE_PATH"]) / "celerybeat-schedule"
        ),
    )
    celery.conf.update(app.config.get("CELERY", {}))
    celery.set_default()
    celery.flask_app = app  # workers.lifecycle's signals
    app.extensions["celery"] = celery
    return celery
