"""Observability: request ids into the outbox, /metrics (content and who may read
it), /readyz, JSON logs, ``sova health relay|worker``. The multi-process exposition under
gunicorn and the request id in a real worker's log: tests/integration/test_observability_live.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from webapp.core.models import OutboxMessage
from webapp.extensions import db

ROOT = Path(__file__).resolve().parents[2]
BODY = {
    "question": "Какой город называют северной столицей России? Назовите его, пожалуйста.",
    "answer": "Петроград",
    "authors": [{"name": "Иван Петров", "city": "Минск"}],
    "email": "metrics@example.org",
    "consent": True,
}


def _sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_request_id_is_echoed_and_stored_on_the_tasks_it_queues(app, client):
    resp = client.post("/api/v1/submissions", json=BODY, headers={"X-Request-ID": "sub-42.a"})
    assert resp.status_code == 201 and resp.headers["X-Request-ID"] == "sub-42.a"
    rows = db.session.execute(
        db.select(OutboxMessage.task, OutboxMessage.request_id).order_by(OutboxMessage.id)
    ).all()
    assert rows == [("moderation.precheck", "sub-42.a"), ("notify.received", "sub-42.a")]
    made = client.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    rid = made.headers["X-Request-ID"]
    assert len(rid) == 32 and int(rid, 16) >= 0  # refused: a fresh uuid4 hex instead


def test_metrics_counts_requests_and_reads_owed_work(app, client):
    app.extensions["celery"].control.purge()  # the in-memory broker is per process
    before = _sample("sova_http_requests_total", endpoint="healthz", method="GET", status="200")
    for _ in range(3):
        assert client.get("/healthz").status_code == 200
    assert client.post("/api/v1/submissions", json=BODY).status_code == 201
    resp = client.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    text = resp.get_data(as_text=True)
    assert (
        _sample("sova_http_requests_total", endpoint="healthz", method="GET", status="200")
        == before + 3
    )
    assert 'sova_owed{what="waiting"} 2.0' in text  # the pre-check and the e-mail
    assert 'sova_owed{what="questions_received"} 1.0' in text
    assert 'sova_owed{what="mail_in_doubt"} 0.0' in text
    assert 'sova_queue_length{queue="celery"} 0.0' in text  # nothing handed over yet
    assert "sova_broker_up 1.0" in text
    assert "sova_http_request_duration_seconds_bucket" in text
    from webapp.tasks.outbox import relay_pending

    assert relay_pending() == 2
    text = client.get("/metrics").get_data(as_text=True)
    assert 'sova_queue_length{queue="celery"} 2.0' in text  # handed over, waiting for a worker
    assert 'sova_owed{what="waiting"} 0.0' in text and 'sova_owed{what="in_flight"} 2.0' in text


def test_metrics_only_from_loopback_or_with_the_token(make_app):
    app = make_app(SOVA_METRICS_TOKEN="s3cret-token")
    client = app.test_client()
    outside = {"REMOTE_ADDR": "10.1.2.3"}
    assert client.get("/metrics", environ_base=outside).status_code == 403
    # a credential that is presented and not valid: 401, also from the loopback
    for where in (outside, {"REMOTE_ADDR": "127.0.0.1"}):
        wrong = client.get(
            "/metrics", environ_base=where, headers={"Authorization": "Bearer wrong"}
        )
        assert wrong.status_code == 401 and wrong.headers["WWW-Authenticate"] == "Bearer"
    ok = client.get(
        "/metrics", environ_base=outside, headers={"Authorization": "Bearer s3cret-token"}
    )
    assert ok.status_code == 200 and b"sova_owed" in ok.data
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    tokenless = make_app().test_client()
    assert (
        tokenless.get(
            "/metrics", environ_base=outside, headers={"Authorization": "Bearer "}
        ).status_code
        == 401
    )


def test_readyz_checks_the_database_and_the_broker(make_app):
    ready = make_app().test_client().get("/readyz")
    assert ready.status_code == 200
    assert ready.get_json() == {"status": "ready", "database": "ok", "broker": "ok"}
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = make_app(SOVA_BROKER_URL=f"redis://127.0.0.1:{port}/0").test_client().get("/readyz")
    assert down.status_code == 503
    assert down.get_json() == {"status": "unavailable", "database": "ok", "broker": "unavailable"}
    metrics = make_app(SOVA_BROKER_URL=f"redis://127.0.0.1:{port}/0").test_client()
    assert "sova_broker_up 0.0" in metrics.get("/metrics").get_data(as_text=True)


@pytest.mark.slow
def test_json_logs_carry_the_request_id(tmp_path):
    script = "\n".join(
        [
            "import logging, sys",
            "from webapp.app import create_app",
            "app = create_app({'SOVA_INSTANCE_PATH': sys.argv[1], 'SOVA_BROKER_URL': 'memory://'})",
            "with app.test_request_context(headers={'X-Request-ID': 'trace-7'}):",
            "    app.preprocess_request()",
            "    logging.getLogger('sova.test').warning('дошло')",
        ]
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "instance")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, SOVA_LOG_FORMAT="json"),
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    line = next(json.loads(x) for x in run.stderr.splitlines() if "sova.test" in x)
    assert line["logger"] == "sova.test" and line["level"] == "WARNING"
    assert line["message"] == "дошло" and line["request_id"] == "trace-7" and line["time"]


def test_health_relay_reads_the_heartbeat(app):
    from webapp.tasks.outbox import heartbeat_path, relay_forever

    runner = app.test_cli_runner()
    missing = runner.invoke(args=["health", "relay"])
    assert missing.exit_code == 1 and json.loads(missing.output)["alive"] is False
    relay_forever(interval=0.01, rounds=1)
    alive = runner.invoke(args=["health", "relay"])
    assert alive.exit_code == 0, alive.output
    assert json.loads(alive.output)["alive"] is True
    old = time.time() - 120
    os.utime(heartbeat_path("relay"), (old, old))
    stale = runner.invoke(args=["health", "relay", "--max-age", "30"])
    assert stale.exit_code == 1 and json.loads(stale.output)["age_seconds"] >= 119


def test_health_worker_without_a_worker_is_not_alive(app):
    out = app.test_cli_runner().invoke(args=["health", "worker", "--timeout", "0.5"])
    assert out.exit_code == 1
    assert json.loads(out.output)["alive"] is False


def _http_series() -> set[tuple]:
    """Every series of the request metrics in this process: ``(sample name, labels)``."""
    return {
        (s.name, tuple(sorted(s.labels.items())))
        for family in REGISTRY.collect()
        if family.name.startswith("sova_http_")
        for s in family.samples
    }


@pytest.mark.slow
def test_invented_methods_and_paths_add_no_series(app, client):
    """10 000 anonymous requests with invented methods (``FOOBAR12``) and paths, and with
    standard methods on invented paths, add only a handful of series, every label from a
    fixed set (``webapp.observability.request_labels``): the endpoint a URL rule's name or
    ``unknown``, the method a standard one or ``other``, the status code. (Before, each
    invented method was a series of its own: 10 000 requests, thousands of series.)"""
    import random
    import string

    from webapp.observability import HTTP_METHODS

    rnd = random.Random(31)
    before = _http_series()
    real = ["/", "/login", "/editor/queue", "/api/v1/submissions"]
    standard = ["GET", "POST", "DELETE"]

    def word(chars: str, n: int) -> str:
        return "".join(rnd.choices(chars, k=n))

    for i in range(10_000):
        invented = word(string.ascii_uppercase + string.digits, rnd.randint(3, 12))
        method = rnd.choice(standard) if i % 5 == 0 else invented
        invented_path = "/".join(
            word(string.ascii_lowercase + string.digits + "-._", 8)
            for _ in range(rnd.randint(1, 3))
        )
        # most under /api/ (a JSON 404 costs less than the error page)
        path = rnd.choice(real) if i % 7 == 0 else f"/api/v1/{invented_path}"
        if i % 10 == 0:
            path = f"/{invented_path}"
        client.open(path, method=method)
    new = _http_series() - before
    counted = {
        (d["endpoint"], d["method"], d["status"])
        for name, labels in new
        if name == "sova_http_requests_total"
        for d in [dict(labels)]
    }
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()} | {"unknown"}
    assert {e for e, _m, _s in counted} <= endpoints
    assert {m for _e, m, _s in counted} <= HTTP_METHODS | {"other"}
    assert {("unknown", "other", "404"), ("unknown", "other", "405")} <= counted
    assert len(counted) <= 16, sorted(counted)
    # the duration histogram is labelled by endpoint only: at most the same few endpoints
    timed = {dict(labels)["endpoint"] for _name, labels in new}
    assert timed <= {e for e, _m, _s in counted}
