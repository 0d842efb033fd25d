"""The season API (contracts/api.md): ``GET /api/v1/seasons/{id}``,
``POST /api/v1/seasons/{id}/events``, ``GET /api/v1/seasons/{id}/protocol``; closing a game
adds its result; a game the season's rules do not allow now is refused with the clause."""

from __future__ import annotations

import io

import pypdf

from tests.webapp.games import helpers as h
from tests.webapp.games.season_driver import SeasonRun, game_events

R23 = "000_90d7c8192601ed3a.txt"
R09 = "002_e025d5ded135c1c4.txt"
SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
OPEN = {"type": "series", "part": "spring", "qualifying": 5, "closing": "series_final"}


def _spring(api) -> SeasonRun:
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    return run


def test_state_after_the_series_opens_is_exact(api):
    run = _spring(api)
    r = run.event(OPEN)
    assert r.status_code == 201
    assert r.json == {
        "state": {
            "ruleset": "2023",
            "series": {
                "part": "spring",
                "qualifying_played": 0,
                "qualifying": 5,
                "closing": "series_final",
            },
            "rating": SPRING,
            "next": {"kind": "qualifying", "team": "Королёва"},
            "order": ["Королёва", "Потапова", "Стишенок", "Буян", "Орлова"],
            "series_best": None,
            "rules": {
                "points_to_win": 6,
                "club_help": 1,
                "decisive_round": True,
                "credit_minute": True,
                "losses_to_out": 2,
            },
            "amendments": [],
            "finals": [],
            "winter": [],
            "out": [],
            "history": [],
        }
    }
    got = run.state()
    assert got == {"id": run.id, "name": "Сезон 2023", **r.json["state"]}
    r = api("get", f"/api/v1/seasons/{run.id}/protocol", role="producer")
    assert r.json == {
        "format": "sova.season-protocol/1",
        "ruleset": "2023",
        "teams": SPRING,
        "events": [OPEN],
    }


def test_refusals_are_409_with_the_clause_and_store_nothing(api):
    run = _spring(api)
    assert run.event(OPEN).status_code == 201
    r = run.event({"type": "series", "part": "summer", "qualifying": 5, "closing": "series_final"})
    assert r.status_code == 409
    assert r.json == {
        "error": {
            "event": 1,
            "rule": f"{R23} §4.1",
            "message": "летняя серия не открывается: весенняя серия ещё не окончена — ни одна "
            "из 5 отборочных игр ещё не сыграна (п. 4.1 Правил сезона 2023 г.)",
        }
    }
    # malformed events are refused in Russian too (rule null)
    r = run.event({"type": "withdraw", "team": "Нет такой"})
    assert (r.status_code, r.json) == (
        409,
        {"error": {"event": 1, "rule": None, "message": "команды «Нет такой» нет в сезоне"}},
    )
    r = run.event({"type": "amend", "set": {}, "note": ""})
    assert r.json["error"]["message"] == "изменение правил не названо: поле «set» пусто"
    # a result only comes from closing a game
    r = run.event({"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"})
    assert r.status_code == 409 and r.json["error"]["rule"] is None
    # an entering team must exist first (a captain and six experts)
    r = run.event({"type": "enter", "team": "Нет такой", "as": "reserve"})
    assert r.status_code == 409 and r.json["error"]["rule"] is None
    r = api("get", f"/api/v1/seasons/{run.id}/protocol", role="host")
    assert r.json["events"] == [OPEN]
    # the initial rating is fixed once the season has events
    r = api(
        "post",
        f"/api/v1/seasons/{run.id}/teams",
        role="producer",
        json={"name": "Поздние", "captain": "А", "experts": list("АБВГДЕ")},
    )
    assert r.status_code == 409


def test_game_out_of_the_order_is_refused_at_creation_4_8(api):
    run = _spring(api)
    run.event(OPEN)
    r = run.create_game("qualifying", "Орлова")
    assert r.status_code == 409
    assert r.json == {
        "error": {
            "event": 1,
            "rule": f"{R23} §4.8",
            "message": "«Орлова» играет не в свою очередь: 1-ю отборочную игру весенней серии "
            "играет «Королёва» (первой играет команда с последнего места рейтинга, последней — "
            "с первого) (п. 4.8 Правил сезона 2023 г.)",
        }
    }
    r = run.create_game("series_final", "Королёва")
    assert r.status_code == 409 and r.json["error"]["rule"] == f"{R23} §4.1"
    assert run.create_game("qualifying", "Королёва").status_code == 201


