"""2023 §3.7.3 across games: an expert who hinted (a red card naming him) starts his team's
next game off the table; the engine refuses his answer until the team's right answer and
the console shows who is off."""

from __future__ import annotations

from tests.webapp.games import helpers as h
from tests.webapp.games.season_driver import TABLE, experts_of, game_events

R23 = "000_90d7c8192601ed3a.txt"


def _game(api, season_id: int, team_id: int, day: str) -> int:
    gid = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": season_id,
            "kind": "qualifying",
            "date": day,
            "team_id": team_id,
            "table": TABLE,
        },
    ).json["id"]
    h.approved_questions_more(17)
    assert api("post", f"/api/v1/games/{gid}/assign", role="producer").status_code == 200
    return gid


def test_hinter_starts_the_next_game_off_the_table(api, client, login):
    season_id = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "Сезон 2023", "ruleset": "2023"}
    ).json["id"]
    team_id = api(
        "post",
        "/api/v1/teams",
        role="producer",
        json={
            "name": "Королёва",
            "captain": experts_of("Королёва")[0],
            "experts": experts_of("Королёва"),
        },
    ).json["team_id"]
    other_id = api(
        "post",
        "/api/v1/teams",
        role="producer",
        json={"name": "Буян", "captain": experts_of("Буян")[0], "experts": experts_of("Буян")},
    ).json["team_id"]
    hinter, guest = experts_of("Королёва")[2], experts_of("Буян")[1]
    first = _game(api, season_id, team_id, "2023-03-04")
    events = [
        {"type": "spin", "sector": 1},
        {"type": "red_card", "expert": hinter},
        {"type": "spin", "sector": 2},
        {"type": "red_card", "expert": guest, "team": "Буян"},
    ]
    events += game_events("6:2")[4:]
    for ev in events:
        r = api("post", f"/api/v1/games/{first}/events", role="host", json=ev)
        assert r.status_code == 201, r.json
    assert r.json["state"]["red_cards"] == [
        {"expert": hinter, "team": None},
        {"expert": guest, "team": "Буян"},
    ]
    second = _game(api, season_id, team_id, "2023-03-11")
    other = _game(api, season_id, other_id, "2023-03-18")
    ctx = api("get", f"/api/v1/games/{second}", role="producer").json["protocol"]["context"]
    assert ctx["off_table"] == [hinter]
    ctx = api("get", f"/api/v1/games/{other}", role="producer").json["protocol"]["context"]
    assert ctx["off_table"] == [guest]  # the guest hinted in another team's game
    api("post", f"/api/v1/games/{second}/events", role="host", json={"type": "spin", "sector": 1})
    login("host")
    page = client.get(f"/games/{second}/console").get_data(as_text=True)
    assert f"не за столом (подсказка, п. 3.7.3 Правил сезона 2023 г.): {hinter}" in page
    r = api(
        "post",
        f"/api/v1/games/{second}/events",
        role="host",
        json={"type": "answer", "correct": True, "expert": hinter},
    )
    assert r.status_code == 409
    assert r.json["error"]["rule"] == f"{R23} §3.7.3"
    for ev in (
        {"type": "answer", "correct": True, "expert": experts_of("Королёва")[0]},
        {"type": "spin", "sector": 2},
        {"type": "answer", "correct": True, "expert": hinter},
    ):
        r = api("post", f"/api/v1/games/{second}/events", role="host", json=ev)
        assert r.status_code == 201, r.json
    assert r.json["state"]["off_table"] == [] and r.json["state"]["score"] == "2:0"
    # the game after the next one: the hinter is back for good
    third = _game(api, season_id, team_id, "2023-03-25")
    ctx = api("get", f"/api/v1/games/{third}", role="producer").json["protocol"]["context"]
    assert "off_table" not in ctx
