"""The gateway simulator (``sova vote simulate``) against a real HTTP server on localhost:
the tally it expects is exactly the server's."""

from __future__ import annotations

import json
import threading

import pytest
from werkzeug.serving import make_server

from tests.webapp.votes.helpers import SECRET, open_vote
from webapp.votes.simulate import endpoint, plan, send

SQLITE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


@pytest.fixture
def server(app):
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


def test_plan_shares_and_expected_counts():
    p = plan(1000, SECRET, candidates=3, seed=7)
    e = p.expected()
    assert (e["repeats"], e["invalid"], e["resent"], e["rejected_badsig"]) == (100, 10, 10, 10)
    assert e["counted"] == 870 == sum(e["votes"].values())
    assert len(p.messages) == 1000
    with pytest.raises(ValueError):
        plan(10, SECRET, repeats=0.6, invalid=0.5)
    assert endpoint("http://127.0.0.1:5000") == ("http", "127.0.0.1", 5000, "/api/v1/votes/sms")
    with pytest.raises(ValueError):
        endpoint("file:///etc/passwd")


@SQLITE
def test_simulate_cli_tally_equals_expected(app, api, server, finished_game):
    gid = finished_game()
    open_vote(api, gid)
    result = app.test_cli_runner().invoke(
        args=[
            "vote",
            "simulate",
            "--url",
            server,
            "--secret",
            SECRET,
            "--rate",
            "0",
            "--total",
            "400",
            "--concurrency",
            "4",
            "--seed",
            "3",
        ]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    expected, seen = lines[0]["expected"], lines[1]["seen"]
    assert seen["failed"] == 0 and seen["answers"]["401"] == expected["rejected_badsig"] == 4
    vote = api("get", f"/api/v1/games/{gid}/vote", role="host").json["vote"]
    assert {str(c["n"]): c["votes"] for c in vote["candidates"] if c["votes"]} == (
        expected["votes"]
    )
    assert (vote["counted"], vote["repeats"], vote["invalid"], vote["late"]) == (
        expected["counted"],
        expected["repeats"],
        expected["invalid"],
        0,
    )


@SQLITE
def test_send_says_when_each_answer_came(app, api, server, finished_game):
    """``answered_at`` holds, beside each latency, when its answer came (seconds from the
    start): the burst's course is read from it segment by segment."""
    open_vote(api, finished_game())
    p = plan(60, SECRET, seed=5, repeats=0, invalid=0, resent=0, badsig=0)
    report = send(server, p.messages, concurrency=3)
    assert report.answers == {"counted": 60} and report.failed == 0
    assert len(report.answered_at) == len(report.latencies_ms) == 60
    assert all(0 < t <= report.seconds for t in report.answered_at)
    # an answer comes after its own latency has passed since the start
    assert all(
        t * 1000 >= ms for t, ms in zip(report.answered_at, report.latencies_ms, strict=True)
    )


@SQLITE
def test_simulate_cli_bad_arguments_exit_2(app):
    result = app.test_cli_runner().invoke(
        args=["vote", "simulate", "--url", "ftp://x", "--secret", "s", "--total", "5"]
    )
    assert result.exit_code == 2 and "not an http(s) URL" in result.output


@SQLITE
def test_simulate_cli_says_no_vote_is_open(app, server, finished_game):
    """With no vote open every message is answered ``late``: the simulator says so on
    stderr and exits 1 (the tally cannot match)."""
    finished_game()
    result = app.test_cli_runner().invoke(
        args=["vote", "simulate", "--url", server, "--secret", SECRET, "--rate", "0"]
        + ["--total", "3", "--repeats", "0", "--invalid", "0", "--resent", "0"]
        + ["--badsig", "0", "--seed", "1"]
    )
    seen = json.loads(result.stdout.splitlines()[1])["seen"]
    assert seen["answers"] == {"late": 3}
    assert result.stderr.strip() == (
        "Голосование в этой игре не открыто: все сообщения засчитаны как поздние (late). "
        "Откройте голосование и повторите."
    )
    assert result.exit_code == 1
