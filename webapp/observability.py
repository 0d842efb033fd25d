"""Metrics, request ids, JSON logs and readiness (docs/operations.md "Monitoring").

- ``GET /metrics``: Prometheus text format (prometheus-client). Process metrics:
  ``sova_http_requests_total{endpoint,method,status}`` (every label from a fixed set:
  :func:`request_labels`),
  ``sova_http_request_duration_seconds{endpoint}`` (web), ``sova_precheck_latency_seconds``
  (from the submission to its pre-check report, observed by the worker),
  ``sova_render_duration_seconds{kind}`` (PDF rendering, worker). Read at each scrape from
  the database and the broker: ``sova_owed{what}`` (the fields of
  :func:`webapp.tasks.owed.owed_status`: outbox backlog, overdue and given-up tasks, questions
  without a pre-check, documents pending, e-mails sending and **in doubt**),
  ``sova_queue_length{queue}`` and ``sova_broker_up``. With ``PROMETHEUS_MULTIPROC_DIR``
  set (gunicorn, Celery prefork; the same folder for web and worker on one host, emptied
  before they start) the values of every process of the host are added up
  (prometheus-client's multiprocess mode; ``deploy/gunicorn.conf.py`` marks dead workers).
  Access: only from a loopback address, or with ``Authorization: Bearer
  <SOVA_METRICS_TOKEN>``; anyone else gets 403 (the figures tell an outsider how busy the
  editors are). Behind nginx the client address is the forwarded one (``SOVA_PROXY_COUNT``),
  so a visitor through the proxy is not "local"; the forwarded address is believed only
  from ``SOVA_TRUSTED_PROXIES`` (:mod:`webapp.core.proxies`), so a client that reaches
  gunicorn directly cannot claim one.
- ``GET /readyz``: 200 ``{"status": "ready", "database": "ok", "broker": "ok"}`` or 503
  with ``"unavailable"`` for what is down (``/healthz`` stays the liveness probe).
- Request ids: ``X-Request-ID`` from the client or proxy (1–64 of ``[A-Za-z0-9._-]``), else
  a new uuid4 hex; echoed in the response, put on every log record (``request_id``),
  stored on the outbox rows the request queues and sent with their tasks as the message
  header ``sova_request_id``, so the worker's log lines of those tasks carry it too.
- ``SOVA_LOG_FORMAT=json``: one JSON object per log line (python-json-logger) with
  ``time``, ``level``, ``logger``, ``message``, ``request_id``.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import time
import uuid

from flask import Flask, Response, current_app, g, jsonify, request
from kombu.exceptions import ChannelError
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

from webapp.core.access import access
from webapp.core.request_id import REQUEST_ID, clean_request_id, current_request_id
from webapp.extensions import db
from webapp.tasks.owed import owed_status

__all__ = ["REQUEST_ID", "clean_request_id", "current_request_id", "init_observability"]

log = logging.getLogger("sova.observability")

REQUEST_ID_HEADER = "X-Request-ID"

HTTP_REQUESTS = Counter(
    "sova_http_requests",
    "HTTP requests answered, by endpoint and status",
    ["endpoint", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "sova_http_request_duration_seconds", "Time to answer a request", ["endpoint"]
)
PRECHECK_LATENCY = Histogram(
    "sova_precheck_latency_seconds",
    "From a question's arrival to its pre-check report",
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600),
)
RENDER_SECONDS = Histogram(
    "sova_render_duration_seconds",
    "PDF rendering time by kind",
    ["kind"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
)


#: The request methods counted by name (RFC 9110 §9 and PATCH); any other is ``"other"``.
HTTP_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"}
)


def request_labels(status: int) -> tuple[str, str, str]:
    """``(endpoint, method, status)`` of the current request for ``sova_http_requests``,
    each from a fixed set so that no visitor can add series: the URL rule's endpoint name
    (``"unknown"`` when no rule matched: a 404, a 405), the method when standard
    (:data:`HTTP_METHODS`) else ``"other"``, the status code as a string when it is a
    valid one (100-599) else ``"other"``."""
    rule = request.url_rule
    endpoint = rule.endpoint if rule is not None else "unknown"
    method = request.method if request.method in HTTP_METHODS else "other"
    return endpoint, method, str(status) if 100 <= status <= 599 else "other"


class RequestIdFilter(logging.Filter):
    """Puts ``request_id`` (or ``"-"``) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


