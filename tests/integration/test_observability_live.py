"""Observability with real processes: gunicorn with two workers in
prometheus-client's multiprocess mode adds up the requests of both in /metrics; a request id
sent with a submission shows in the JSON log lines of the real Celery worker that runs its
tasks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import free_port, wait_for

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_gunicorn_workers_share_one_metrics_exposition(tmp_path):
    from flask_migrate import upgrade

    from webapp.app import create_app

    instance = tmp_path / "instance"
    env = dict(
        os.environ,
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_BROKER_URL="memory://",
        SOVA_DATABASE_URL=f"sqlite:///{tmp_path / 'sova.sqlite'}",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "prom"),
        SOVA_WEB_WORKERS="2",
        SOVA_BIND=f"127.0.0.1:{free_port()}",
    )
    (tmp_path / "prom").mkdir()
    app = create_app({k: v for k, v in env.items() if k.startswith("SOVA_")})
    with app.app_context():
        upgrade(revision="heads")
    base = f"http://{env['SOVA_BIND']}"
    with open(tmp_path / "gunicorn.log", "w") as errors:  # the child keeps its copy
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "deploy/gunicorn.conf.py",
                "webapp:create_app()",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:

        def up():
            try:
                return urllib.request.urlopen(f"{base}/healthz", timeout=2).status == 200
            except OSError:
                return False

        wait_for(up, 60, "gunicorn up")
        for _ in range(30):
            with urllib.request.urlopen(f"{base}/readyz", timeout=5) as resp:
                assert json.load(resp) == {"status": "ready", "database": "ok", "broker": "ok"}
        with urllib.request.urlopen(f"{base}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        line = next(
            x
            for x in text.splitlines()
            if x.startswith('sova_http_requests_total{endpoint="readyz",method="GET",status="200"}')
        )
        assert float(line.split()[-1]) == 30.0
        pids = {p.name.split("_")[-1].split(".")[0] for p in (tmp_path / "prom").glob("*.db")}
        assert len(pids) >= 1
    finally:
        proc.terminate()
        proc.wait(20)


def test_request_id_follows_a_submission_into_the_worker_log(faults):
    app, workers, _ = faults
    workers.env["SOVA_LOG_FORMAT"] = "json"
    workers.env.pop("SOVA_SMTP_URL", None)  # the e-mail is written to the log
    workers.start()
    resp = app.test_client().post(
        "/api/v1/submissions",
        headers={"X-Request-ID": "trace-16"},
        json={
            "question": "Какой город называют северной столицей России? Назовите его, пожалуйста.",
            "answer": "Петроград",
            "consent": True,
            "authors": [{"name": "Иван Петров", "city": "Минск"}],
            "email": "trace@example.org",
        },
    )
    assert resp.status_code == 201 and resp.headers["X-Request-ID"] == "trace-16"
    log = workers.tmp / "worker0.log"

    def traced():
        lines = [
            json.loads(x) for x in log.read_text(errors="replace").splitlines() if x.startswith("{")
        ]
        return [
            x
            for x in lines
            if x.get("request_id") == "trace-16" and x.get("logger") == "sova.notify"
        ]

    found = wait_for(traced, 60, "the worker's log line with the request id")
    assert "no SMTP configured" in found[0]["message"]
    time.sleep(0.5)
