"""Lighthouse (mobile profile, Debian's Chromium) on the archive: the list and a game page
score at least 95 in performance, accessibility, best practices and SEO. Slow (a Lighthouse
run takes seconds of CPU) and needs ``npx lighthouse``: skipped without it. The scores measured
are in docs/performance.md."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
LIGHTHOUSE = ["npx", "--yes", "lighthouse@12"]


@pytest.fixture
def game_id(live_server):
    from tests.webapp.archive.rows import aired_archive_game

    return aired_archive_game(live_server.app)


def lighthouse(url: str, out) -> dict[str, int]:
    """``{category: score 0..100}`` of one Lighthouse run on ``url`` (mobile, the default)."""
    chromium = shutil.which("chromium")
    if not chromium or not shutil.which("npx"):
        pytest.skip("Lighthouse needs npx and Debian's chromium")
    report = out / "report.json"
    cmd = [
        *LIGHTHOUSE,
        url,
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox",
        "--output=json",
        f"--output-path={report}",
        "--quiet",
    ]
    env = {**os.environ, "CHROME_PATH": chromium}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not report.exists():
        pytest.skip(f"Lighthouse did not run: {done.stderr[-500:]}")
    data = json.loads(report.read_text())
    return {c: round(data["categories"][c]["score"] * 100) for c in CATEGORIES}


@pytest.mark.slow
def test_archive_pages_score_95_in_every_category(live_server, game_id, tmp_path):
    scores = {
        path: lighthouse(f"{live_server.url}{path}", tmp_path)
        for path in ("/archive", f"/archive/games/{game_id}")
    }
    print(json.dumps(scores))
    for path, by_category in scores.items():
        assert min(by_category.values()) >= 95, (path, by_category)
