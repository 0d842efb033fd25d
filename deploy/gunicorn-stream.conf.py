"""gunicorn settings of the on-air stream service (docs/operations.md, «Эфирная графика»):
`gunicorn -c /etc/sova/gunicorn-stream.conf.py "webapp:create_app()"`, behind nginx's route
of the on-air feed, `/api/v1/games/<id>/onair/stream` and `…/onair.json` (deploy/nginx.conf).
The same app as the web; only the worker class differs: `gthread`, so a held stream (an
overlay waiting for the next row) holds one thread of this service waiting on a condition —
no web sync worker, no database connection — and a change wakes every stream of the game at
once; vMix's polls are answered here too, never queued before the host's taps on the web."""

import os

bind = os.environ.get("SOVA_STREAM_BIND", "127.0.0.1:8001")
worker_class = "gthread"
# one process: one Redis subscription and one replay per change for all its streams
workers = int(os.environ.get("SOVA_STREAM_WORKERS", 1))
# the streams one process holds at once (a thread each: its stack, no CPU while
# idle); a connection beyond them waits in the backlog until a stream ends
threads = int(os.environ.get("SOVA_STREAM_THREADS", 256))
# room beyond the threads for kept-alive connections waiting for their next request
worker_connections = threads + 64
# a held stream ends by itself within webapp.onair.live.HOLD_SECONDS (EventSource
# reconnects); gthread's main thread keeps the heartbeat, so `timeout` does not cut streams
timeout = 30
graceful_timeout = 5
keepalive = 5
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = "127.0.0.1"


def child_exit(server, worker):
    """prometheus-client multiprocess mode: drop the live gauges of a worker that exited."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
