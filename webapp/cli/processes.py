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
from webapp.core.transaction import transactional
from webapp.resources import package_dir


@click.command("worker")
@click.option("--concurrency", default=2, show_default=True)
def worker(concurrency):
    """Run a Celery worker (and nothing else; ``webapp.tasks.celery.WORKER_FLAGS``)."""
    from webapp.tasks.celery import WORKER_FLAGS

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
    from webapp.tasks.outbox import relay_forever

    click.echo(f"outbox relay: polling every {interval}s, up to {batch} messages a poll")
    relay_forever(interval=interval, limit=batch)


@outbox.command("status")
@with_appcontext
def outbox_status():
    """Print what is owed (JSON): outbox rows waiting for the broker, tasks handed over
    and not done (in flight, overdue, given up), questions without their pre-check,
    documents pending, e-mails being sent and in doubt (webapp.tasks.owed.owed_status)."""
    from webapp.tasks.owed import owed_status

    click.echo(json.dumps(owed_status()))


@outbox.command("reconcile")
@with_appcontext
def outbox_reconcile():
    """Once, now: send again the tasks the broker lost and queue overdue owed work (what
    the beat's ``outbox.reconcile`` does every minute). Prints the counts (JSON)."""
    from webapp.tasks.owed import reconcile

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
@transactional()
def precheck_stale(dry_run, batch):
    """Queue `moderation.precheck` again for every question in review without a report of
    the current check version (run after an upgrade that changes the checks)."""
    from tqdm import tqdm

    from webapp.moderation.models import PRECHECK_VERSION
    from webapp.moderation.queries import stale_precheck_ids
    from webapp.moderation.tasks import PRECHECK
    from webapp.tasks.outbox import commit, enqueue

    ids = stale_precheck_ids()
    if dry_run:
        click.echo(f"{len(ids)} question(s) without a version {PRECHECK_VERSION} pre-check")
        return
    with tqdm(total=len(ids), unit="q", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            for qid in chunk:
                enqueue(PRECHECK, qid)
            # Kept on purpose: one transaction per batch keeps the progress of a long run
            # (an interrupted run has queued whole batches; running it again queues the
            # rest, pre-checks being idempotent) and sends each batch to the broker.
            commit()
            bar.update(len(chunk))
    click.echo(f"queued the version {PRECHECK_VERSION} pre-check for {len(ids)} question(s)")


#: ``sova run``: seconds a process has, after the SIGTERM of a stop, to end by itself (the
#: worker's warm shutdown finishes its running tasks) before its process group is killed.
STOP_GRACE = 30.0


def _relay_output(process, events) -> None:
    """The body of honcho's per-process helper (a forked child of ``sova run``): run the
    Procfile command and relay its output. It ignores SIGINT and SIGTERM (honcho's choice)
    and SIGHUP too, so a closed terminal reaches only ``sova run``, which stops everything;
    the command itself gets the default SIGHUP back before it starts."""
    import functools
    import signal

    from honcho.process import Popen

    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    process._child_ctor = functools.partial(
        Popen, preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL)
    )
    process.run(events, True)


def run_manager(grace: float = STOP_GRACE):
    """A honcho ``Manager`` that stops its processes the way Sova's need: on SIGINT, SIGTERM
    or SIGHUP (or when one process exits) it sends SIGTERM to each process itself — the
    Celery worker then makes its warm shutdown and stops its own pool (honcho's default
    signals the whole process group: the pool processes died under the running tasks with
    ERROR lines) — and gives them ``grace`` seconds (honcho: 5) before SIGKILL of their
    process groups, counted from the signal even when no process has stopped yet. Every
    Procfile command ``exec``s its program, so the process signalled is the program, not a
    shell that would die and leave it behind."""
    import multiprocessing
    import signal
    import threading

    import honcho.manager
    from honcho.compat import ProcessManager
    from honcho.manager import Manager

    honcho.manager.KILL_WAIT = grace

    class Stopper(ProcessManager):
        def terminate(self, pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    class RunManager(Manager):
        def __init__(self):
            super().__init__()
            self._procmgr = Stopper()
            self._deadline = None

        def _start(self):
            for name, p in self._processes.items():
                p["process"] = multiprocessing.Process(
                    name=name, target=_relay_output, args=(p["obj"], self.events)
                )
                p["process"].start()

        def terminate(self):
            if self._deadline is None:  # SIGKILL after the grace whatever happens
                self._deadline = threading.Timer(grace, self.kill)
                self._deadline.daemon = True
                self._deadline.start()
            super().terminate()

        def loop(self):
            def hang_up(_signum, _frame):
                self._system_print("SIGHUP received\n")
                self.returncode = 129
                self.terminate()

            signal.signal(signal.SIGHUP, hang_up)
            try:
                super().loop()
            finally:
                if self._deadline is not None:
                    self._deadline.cancel()

    return RunManager()


def _sigterm_when_parent_ends() -> None:
    """Linux ``prctl(PR_SET_PDEATHSIG, SIGTERM)``: this process gets SIGTERM when its parent
    ends (also if it already has). Elsewhere nothing."""
    import ctypes
    import signal

    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


@click.command("run")
@click.option(
    "--grace",
    default=STOP_GRACE,
    show_default=True,
    type=click.FloatRange(1, 600),
    help="Seconds each process has to stop by itself before it is killed.",
)
@click.option(
    "--stop-with-parent",
    is_flag=True,
    help="Stop (as on SIGTERM) when the process that started sova run ends, and end a "
    "stop by a signal with exit status 0 (make run).",
)
@with_appcontext
def run_all(grace, stop_with_parent):
    """Web, worker and beat together (the package's Procfile + honcho); Ctrl-C stops all
    three. The processes run in the instance folder with this interpreter's ``bin`` first on
    PATH, so they are this installation's whatever the current directory. On SIGINT
    (Ctrl-C), SIGTERM or SIGHUP every process is stopped (SIGTERM: the worker's warm
    shutdown) and, after GRACE seconds, killed; ``sova run`` ends after them (exit 130, 143,
    129). With --stop-with-parent (Linux), the end of the parent process (``make run``
    stopped by a signal make does not pass on) is a SIGTERM, and a stop by a signal ends
    with status 0: the parent is make, which reports any other status as an error («make:
    *** [run] Error 130» after a Ctrl-C that stopped everything cleanly); a process that
    failed still ends ``sova run`` with its own status."""
    from flask import current_app
    from honcho.environ import expand_processes, parse_procfile

    procfile = parse_procfile((package_dir() / "Procfile").read_text())
    bindir = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([bindir, os.environ.get("PATH", "")])
    # the children build their own app: they must find the same instance folder
    instance = current_app.config["SOVA_INSTANCE_PATH"]
    os.environ["SOVA_INSTANCE_PATH"] = instance
    manager = run_manager(grace)
    if stop_with_parent:
        _sigterm_when_parent_ends()
    for process in expand_processes(procfile.processes):  # web.1, worker.1, beat.1
        manager.add_process(process.name, process.cmd, env=os.environ | process.env, cwd=instance)
    manager.loop()
    code = manager.returncode or 0
    if stop_with_parent and code > 128:  # 128 + the signal: stopped, as asked
        code = 0
    sys.exit(code)


def _check_database() -> dict:
    from sqlalchemy import text

    from webapp.extensions import db

    try:
        db.session.execute(text("SELECT 1"))
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": str(exc).splitlines()[0][:200]}
    finally:
        db.session.rollback()


def _check_broker(timeout: float) -> dict:
    from flask import current_app

    celery = current_app.extensions["celery"]
    try:
        with celery.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout)
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": str(exc).splitlines()[0][:200] if str(exc) else repr(exc)}


