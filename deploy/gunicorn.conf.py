"""gunicorn settings for production: `gunicorn -c /etc/sova/gunicorn.conf.py "webapp:create_app()"`
(deploy/Dockerfile and docs/operations.md copy this file to /etc/sova/)."""

import multiprocessing
import os

bind = os.environ.get("SOVA_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("SOVA_WEB_WORKERS", multiprocessing.cpu_count() * 2 + 1))
threads = 1
timeout = 30
graceful_timeout = 20
max_requests = 2000
max_requests_jitter = 200
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = "127.0.0.1"


def child_exit(server, worker):
    """prometheus-client multiprocess mode (PROMETHEUS_MULTIPROC_DIR set): drop the live
    gauges of a worker that exited (its counters stay counted)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
