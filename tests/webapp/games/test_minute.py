"""The host's minute taps (game protocol ``minute``) through the API: stamped with the
server's clock whatever the console sent, refused before the first spin, kept in the
game's protocol file, and ignored by the rules (``sova game replay`` of the exported file
gives the same state)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from tests.game_data import single_rounds
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


def test_the_console_taps_the_minute_next_to_the_answer_buttons(app, login):
    """The host's two taps, one form each, as the console page renders them: offered only
    while a question is open, right after the answer buttons; each records a ``minute``
    event stamped by the server."""
    from tests.forms import page_forms
    from webapp.extensions import db
    from webapp.games.models import GameEvent
    from webapp.games.operations import assign_envelopes

    h.approved_questions(15)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": 13}, status="draft")
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    client = login("host")
    url = f"/games/{g.id}/console"

    def minute_forms(page):
        return [f for f in page_forms(page) if f.fields.get("type") == "minute"]

    assert minute_forms(client.get(url).get_data(as_text=True)) == []  # before the spin
    assert client.post(url, data={"type": "spin", "sector": "3"}).status_code == 302
    page = client.get(url).get_data(as_text=True)
    start, stop = minute_forms(page)
    assert (start.fields["minute"], stop.fields["minute"]) == ("start", "stop")
    buttons = re.findall(r'data-type="(\w+)">([^<]+)</button>', page)
    assert buttons[:4] == [
        ("answer", "Верно"),
        ("answer", "Неверно"),
        ("minute", "Минута пошла"),
        ("minute", "Минута стоп"),
    ]
    before = datetime.now(UTC)
    assert client.post(start.action, data=start.fields).status_code == 302
    _, stop = minute_forms(client.get(url).get_data(as_text=True))  # the page after the tap
    assert client.post(stop.action, data=stop.fields).status_code == 302
    events = db.session.scalars(
        db.select(GameEvent.payload).where(GameEvent.game_id == g.id).order_by(GameEvent.seq)
    ).all()
    taps = [e for e in events if e["type"] == "minute"]
    assert [t["action"] for t in taps] == ["start", "stop"]
    assert datetime.fromisoformat(taps[0]["at"]) >= before - timedelta(seconds=1)
    assert "Отменить: Минута обсуждения: остановлена" in client.get(url).get_data(as_text=True)
    assert client.post(url, data={"type": "answer", "correct": "true"}).status_code == 302
    assert minute_forms(client.get(url).get_data(as_text=True)) == []  # the round is over


def test_no_minute_to_start_when_the_answer_must_be_early(app, login):
    """At 5:5 with the minute on credit not repaid the team answers early, with no minute
    of discussion (2023 §3.8.4): the console offers the two answer buttons «(досрочно)»
    and no minute tap for the graphics' countdown."""
    from webapp.games.operations import assign_envelopes, record_event

    h.approved_questions(20)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": 10, "sector13": None}, status="draft")
    assign_envelopes(g)
    h.startable(g)
    # 4:5, then the minute on credit won at 5:5
    events = single_rounds("EEEEVVVVV")
    events += [{"type": "spin", "sector": 11}, {"type": "credit_minute"}]
    events += [{"type": "answer", "correct": True}, {"type": "spin", "sector": 12}]
    for event in events:
        record_event(g, event, None)
    h.commit()
    page = login("host").get(f"/games/{g.id}/console").get_data(as_text=True)
    buttons = re.findall(r'data-type="(\w+)">([^<]+)</button>', page)
    assert buttons[:2] == [("answer", "Верно (досрочно)"), ("answer", "Неверно (досрочно)")]
    assert [kind for kind, _ in buttons].count("minute") == 0
