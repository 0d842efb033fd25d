"""Benches that start servers stop them when they are stopped themselves."""

from __future__ import annotations

import signal
import sys


def stop_cleanly_on_sigterm() -> None:
    """Make SIGTERM and SIGHUP (``kill``, ``timeout``, a closed terminal) end this process
    as an exception in its main thread — ``SystemExit(128 + signal)`` — instead of at once,
    so that the bench's ``finally`` blocks and context managers stop the gunicorn servers
    and relays it started: those run in sessions of their own (``start_new_session``, so
    that they can be stopped as a group), which a signal to the bench's group never
    reaches."""

    def end(signum, _frame):
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGHUP, end)
