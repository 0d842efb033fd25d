"""Celery bound to the Flask app (Flask's Celery pattern, Superset's settings).

JSON only; tasks take primary keys; ``acks_late`` + ``reject_on_worker_lost`` with
idempotent tasks; prefetch 1; time limits. Every task runs in the task edge
(:class:`SovaTask`): committed when it returns, rolled back when it raises; a task that
returns marks its outbox row done (:func:`webapp.tasks.outbox.mark_done`), so the database knows
what the broker lost. The beat's schedule is every task declared with one
(:func:`webapp.tasks.registry.beat_schedule`): the outbox's sweep every 30 s and
``outbox.reconcile`` every ``SOVA_RECONCILE_SECONDS``, and the features' entries.
"""

from __future__ import annotations

import logging

from celery import Celery, Task
from flask import Flask

from webapp.core.request_id import REQUEST_ID, clean_request_id
from webapp.tasks.outbox import mark_done
from webapp.tasks.registry import beat_schedule

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


class SovaTask(Task):
    """The task edge, as :mod:`webapp.core.edge` is the request edge: one transaction per
    task run. The body runs in the Flask app's context (the caller's when there is one);
    when it returns, the session is committed (:func:`webapp.tasks.outbox.commit`, which also
    sends the tasks it queued) and its outbox row is marked done
    (:func:`webapp.tasks.outbox.mark_done`); when it raises — an error, a time limit, or the
    ``Retry`` of ``self.retry()``/``autoretry_for`` — the session is rolled back and the
    exception goes on to Celery, so a failed or retried run leaves nothing written. Task
    bodies therefore only flush; a body commits only where a commit in the middle is the
    point, and says why there (``workers.rendering``, ``workers.moderation.precheck``,
    ``workers.prizes.send_details_link``). The request id the web request put in the
    message's headers is this run's (``webapp.core.request_id``)."""

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
                return self._in_transaction(args, kwargs)
            with self.app.flask_app.app_context():
                return self._in_transaction(args, kwargs)
        finally:
            if token is not None:
                REQUEST_ID.reset(token)

    def _in_transaction(self, args, kwargs):
        from webapp.extensions import db
        from webapp.tasks.outbox import commit

        try:
            result = self.run(*args, **kwargs)
            commit()
        except BaseException:
            try:
                db.session.rollback()
            except Exception:  # the connection is gone: the exception below says more
                logging.getLogger("sova.tasks").warning(
                    "task %s: rollback failed", self.name, exc_info=True
                )
            raise
        mark_done(self.request.id)  # the outbox row is done: nothing owed
        return result


def celery_init_app(app: Flask) -> Celery:
    """Create the Celery app for ``app`` and store it in ``app.extensions["celery"]``.
    Also quiets the WeasyPrint loggers (:func:`quiet_library_loggers`)."""
    quiet_library_loggers()

    celery = Celery(app.name, task_cls=SovaTask)
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
        beat_schedule=beat_schedule(app.config),
        beat_schedule_filename=str(
            __import__("pathlib").Path(app.config["SOVA_INSTANCE_PATH"]) / "celerybeat-schedule"
        ),
    )
    celery.conf.update(app.config.get("CELERY", {}))
    celery.set_default()
    celery.flask_app = app  # the process signals of webapp.tasks.lifecycle
    app.extensions["celery"] = celery
    return celery
