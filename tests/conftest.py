"""The suite's markers and reports; the fixtures live in ``tests/fixtures/`` (one module per
kind of object: the app, users, played games, services, shared data, speed-ups)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# --- bytecode: written, whatever the calling environment says ------------------------
# With PYTHONDONTWRITEBYTECODE set (some shells and sandboxes set it; the Makefile unexports
# it for `make test`, a bare `pytest` keeps it), pytest rewrote the assertions of every test
# module again in each xdist worker (7 of a worker's 12 CPU s of collection), and every
# process the tests start (a `sova` command, a worker, gunicorn) compiled Sova from source.
# The test modules imported after this line and those processes keep their bytecode.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# --- assertions: rewritten in the helper modules too ----------------------------------
# A test module imports nothing from another test module (tests/test_layout.py); the checks
# and data builders several test modules share live in helper modules, some of them whole
# test bodies (tests/webapp/prizes/paperwork.py). pytest rewrites the asserts of test modules
# and conftests only: registered here, before any of them is imported, a failing assert in a
# helper module reports its values as it did when it sat in the test module. Every module and
# package of tests/ but the package itself and this conftest (both imported already).
pytest.register_assert_rewrite(
    *sorted(
        f"tests.{path.stem}"
        for path in Path(__file__).resolve().parent.iterdir()
        if path.stem not in ("__init__", "conftest", "__pycache__")
        and (path.suffix == ".py" or (path.is_dir() and any(path.glob("*.py"))))
    )
)


# --- markers -------------------------------------------------------------------
# ``e2e`` and ``integration`` by directory, ``integration`` also for every test that asks for
# a real PostgreSQL or Redis (``pg_url``, ``pg_app``, ``redis_url``); ``slow`` is set on the
# tests themselves. The full run (CI=true, as ``.ci/run`` sets, or SOVA_TEST_FULL=1) runs
# all; a local ``make test`` skips the ``slow`` ones, saying so (each covers at length what
# a fast test covers in small: the properties' many examples, the 100 000-glyph renders,
# the live health and ``sova run`` processes, the crawl of every page for file names);
# ``make test-fast`` also deselects ``e2e`` and ``integration``.

TESTS_DIR = Path(__file__).resolve().parent
SERVICE_FIXTURES = {"pg_url", "pg_app", "redis_url"}
SLOW_SKIPPED = "slow: runs in the full run (CI=true or SOVA_TEST_FULL=1)"


def pytest_collection_modifyitems(config, items):
    from tests.helpers import full_run

    skip_slow = None if full_run() else pytest.mark.skip(reason=SLOW_SKIPPED)
    for item in items:
        if skip_slow is not None and item.get_closest_marker("slow"):
            item.add_marker(skip_slow)
        parts = item.path.resolve().relative_to(TESTS_DIR).parts
        if parts[0] == "e2e":
            item.add_marker(pytest.mark.e2e)
        if parts[0] == "integration" or SERVICE_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.integration)


def pytest_terminal_summary(terminalreporter):
    """Say how many browser tests (tests/e2e, Chromium) were skipped and why, whenever any
    ran or was skipped: a machine without Chromium must not pass ``make test`` silently."""
    from collections import Counter

    def e2e(report) -> bool:
        return report.nodeid.replace("\\", "/").startswith("tests/e2e/") and report.when in (
            "setup",
            "call",
        )

    seen, skipped = set(), Counter()
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if not hasattr(report, "nodeid") or not e2e(report):
                continue
            seen.add(report.nodeid)
            if outcome == "skipped":
                longrepr = report.longrepr
                reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
                skipped[reason.removeprefix("Skipped: ")] += 1
    if not seen:
        return
    total = sum(skipped.values())
    line = f"browser tests (tests/e2e): {total} of {len(seen)} skipped"
    if skipped:
        line += ": " + "; ".join(f"{reason} ({n})" for reason, n in skipped.most_common())
    terminalreporter.write_line(line, yellow=bool(total), bold=bool(total))


# --- hypothesis: no per-example deadline ----------------------------------------
# Speed is the benchmarks' business, never a timed test's: hypothesis's default 200 ms per
# example failed a property (tests/webapp/games/test_draw.py) on a loaded machine.

from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("sova", deadline=None)
_hypothesis_settings.load_profile("sova")


# --- fixtures: one module per kind of object ---------------------------------------

pytest_plugins = [
    "tests.fixtures.shared_data",
    "tests.fixtures.speedups",
    "tests.fixtures.app",
    "tests.fixtures.users",
    "tests.fixtures.games",
    "tests.fixtures.services",
    "tests.fixtures.books",
    "tests.fixtures.faults",
]