def _check_beats(role: str, max_age: float, node: str | None = None) -> dict:
    """Heartbeat rows of ``role`` (``worker``/``beat``): ok when one (``node``'s, if given)
    is younger than ``max_age`` seconds."""
    from webapp.tasks.heartbeat import read

    try:
        rows = read(role)
    except Exception as exc:
        return {"ok": False, "error": str(exc).splitlines()[0][:200], "nodes": []}
    if node:
        rows = [r for r in rows if r["node"] == node]
    nodes = [
        {k: r[k] for k in ("node", "pid", "busy", "age_seconds")}
        | {"alive": r["age_seconds"] <= max_age}
        for r in rows
    ]
    return {"ok": any(n["alive"] for n in nodes), "nodes": nodes}


def _relay_beat(max_age: float) -> dict:
    import time

    from webapp.tasks.outbox import heartbeat_path

    path = heartbeat_path("relay")
    age = time.time() - path.stat().st_mtime if path.exists() else None
    return {
        "relay": str(path),
        "alive": age is not None and age <= max_age,
        "age_seconds": round(age, 1) if age is not None else None,
    }


@click.group("health", invoke_without_command=True)
@click.option(
    "--max-age",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds after which a heartbeat is stale (without a subcommand).",
)
@click.option(
    "--timeout",
    default=3.0,
    show_default=True,
    type=click.FloatRange(0.1, 60),
    help="Seconds to wait for the broker (without a subcommand).",
)
@click.pass_context
@with_appcontext
def health(ctx, max_age, timeout):
    """Liveness of the processes (exit 0 alive, 1 not; JSON on stdout). Without a
    subcommand, everything: the database, the broker, a worker and the beat (their
    heartbeats in the database) and, when the web does not send tasks itself
    (SOVA_OUTBOX_AUTOSEND=0), this host's relay."""
    if ctx.invoked_subcommand is not None:
        return
    from flask import current_app

    checks = {"database": _check_database(), "broker": _check_broker(timeout)}
    checks["worker"] = _check_beats("worker", max_age)
    checks["beat"] = _check_beats("beat", max_age)
    if not current_app.config.get("SOVA_OUTBOX_AUTOSEND"):
        relay = _relay_beat(max_age)
        checks["relay"] = {"ok": relay["alive"], "age_seconds": relay["age_seconds"]}
    healthy = all(c["ok"] for c in checks.values())
    click.echo(json.dumps({"healthy": healthy, "checks": checks}))
    sys.exit(0 if healthy else 1)


@health.command("worker")
@click.option("--node", default=None, help="Celery node name (default: celery@<this host>).")
@click.option(
    "--max-age",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    help="Seconds since the worker's last heartbeat.",
)
@click.option("--timeout", default=None, hidden=True, help="Accepted and ignored (older scripts).")
@with_appcontext
def health_worker(node, max_age, timeout):
    """Alive when the worker NODE's heartbeat in the database (written every
    SOVA_HEARTBEAT_SECONDS by its main process, also while its pool renders; any broker)
    is younger than MAX_AGE seconds."""
    import socket

    node = node or f"celery@{socket.gethostname()}"
    result = _check_beats("worker", max_age, node)
    row = result["nodes"][0] if result["nodes"] else None
    out = {
        "worker": node,
        "alive": result["ok"],
        "age_seconds": row["age_seconds"] if row else None,
        "busy": row["busy"] if row else None,
    }
    if "error" in result:
        out["error"] = result["error"]
    click.echo(json.dumps(out))
    sys.exit(0 if result["ok"] else 1)


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
    relay = _relay_beat(max_age)
    click.echo(json.dumps(relay))
    sys.exit(0 if relay["alive"] else 1)