def test_closing_a_game_adds_its_result_and_moves_the_rating(api):
    run = _spring(api)
    run.event(OPEN)
    gid = run.play({"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"})
    state = run.state()
    assert state["rating"] == ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"]
    assert state["next"] == {"kind": "qualifying", "team": "Потапова"}
    assert state["series_best"] == {"team": "Королёва", "score": "6:3"}
    assert state["history"] == [
        {
            "event": 1,
            "team": "Королёва",
            "kind": "qualifying",
            "score": "6:3",
            "rating_after": state["rating"],
        }
    ]
    r = api("get", f"/api/v1/seasons/{run.id}/protocol", role="producer")
    assert r.json["events"][1] == {
        "type": "game",
        "kind": "qualifying",
        "team": "Королёва",
        "score": "6:3",
        "decisive_round": False,
    }
    # the game's context now comes from the season: the next qualifying game must pass 6:3
    r = run.create_game("qualifying", "Потапова")
    gid2 = r.json["id"]
    g = api("get", f"/api/v1/games/{gid2}", role="producer").json
    assert g["protocol"]["context"]["series_best"] == "6:3"
    # the closed game keeps the context it was played with (nobody before it)
    g1 = api("get", f"/api/v1/games/{gid}", role="producer").json
    assert g1["protocol"]["context"]["series_best"] is None


def test_close_refused_by_the_season_rolls_back_409(api, app):
    """A game created while allowed, but the season moved on: its close is refused with the
    clause and nothing is written (the game stays finished, no prize, no season event)."""
    from tests.webapp.games import helpers as h

    run = _spring(api)
    run.event(OPEN)
    first = run.create_game("qualifying", "Королёва").json["id"]
    twin = run.create_game("qualifying", "Королёва").json["id"]
    run.games.clear()
    for gid in (first, twin):
        h.approved_questions_more(17)
        assert api("post", f"/api/v1/games/{gid}/assign", role="producer").status_code == 200
        for ev in game_events("6:3"):
            assert (
                api("post", f"/api/v1/games/{gid}/events", role="host", json=ev).status_code == 201
            )
    assert api("post", f"/api/v1/games/{first}/close", role="producer").status_code == 200
    r = api("post", f"/api/v1/games/{twin}/close", role="producer")
    assert r.status_code == 409
    assert r.json["error"]["rule"] == f"{R23} §4.8"
    g = api("get", f"/api/v1/games/{twin}", role="producer").json
    assert g["status"] == "finished"
    assert (
        len(api("get", f"/api/v1/seasons/{run.id}/protocol", role="producer").json["events"]) == 2
    )


def test_access(api):
    run = _spring(api)
    assert api("get", f"/api/v1/seasons/{run.id}").status_code == 401
    assert api("get", f"/api/v1/seasons/{run.id}", role="editor").status_code == 403
    assert (
        run.api("post", f"/api/v1/seasons/{run.id}/events", role="host", json=OPEN).status_code
        == 403
    )
    assert api("get", "/api/v1/seasons/999999", role="host").status_code == 404


def test_2009_table_plan_is_refused_at_creation(api):
    """2009 §1.3, §1.4.2–1.4.3: validate_table calls the domain's check_plan."""
    sid = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "Сезон 2009", "ruleset": "2009", "unanswered_prize": "1000.00"},
    ).json["id"]

    def create(table):
        return api(
            "post",
            "/api/v1/games",
            role="producer",
            json={"season_id": sid, "kind": "qualifying", "date": "2009-03-01", "table": table},
        )

    r = create({"blitz": None, "superblitz": 5, "sector13": 7})
    assert r.status_code == 422
    assert r.json == {
        "errors": {
            "table.sector13": [
                "по правилам 2009 вопросы из Интернета играют в 13-м секторе (п. 1.3 Правил сезона 2009 г.)"
            ]
        }
    }
    r = create({"blitz": 13, "superblitz": 5, "sector13": None})
    assert r.status_code == 422
    assert r.json == {
        "errors": {
            "table.blitz": [
                "по правилам 2009 блиц — один из двенадцати секторов с письмами, не 13-й "
                "(п. 1.4.3 Правил сезона 2009 г.)"
            ]
        }
    }
    assert create({"blitz": 4, "superblitz": 5, "sector13": 13}).status_code == 201


