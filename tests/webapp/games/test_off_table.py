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


def _two_games_of_one_team():
    """A 2023 season, «Команда Анны» (h.EXPERTS) and two of its games, 1 and 8 March, each
    table filled and startable on the console; returns the two ids."""
    from webapp.games.operations import assign_envelopes

    season, team = h.season(), h.team()
    ids = []
    for day in (1, 8):
        h.approved_questions_more(15) if ids else h.approved_questions(15)
        g = h.game(season, day, team_=team, table=_PLAN, status="draft")
        assign_envelopes(g)
        h.startable(g)
        ids.append(g.id)
    h.commit()
    return ids


_PLAN = {"blitz": 4, "superblitz": None, "sector13": 13}
JSON = {"Accept": "application/json"}


def _form(client, gid: int, event_type: str, **match):
    """The console's form of ``event_type`` (and ``match`` among its fields) as a browser
    sends it untouched, and the options of its «expert» select (``(value, text, disabled)``)."""
    import re

    from tests.forms import page_forms

    html = client.get(f"/games/{gid}/console").get_data(as_text=True)
    forms = [
        f
        for f in page_forms(html)
        if f.fields.get("type") == event_type
        and all(f.fields.get(k) == v for k, v in match.items())
    ]
    assert len(forms) == 1, html
    blocks = re.findall(r'<form method="post"[^>]*class="action">(.*?)</form>', html, re.S)
    block = next(
        b
        for b in blocks
        if f'name="type" value="{event_type}"' in b
        and all(f'name="{k}" value="{v}"' in b for k, v in match.items())
    )
    options = re.findall(r'<option value="([^"]*)"( disabled)?>([^<]*)</option>', block)
    return forms[0], [(value, text, bool(off)) for value, off, text in options]


def test_the_console_names_the_hinter_and_the_next_game_keeps_him_off(login):
    """2023 §3.7.3 on the console, through the forms it renders: the red card names the
    expert who hinted, chosen from the team's experts; the team's next game shows him off
    the table, does not let him be chosen as answering and refuses a form that names him,
    citing the clause; after the team's right answer he is back."""
    first, second = _two_games_of_one_team()
    client = login("host")
    spin, _ = _form(client, first, "spin")
    assert client.post(spin.action, data={**spin.fields, "sector": "1"}).status_code == 302
    card, options = _form(client, first, "red_card")
    assert options == [("", "не указан", False)] + [(n, n, False) for n in h.EXPERTS]
    assert card.fields["expert"] == ""  # untouched: nobody named
    refused = client.post(card.action, data={**card.fields, "expert": "Вася"}, headers=JSON)
    assert refused.status_code == 422
    assert refused.json["error"]["text"] == (
        "«Вася» — не знаток этой команды (знатоки: Анна, Борис, Вера, "
        "Глеб, Дина, Ефим): выберите из списка"
    )
    assert refused.json["console"]["events"] == 1  # nothing recorded
    done = client.post(card.action, data={**card.fields, "expert": "Вера"}, headers=JSON)
    assert done.status_code == 200 and done.json["console"]["score"] == "0:1"
    assert done.json["console"]["last_event"]["label"] == "Красная карточка: подсказал Вера"
    from webapp.extensions import db
    from webapp.games.models import Game

    db.session.expire_all()
    assert db.session.get(Game, first).events[-1].payload == {"type": "red_card", "expert": "Вера"}

    # the team's next game
    html = client.get(f"/games/{second}/console").get_data(as_text=True)
    assert "не за столом (подсказка, п. 3.7.3 Правил сезона 2023 г.): Вера" in html
    spin, _ = _form(client, second, "spin")
    client.post(spin.action, data={**spin.fields, "sector": "1"})
    right, options = _form(client, second, "answer", correct="true")
    assert options == [("", "не указан", False)] + [
        (n, n + " (не за столом, п. 3.7.3 Правил сезона 2023 г.)", True)
        if n == "Вера"
        else (n, n, False)
        for n in h.EXPERTS
    ]
    refused = client.post(right.action, data={**right.fields, "expert": "Вера"}, headers=JSON)
    assert refused.status_code == 409
    assert refused.json["error"]["rule"] == f"{R23} §3.7.3"
    assert refused.json["error"]["text"] == (
        "Знаток «Вера» подсказывал (красная карточка) и начинает эту игру не за столом: "
        "вернётся за стол после верного ответа команды. (п. 3.7.3 Правил сезона 2023 г.)"
    )
    assert refused.json["console"]["events"] == 1
    # without JavaScript the flash says the same
    client.post(right.action, data={**right.fields, "expert": "Вера"})
    html = client.get(f"/games/{second}/console").get_data(as_text=True)
    assert "Отказано: Знаток «Вера» подсказывал (красная карточка)" in html
    ok = client.post(right.action, data={**right.fields, "expert": "Анна"}, headers=JSON)
    assert ok.status_code == 200 and ok.json["console"]["off_table"] == []
    spin, _ = _form(client, second, "spin")
    client.post(spin.action, data={**spin.fields, "sector": "2"})
    right, options = _form(client, second, "answer", correct="true")
    assert options == []  # nobody off the table: the answer names nobody
