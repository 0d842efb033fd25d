"""``sova run`` ends every process it started, whatever stops it.

A real ``sova run`` (web, worker and beat from the package's Procfile, on a copy of the
session's migrated SQLite database and the embedded broker) is sent SIGINT (Ctrl-C),
SIGTERM (a service manager) or SIGHUP (a closed terminal). It must exit with the signal's
code, after the worker's warm shutdown (no pool process killed under it, no ERROR line, no
SIGKILL), and leave no process behind: every process it had started (found through the
process tree before the signal) is gone. ``make run`` runs ``sova run --stop-with-parent``:
when its parent is killed outright (make does not pass SIGTERM on), it stops the same way,
and a Ctrl-C under it ends with status 0 (make would report 130 as its own error).
Slow: five starts of three processes.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import descendants, free_port, process_alive, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SOVA = str(Path(sys.executable).parent / "sova")


@pytest.mark.parametrize(
    ("signum", "code", "under_make"),
    [
        (signal.SIGINT, 130, False),
        (signal.SIGTERM, 143, False),
        (signal.SIGHUP, 129, False),
        (None, None, True),
        (signal.SIGINT, 0, True),  # make run's Ctrl-C: a clean stop, not make's «Error 130»
    ],
    ids=["SIGINT", "SIGTERM", "SIGHUP", "parent-killed", "make-run-ctrl-c"],
)
def test_sova_run_stops_everything_it_started(signum, code, under_make, tmp_path, sqlite_template):
    from cryptography.fernet import Fernet

    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copy(sqlite_template, instance / "sova.sqlite")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOVA_")}
    env.update(
        SOVA_INSTANCE_PATH=str(instance),
        SOVA_PORT=str(free_port()),
        SOVA_SECRET_KEY="run-test-" + "k" * 32,
        SOVA_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        PYTHONUNBUFFERED="1",
    )
    log_path = tmp_path / "run.log"
    with open(log_path, "wb") as log:
        command = [SOVA, "run"] + (["--stop-with-parent"] if under_make else [])
        if signum is None:  # its parent to kill: a shell, as make's recipe line
            command = ["sh", "-c", f"{' '.join(command)}; :"]
        run = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_for(
            lambda: all(
                mark in log_path.read_text(errors="replace")
                for mark in (" ready.", "beat: Starting...", "Running on http://127.0.0.1")
            ),
            240,
            "web, worker and beat to be up",
            every=0.5,
        )
        time.sleep(1)
        started = descendants(run.pid)
        # honcho's three relays, the three programs and the worker's two pool processes
        assert len(started) >= 8, started
        if signum is None:
            run.kill()  # the parent dies without a word
            run.wait(10)
        else:
            run.send_signal(signum)
            assert run.wait(90) == code
        wait_for(lambda: not any(process_alive(p) for p in started), 90, "every process to end")
    finally:
        for pid in descendants(run.pid) | {run.pid}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        run.wait(30)
    text = log_path.read_text(errors="replace")
    assert "Warm shutdown" in text
    assert "ERROR" not in text and "SIGKILL" not in text
    for name in ("web.1", "worker.1", "beat.1"):
        assert f"{name} stopped" in text