def test_amendment_through_the_api_and_every_stored_game_replays_the_same(api, login, drain):
    """2023 §4.12.1: ``amend`` is a producer's event; a game takes the rules in force at its
    first event and keeps them in its protocol, so every stored game replays as before."""
    from webapp.domain.books import BOOKS
    from webapp.domain.rules import load_protocol, load_protocol_rules, replay

    run = _spring(api)
    run.run([OPEN, {"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"}])
    # a game created before the amendment but not started takes the new rules at its start
    r = run.create_game("qualifying", "Потапова")
    assert r.status_code == 201
    waiting = r.json["id"]
    before = {gid: api("get", f"/api/v1/games/{gid}", role="host").json for gid, _ in run.games}
    amend = {"type": "amend", "set": {"points_to_win": 7}, "note": "объявил ведущий в эфире"}
    r = run.event(amend)
    assert r.status_code == 201, r.json
    assert r.json["state"]["rules"] == {
        "points_to_win": 7,
        "club_help": 1,
        "decisive_round": True,
        "credit_minute": True,
        "losses_to_out": 2,
    }
    assert r.json["state"]["amendments"] == [
        {"event": 2, "set": {"points_to_win": 7}, "note": "объявил ведущий в эфире"}
    ]
    # the same amendment again changes nothing: refused citing §4.12.1, nothing stored
    again = run.event(amend)
    assert (again.status_code, again.json) == (
        409,
        {
            "error": {
                "event": None,
                "rule": f"{R23} §4.12.1",
                "message": "правила не меняются: очков для победы в игре — уже 7 "
                "(п. 4.12.1 Правил сезона 2023 г.)",
            }
        },
    )
    # refused by the parameter table: 409 citing §4.12.1, nothing stored
    r = run.event({"type": "amend", "set": {"losses_to_out": 0}, "note": ""})
    assert r.status_code == 409
    assert r.json == {
        "error": {
            "event": 3,
            "rule": f"{R23} §4.12.1",
            "message": "изменение правил не принято: поражений до выбытия из сезона: допустимо "
            "не меньше 1, получено 0 (п. 4.12.1 Правил сезона 2023 г.)",
        }
    }
    # Потапова's game goes to 7
    h.approved_questions_more(17)
    assert api("post", f"/api/v1/games/{waiting}/assign", role="producer").status_code == 200
    # the host cards print the rules the game will take; the envelopes (read by the
    # experts) do not
    note = (
        "Правила этой игры изменены (п. 4.12.1 Правил сезона 2023 г.): очков для победы в игре — 7."
    )
    r = api("post", f"/api/v1/games/{waiting}/envelopes", role="producer", json={"copies": 1})
    assert r.status_code == 202, r.json
    drain()
    printed = {}
    for doc in api("get", f"/api/v1/games/{waiting}/documents", role="producer").json["items"]:
        pdf = api("get", doc["url"], role="producer")
        assert pdf.status_code == 200
        reader = pypdf.PdfReader(io.BytesIO(pdf.data))
        printed[doc["kind"]] = " ".join(reader.pages[0].extract_text().split())
    assert note in printed["host_cards"]
    assert "Правила этой игры" not in printed["envelopes"]
    state = None
    for n, ev in enumerate(game_events("7:3")):
        r = api("post", f"/api/v1/games/{waiting}/events", role="host", json=ev)
        assert r.status_code == 201, (ev, r.json)
        state = r.json["state"]
        if n == 0:
            # a game under way: a second amendment waits until it is closed
            refused = run.event({"type": "amend", "set": {"credit_minute": False}})
            assert refused.status_code == 409 and refused.json["error"]["rule"] is None
    assert (state["score"], state["finished"]) == ("7:3", True)
    # the host's console says the game's rules differ from the book's
    page = login("host").get(f"/games/{waiting}/console").get_data(as_text=True)
    assert (
        '<p id="console-rules" class="note">Правила этой игры изменены (п. 4.12.1 Правил '
        "сезона 2023 г.): очков для победы в игре — 7.</p>"
    ) in page
    assert api("post", f"/api/v1/games/{waiting}/close", role="producer").status_code == 200
    season = run.state()
    assert season["rating"] == ["Потапова", "Королёва", "Орлова", "Буян", "Стишенок"]
    assert [h_["score"] for h_ in season["history"]] == ["6:3", "7:3"]
    # every stored game: the same state as before the amendment, and its exported protocol
    # replays (as ``sova game replay`` does) to the state the product shows
    for gid, _ in run.games:
        after = api("get", f"/api/v1/games/{gid}", role="host").json
        assert after["state"] == before[gid]["state"]
        assert "rules" not in after["protocol"]
    new = api("get", f"/api/v1/games/{waiting}", role="host").json
    assert new["protocol"]["rules"] == {"points_to_win": 7}
    for game in [*before.values(), new]:
        data = game["protocol"]
        assert (
            replay(*load_protocol(data, BOOKS), rules=load_protocol_rules(data, BOOKS))
            == game["state"]
        )
    # the OpenAPI document lists the event
    doc = api("get", "/api/v1/openapi.json").json
    schema = doc["components"]["schemas"]["SeasonEventIn"]
    assert "amend" in schema["properties"]["type"]["enum"]
    assert set(schema["properties"]) >= {"type", "set", "note"}
