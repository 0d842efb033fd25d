"""The API walkthrough of docs/api.md («A whole game through the API, step by step») run as
a newcomer runs it: its shell block, with bash, curl and jq, against a Sova server on
127.0.0.1 seeded by ``sova seed-demo``, with tokens the server issued. What it prints is
what the page says it prints."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- walkthrough -->\n```sh\n(.*?)```\n<!-- /walkthrough -->", re.S)


def _walkthrough() -> str:
    found = BLOCK.findall((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert len(found) == 1, "docs/api.md has one walkthrough block"
    return found[0]


@pytest.fixture
def server(make_app):
    """A seeded Sova on a free port of 127.0.0.1 (werkzeug, threaded) and two tokens."""
    from werkzeug.serving import make_server

    from webapp.accounts.models import User
    from webapp.accounts.operations import issue_token
    from webapp.extensions import db
    from webapp.tasks.outbox import commit

    app = make_app()
    seeded = app.test_cli_runner().invoke(args=["seed-demo"])
    assert seeded.exit_code == 0, seeded.output
    with app.app_context():
        tokens = {}
        for role in ("producer", "host"):
            user = db.session.scalar(db.select(User).filter_by(email=f"{role}@sova.local"))
            tokens[role] = issue_token(user)
        commit()
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", tokens
    finally:
        httpd.shutdown()
        thread.join(timeout=5)


def test_the_documented_api_walkthrough_plays_a_game_to_its_prizes(server):
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the walkthrough needs {', '.join(missing)}")
    url, tokens = server
    env = {"PATH": "/usr/bin:/bin", "SOVA": url, "PRODUCER": tokens["producer"]}
    env["HOST"] = tokens["host"]
    script = _walkthrough()
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "17"
    assert lines[1:7] == [f"{n}:2 finished={str(n == 6).lower()}" for n in range(1, 7)]
    assert lines[7:9] == ["unanswered_question 300.00 BYN"] * 2
    assert len(lines) == 11
    assert [re.sub(r"S\d+-", "S<season>-", line) for line in lines[9:]] == [
        "owed S<season>-0001",
        "owed S<season>-0002",
    ]
    # run again: a season of its own name; the pool (50) fills this second table too
    again = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[:2] == ["17", "1:2 finished=false"]
    # a refusal stops it with the server's answer: a token that is no token
    refused = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env={**env, "PRODUCER": "not-a-token"},
    )
    assert refused.returncode != 0 and refused.stdout == ""
    assert '{"error":{"code":401' in refused.stderr.replace(" ", "")
