"""Protocol file export and import (contracts/game-protocol.md)."""

from __future__ import annotations

import io
import json

import pytest
from werkzeug.http import parse_options_header

from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.models import GameEvent
from webapp.games.operations import GameConflict, import_protocol, record_event

TABLE = {"blitz": 4, "superblitz": None, "sector13": 13}
EVENTS = [
    {"type": "spin", "sector": 1},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 2},
    {"type": "answer", "correct": True, "early": True},
]


def test_export_then_import_into_an_empty_game(app, login):
    s = h.season()
    src = h.game(s, table=TABLE)
    for ev in EVENTS:
        record_event(src, ev, None)
    dst = h.game(s, 2, table=TABLE)
    h.commit()
    client = login("host")
    resp = client.get(f"/games/{src.id}/protocol.json")
    assert parse_options_header(resp.headers["Content-Disposition"]) == (
        "attachment",
        {"filename": f"Протокол игры — игра {src.id} — {src.air_date.isoformat()}.json"},
    )
    data = resp.json
    assert data == {
        "format": "sova.game-protocol/1",
        "ruleset": "2023",
        "table": TABLE,
        "context": {"series_best": None, "sector13_options_used": []},
        "events": EVENTS,
    }
    resp = client.post(
        f"/games/{dst.id}/protocol",
        data={"file": (io.BytesIO(json.dumps(data).encode()), "p.json")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "Протокол загружен: 4 событий, счёт 1:1." in resp.get_data(as_text=True)
    db.session.expire_all()
    assert [e.payload for e in dst.events] == data["events"]
    assert dst.status == "live"


def test_import_checks_every_event_and_writes_nothing_on_a_refusal(app, login):
    s = h.season()
    g = h.game(s, table=TABLE)
    h.commit()
    bad = {
        "format": "sova.game-protocol/1",
        "ruleset": "2023",
        "table": TABLE,
        "events": EVENTS[:2] + [{"type": "club_help"}],
    }
    client = login("producer")
    resp = client.post(
        f"/games/{g.id}/protocol",
        data={"file": (io.BytesIO(json.dumps(bad).encode()), "p.json")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    text = resp.get_data(as_text=True)
    assert "Протокол не загружен, событие 2: " in text
    assert "(п. 3.4 Правил сезона 2023 г.)" in text
    assert db.session.scalar(db.select(db.func.count()).select_from(GameEvent)) == 0
    resp = client.post(
        f"/games/{g.id}/protocol",
        data={"file": (io.BytesIO(b"\\xff not json"), "p.json")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert "это не JSON в UTF-8" in resp.get_data(as_text=True)
    resp = client.post(  # 5 000 nested arrays were a RecursionError and a 500
        f"/games/{g.id}/protocol",
        data={"file": (io.BytesIO(b"[" * 5000 + b"]" * 5000), "p.json")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert resp.status_code == 200
    assert "Протокол не загружен: слишком глубокая вложенность JSON." in resp.get_data(as_text=True)
    resp = client.post(  # a Russian page says the refusal in Russian, not the engine's English
        f"/games/{g.id}/protocol",
        data={
            "file": (io.BytesIO(b'{"format": "sova.game-protocol/1", "ruleset": "2023"}'), "p.json")
        },
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    text = resp.get_data(as_text=True)
    assert "Протокол не загружен: файл не в формате протокола игры «Совы»." in text
    assert "protocol needs" not in text


def test_import_refuses_other_rules_tables_and_played_games(app):
    s = h.season()
    g = h.game(s, table=TABLE)
    base = {"format": "sova.game-protocol/1", "ruleset": "2023", "table": TABLE, "events": EVENTS}
    with pytest.raises(GameConflict) as exc:
        import_protocol(g, dict(base, ruleset="2009"), None)
    assert str(exc.value) == "файл — по правилам 2009, а игра — по правилам 2023"
    with pytest.raises(GameConflict) as exc:
        import_protocol(g, dict(base, table={"blitz": 5}), None)
    assert str(exc.value).startswith("стол в файле {'blitz': 5")
    with pytest.raises(GameConflict) as exc:
        import_protocol(g, dict(base, format="x"), None)
    assert exc.value.error == {
        "event": None,
        "rule": None,
        "message": "format must be 'sova.game-protocol/1', got 'x'",
    }
    assert import_protocol(g, base, None)["score"] == "1:1"
    with pytest.raises(GameConflict) as exc:
        import_protocol(g, base, None)
    assert "уже есть события: протокол загружается в пустую игру" in str(exc.value)
