"""The benchmarks that drive the application's own code (``make bench``) still run: each
one's ``--quick`` size as a process, every line a JSON object naming its figure, no page
answering an error.
They import the features inside their functions, so a moved function would break ``make
bench`` without failing any other test."""

from __future__ import annotations

import json
import subprocess
import sys
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
