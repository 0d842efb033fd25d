"""The processes and what they owe: ``sova worker``, ``beat``, ``run``, ``outbox``,
``precheck``, ``health``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click
from flask.cli import with_appcontext

from webapp.cli import announce_instance
from webapp.resources import package_dir


@click.command("worker")
@click.option("--concurrency", default=2, show_default=True)
def worker(concurrency):
    """Run a Celery worker (and nothing else; ``webapp.celery.WORKER_FLAGS``)."""
    from webapp.celery import WORKER_FLAGS

    announce_instance()
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--loglevel=INFO",
            f"--concurrency={concurrency}",
            *WORKER_FLAGS,
        ],
    )


@click.command("beat")
def beat():
    """Run Celery beat (the outbox sweeper)."""
    announce_instance()
    os.execvp(
        sys.executable,
        [sys.executable, "-m", "celery", "-A", "workers.app", "beat", "--loglevel=INFO"],
    )


@click.group("outbox")
def outbox():
    """The transactional outbox (tasks requested by committed transactions)."""


@outbox.command("relay")
@click.option(
    "--interval",
    default=0.05,
    show_default=True,
    type=click.FloatRange(0.001, 60),
    help="Seconds between polls when nothing is waiting.",
)
@click.option(
    "--batch",
    default=500,
    show_default=True,
    type=click.IntRange(1, 10000),
    help="Most messages sent per poll.",
)
@with_appcontext
def outbox_relay(interval, batch):
    """Send committed outbox messages to the broker until stopped (run it beside the web
    server with SOVA_OUTBOX_AUTOSEND=0, so requests end at their commit)."""
    from webapp.jobs import relay_forever

    click.echo(f"outbox relay: polling every {interval}s, up to {batch} messages a poll")
    relay_forever(interval=interval, limit=batch)


@outbox.command("status")
@with_appcontext
def outbox_status():
    """Print what is owed (JSON): outbox rows waiting for the broker, tasks handed over
    and not done (in flight, overdue, given up), questions without their pre-check,
    documents pending, e-mails being sent and in doubt (webapp.owed.owed_status)."""
    from webapp.owed import owed_status

    click.echo(json.dumps(owed_status()))


@outbox.command("reconcile")
@with_appcontext
def outbox_reconcile():
    """Once, now: send again the tasks the broker lost and queue overdue owed work (what
    the beat's ``outbox.reconcile`` does every minute). Prints the counts (JSON)."""
    from webapp.owed import reconcile

    click.echo(json.dumps(reconcile()))


@click.group("precheck")
def precheck():
    """Pre-checks of questions awaiting a decision."""


@precheck.command("stale")
@click.option("--dry-run", is_flag=True, help="Only count; queue nothing.")
@click.option(
    "--batch",
    default=1000,
    show_default=True,
    type=click.IntRange(1, 100000),
    help="Questions queued per transaction.",
)
@with_appcontext
def precheck_stale(dry_run, batch):
    """Queue `moderation.precheck` again for every question in review without a report of
    the current check version (run after an upgrade that changes the checks)."""
    from tqdm import tqdm

    from webapp.jobs import commit, enqueue
    from webapp.moderation.models import PRECHECK_VERSION
    from webapp.moderation.queries import stale_precheck_ids

    ids = stale_precheck_ids()
    if dry_run:
        click.echo(f"{len(ids)} question(s) without a version {PRECHECK_VERSION} pre-check")
        return
    with tqdm(total=len(ids), unit="q", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            for qid in chunk:
                enqueue("moderation.precheck", qid)
            commit()
            bar.update(len(chunk))
    click.echo(f"queued the version {PRECHECK_VERSION} pre-check for {len(ids)} question(s)")


@click.command("run")
@with_appcontext
def run_all():
    """Web, worker and beat together (the package's Procfile + honcho); Ctrl-C stops all
    three. The processes run in the instance folder with this interpreter's ``bin`` first on
    PATH, so they are this installation's whatever the current directory."""
    from flask import current_app

    procfile = package_dir() / "Procfile"
    bindir = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
    # the children build their own app: they must find the same instance folder
    os.environ["SOVA_INSTANCE_PATH"] = current_app.config["SOVA_INSTANCE_PATH"]
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "honcho",
            "-f",
            str(procfile),
            "-d",
            current_app.config["SOVA_INSTANCE_PATH"],
            "start",
        ],
    )


@click.group("health")
def health():
    """Liveness of the worker and relay processes (exit 0 alive, 1 not; JSON on stdout)."""


@health.command("worker")
@click.option("--node", default=None, help="Celery node name (default: celery@<this host>).")
@click.option("--timeout", default=3.0, show_default=True, type=click.FloatRange(0.1, 60))
@with_appcontext
def health_worker(node, timeout):
    """Ping the worker through the broker (Celery's remote control): alive when it answers
    within TIMEOUT seconds."""
    import socket

    from flask import current_app

    node = node or f"celery@{socket.gethostname()}"
    try:
        replies = current_app.extensions["celery"].control.ping(destination=[node], timeout=timeout)
    except Exception as exc:  # the broker is down: the worker cannot be reached either
        click.echo(json.dumps({"worker": node, "alive": False, "error": str(exc)[:200]}))
        sys.exit(1)
    alive = any(node in reply for reply in replies)
    click.echo(json.dumps({"worker": node, "alive": alive}))
    sys.exit(0 if alive else 1)


@health.command("relay")
@click.option(
    "--max-age",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds since the relay's last successful poll.",
)
@with_appcontext
def health_relay(max_age):
    """Alive when this host's relay heartbeat file (<instance>/relay-<host>.heartbeat,
    touched after each successful poll) is younger than MAX_AGE seconds."""
    import time

    from webapp.jobs import heartbeat_path

    path = heartbeat_path("relay")
    age = time.time() - path.stat().st_mtime if path.exists() else None
    alive = age is not None and age <= max_age
    click.echo(
        json.dumps(
            {
                "relay": str(path),
                "alive": alive,
                "age_seconds": round(age, 1) if age is not None else None,
            }
        )
    )
    sys.exit(0 if alive else 1)
