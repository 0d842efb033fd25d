"""A fresh machine: ``make install`` checks the system packages (deploy/system-deps) and
``make test`` says how many browser tests it skipped and why.

The script runs with stand-in ``dpkg``, ``id`` and ``apt-get`` first on PATH (a machine
missing the emoji font and chromium): as a user it stops with the one command to run; as
root with apt-get it installs exactly the missing packages. The summary line comes from a
real pytest run of one browser test file on a PATH without chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "system-deps"


def _stand_ins(tmp_path: Path, uid: int) -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    scripts = {
        "dpkg": 'case "$2" in fonts-noto-color-emoji|chromium) exit 1;; *) exit 0;; esac',
        "id": f"echo {uid}",
        "apt-get": f'echo "$@" >> {tmp_path / "apt.log"}',
    }
    for name, body in scripts.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}:/usr/bin:/bin", SOVA_SKIP_SYSTEM_DEPS="0")


def test_missing_packages_stop_make_install_with_the_one_command(tmp_path):
    run = subprocess.run(
        ["sh", str(SCRIPT)], env=_stand_ins(tmp_path, 1000), capture_output=True, text=True
    )
    assert run.returncode == 1
    assert run.stderr == (
        "system-deps: missing system packages: fonts-noto-color-emoji chromium\n"
        "Run this, then make again:\n"
        "  sudo apt-get install -y fonts-noto-color-emoji chromium\n"
    )
    assert not (tmp_path / "apt.log").exists()


def test_root_with_apt_installs_exactly_what_is_missing(tmp_path):
    run = subprocess.run(
        ["sh", str(SCRIPT)], env=_stand_ins(tmp_path, 0), capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "system-deps: apt-get install fonts-noto-color-emoji chromium\n"
    assert (tmp_path / "apt.log").read_text() == (
        "update -qq\ninstall -y -qq fonts-noto-color-emoji chromium\n"
    )


def test_nothing_missing_is_silent(tmp_path):
    env = _stand_ins(tmp_path, 1000)
    (tmp_path / "bin" / "dpkg").write_text("#!/bin/sh\nexit 0\n")
    run = subprocess.run(["sh", str(SCRIPT)], env=env, capture_output=True, text=True)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


@pytest.mark.slow
def test_make_test_says_how_many_browser_tests_it_skipped_and_why():
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = str(Path(sys.executable).parent)  # no chromium on it
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "tests/e2e/test_xss.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    collected = run.stdout.count("s", 0, run.stdout.index("\n"))
    assert collected > 0, run.stdout
    assert (
        f"browser tests (tests/e2e): {collected} of {collected} skipped: Debian chromium is "
        f"not installed (apt-get install chromium) ({collected})"
    ) in run.stdout, run.stdout
