"""The benchmarks that drive the application's own code (``make bench``) still run: each
one's ``--quick`` size as a process, every line a JSON object naming its figure, no page
answering an error.
They import the features inside their functions, so a moved function would break ``make
bench`` without failing any other test."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("bench", ["scale", "staff_lists", "exports", "archive_import"])
def test_the_bench_runs_at_its_quick_size(bench, tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", f"tests.bench.{bench}", "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert lines and all(isinstance(line.get("bench"), str) for line in lines)
    assert not [line for line in lines if line.get("status", 200) >= 400]


def test_a_bench_stopped_by_a_signal_runs_its_cleanup(tmp_path):
    """A bench killed by ``kill`` or ``timeout`` stops the servers it started (in sessions
    of their own): SIGTERM becomes SystemExit in its main thread, so its ``finally`` runs."""
    ready, cleaned = tmp_path / "ready", tmp_path / "cleaned"
    script = (
        "import pathlib, time\n"
        "from tests.bench.stopping import stop_cleanly_on_sigterm\n"
        "stop_cleanly_on_sigterm()\n"
        "try:\n"
        f"    pathlib.Path({str(ready)!r}).touch()\n"
        "    time.sleep(60)\n"
        "finally:\n"
        f"    pathlib.Path({str(cleaned)!r}).write_text('stopped the servers')\n"
    )
    bench = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        for _ in range(200):
            if ready.exists():
                break
            time.sleep(0.05)
        bench.terminate()
        assert bench.wait(20) == 143
    finally:
        bench.kill()
    assert cleaned.read_text() == "stopped the servers"