def configure_logging(app: Flask) -> None:
    """Root logging at INFO with the request-id filter; JSON lines when
    ``SOVA_LOG_FORMAT=json`` (the handlers the root logger already has are reformatted, or
    one stderr handler is added)."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
    if root.level == logging.NOTSET or root.level > logging.INFO:
        root.setLevel(logging.INFO)
    fmt = None
    if str(app.config.get("SOVA_LOG_FORMAT", "")).lower() == "json":
        from pythonjsonlogger.json import JsonFormatter

        fmt = JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    for handler in root.handlers:
        if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
            handler.addFilter(RequestIdFilter())
        if fmt is not None:
            handler.setFormatter(fmt)


class OwedCollector:
    """Gauges read at scrape time from the database and the broker."""

    def collect(self):

        owed = GaugeMetricFamily(
            "sova_owed", "Owed work read from the database (sova outbox status)", labels=["what"]
        )
        try:
            for what, value in owed_status().items():
                owed.add_metric([what], float(value))
        except Exception:  # the database is down: /readyz says so; no figures
            db.session.rollback()
            log.warning("metrics: owed work unreadable", exc_info=True)
        yield owed
        queue = GaugeMetricFamily(
            "sova_queue_length", "Messages waiting in a broker queue", labels=["queue"]
        )
        up = GaugeMetricFamily("sova_broker_up", "1 when the broker answered")
        try:
            for name, count in queue_lengths().items():
                queue.add_metric([name], float(count))
            up.add_metric([], 1.0)
        except Exception:
            log.warning("metrics: broker unreachable", exc_info=True)
            up.add_metric([], 0.0)
        yield queue
        yield up


def queue_lengths(timeout: float = 2.0) -> dict[str, int]:
    """``{queue name: messages waiting}`` for the Celery queues (passive declare through
    kombu: Redis and the SQLAlchemy broker alike; a queue not declared yet counts 0).
    Raises when the broker cannot be reached: after one retry a tenth of a second later
    (kombu's default first interval, 2 s, made ``/readyz`` answer a down broker after 2 s,
    past the 1 s a readiness probe waits by default)."""
    celery = current_app.extensions["celery"]
    names = {q.name for q in (celery.conf.task_queues or ())} or {celery.conf.task_default_queue}
    out = {}
    with celery.connection_for_read() as conn:
        conn.ensure_connection(
            max_retries=1, interval_start=0.1, interval_step=0, interval_max=0.1, timeout=timeout
        )
        channel = conn.channel()
        try:
            for name in sorted(names):
                try:
                    out[name] = channel.queue_declare(queue=name, passive=True).message_count
                except ChannelError:  # not declared yet (e.g. Redis restarted empty): empty
                    out[name] = 0
        finally:
            channel.close()
    return out


def _metrics_token_ok() -> bool:
    """Whether the request's ``Authorization: Bearer`` is the metrics token (constant time)."""
    token = current_app.config.get("SOVA_METRICS_TOKEN")
    auth = request.headers.get("Authorization", "")
    return bool(
        token
        and auth.startswith("Bearer ")
        and hmac.compare_digest(auth[7:].encode(), str(token).encode())
    )


def _metrics_allowed() -> bool:
    if _metrics_token_ok():
        return True
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def metrics_text() -> bytes:
    """The exposition: this process's (or, in multiprocess mode, the host's) metrics plus
    the scrape-time gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)
    extra = CollectorRegistry()
    extra.register(OwedCollector())
    return body + generate_latest(extra)


def readiness() -> tuple[dict, bool]:
    """``({"database": "ok"|"unavailable", "broker": …}, all ok)``."""
    from sqlalchemy import text

    state = {}
    try:
        db.session.execute(text("SELECT 1"))
        db.session.rollback()
        state["database"] = "ok"
    except Exception:
        db.session.rollback()
        state["database"] = "unavailable"
    try:
        queue_lengths()
        state["broker"] = "ok"
    except Exception:
        state["broker"] = "unavailable"
    return state, all(v == "ok" for v in state.values())


def init_observability(app: Flask) -> None:
    """Request ids, request metrics, ``/metrics`` and ``/readyz`` on ``app``; logging."""
    configure_logging(app)

    @app.before_request
    def _start():
        rid = clean_request_id(request.headers.get(REQUEST_ID_HEADER)) or uuid.uuid4().hex
        g.request_id, g.request_started = rid, time.perf_counter()
        g.request_id_token = REQUEST_ID.set(rid)

    @app.after_request
    def _finish(response):
        rid = g.get("request_id")
        if rid:
            response.headers[REQUEST_ID_HEADER] = rid
        endpoint, method, status = request_labels(response.status_code)
        HTTP_REQUESTS.labels(endpoint, method, status).inc()
        started = g.get("request_started")
        if started is not None:
            HTTP_SECONDS.labels(endpoint).observe(time.perf_counter() - started)
        return response

    @app.teardown_request
    def _reset(_exc=None):
        token = g.pop("request_id_token", None)
        if token is not None:
            REQUEST_ID.reset(token)

    @access("public")
    def metrics():
        """Prometheus metrics (see module doc); loopback or the metrics token only: 403
        otherwise (declared public: the guard is the network, not a staff role). A
        credential that is presented and not the token is 401, from anywhere."""
        if "Authorization" in request.headers and not _metrics_token_ok():
            body = {"error": {"code": 401, "message": "metrics: invalid token"}}
            return jsonify(body), 401, {"WWW-Authenticate": "Bearer"}
        if not _metrics_allowed():
            return jsonify({"error": {"code": 403, "message": "metrics: forbidden"}}), 403
        return Response(metrics_text(), mimetype=CONTENT_TYPE_LATEST)

    @access("public")
    def readyz():
        """Readiness: the database and the broker answer (200) or not (503)."""
        state, ok = readiness()
        return jsonify(status="ready" if ok else "unavailable", **state), 200 if ok else 503

    for view in (metrics, readyz):
        view.talisman_view_options = {"force_https": False}
    app.add_url_rule("/metrics", "metrics", metrics, methods=["GET"])
    app.add_url_rule("/readyz", "readyz", readyz, methods=["GET"])
