"""``sova season replay`` run for real: the installed command in a fresh process, without
the app's configuration, in an empty working directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sova_season_replay(path: Path, tmp_path: Path) -> tuple[int, dict]:
    """Run the real command in a fresh process whose configuration would make building the
    Flask app fail (production without secrets), in an empty working directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOVA_")}
    env.update(
        SOVA_ENV="production", SOVA_INSTANCE_PATH=str(tmp_path / "instance"), PYTHONPATH=str(ROOT)
    )
    workdir = tmp_path / "cwd"
    workdir.mkdir(exist_ok=True)
    run = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", "season", "replay", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=60,
    )
    assert list(workdir.iterdir()) == [], "the command wrote a file"
    assert not (tmp_path / "instance").exists(), "the command built the app's instance"
    return run.returncode, json.loads(run.stdout)
