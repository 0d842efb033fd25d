"""The host's minute taps (game protocol ``minute``) through the API: stamped with the
server's clock whatever the console sent, refused before the first spin, kept in the
game's protocol file, and ignored by the rules (``sova game replay`` of the exported file
gives the same state)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from tests.webapp.games import helpers as h


def test_minute_taps_are_stamped_by_the_server_and_replay_the_same(app, api, login, tmp_path):
    s = h.season()
    g = h.game(s, 1)
    h.commit()
    url = f"/api/v1/games/{g.id}/events"
    early = api("post", url, role="host", json={"type": "minute", "action": "start"})
    assert early.status_code == 409
    assert early.json["error"] == {
        "event": 0,
        "rule": None,
        "message": "минута обсуждения отмечается по вопросу: сначала вращение волчка",
    }
    assert api("post", url, role="host", json={"type": "spin", "sector": 3}).status_code == 201
    before = datetime.now(UTC)
    start = api(
        "post",
        url,
        role="host",
        json={"type": "minute", "action": "start", "at": "1999-01-01T00:00:00+00:00"},
    )
    after = datetime.now(UTC)
    assert start.status_code == 201
    bad = api("post", url, role="host", json={"type": "minute", "action": "pause"})
    assert (bad.status_code, bad.json["error"]["message"]) == (
        409,
        "minute.action — одно из: start, stop; получено 'pause'",
    )
    assert (
        api("post", url, role="host", json={"type": "minute", "action": "stop"}).status_code == 201
    )
    # the console offers to undo the last tap by its name
    console = login("host").get(f"/games/{g.id}/console").get_data(as_text=True)
    assert "Минута обсуждения: остановлена" in console
    answered = api("post", url, role="host", json={"type": "answer", "correct": False})
    assert answered.json["state"]["score"] == "0:1"

    protocol = api("get", f"/api/v1/games/{g.id}", role="host").json["protocol"]
    taps = [e for e in protocol["events"] if e["type"] == "minute"]
    assert [t["action"] for t in taps] == ["start", "stop"]
    stamped = datetime.fromisoformat(taps[0]["at"])
    assert before - timedelta(seconds=1) <= stamped <= after + timedelta(seconds=1)
    assert stamped.utcoffset() == timedelta(0)

    path = tmp_path / "game.json"
    path.write_text(json.dumps(protocol), encoding="utf-8")
    replayed = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", "game", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == answered.json["state"]
