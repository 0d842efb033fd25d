"""A whole 2023 season and a whole 2009 season played through the API with real games:
every game created from the season, filled, recorded on the console path and closed (the
closing adds its result); the producer's events posted; then the final ratings, finalists,
out, winter and the prizes of the finals (2023 §4.11.2–4.11.4, 2009 §3.2–3.3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webapp.games.season_driver import SeasonRun, experts_of

pytestmark = pytest.mark.slow  # whole seasons through the API: the full run (the season engine and the season API have fast tests)

DATA = Path(__file__).resolve().parents[2] / "domain" / "data"
R23 = "000_90d7c8192601ed3a.txt"
R09 = "002_e025d5ded135c1c4.txt"


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _award(api, gid: int, kind: str, team: str):
    return api(
        "post",
        f"/api/v1/games/{gid}/prizes",
        role="producer",
        json={"kind": kind, "recipient": experts_of(team)[1], "team": experts_of(team)},
    )


def _finals(run: SeasonRun) -> dict[str, int]:
    return {
        f"{e['kind']}:{e['team']}:{e['score']}": gid
        for gid, e in run.games
        if e["kind"] in ("series_final", "year_final")
    }


def test_whole_2023_season_through_the_api(api):
    doc = _load("season_2023.json")
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(doc["teams"])
    run.run(doc["events"])
    state = run.state()
    assert state["rating"] == ["Антипов", "Мудрый", "Буян", "Королёва"]
    assert state["next"] is None
    assert state["finals"] == [
        {"part": "spring", "team": "Буян", "score": "6:2", "won": True},
        {"part": "summer", "team": "Свинтицкий", "score": "3:6", "won": False},
        {"part": "autumn", "team": "Мудрый", "score": "6:4", "won": True},
    ]
    assert state["winter"] == ["Буян", "Мудрый"]
    assert state["out"] == [
        {"team": "Борейко", "rule": f"{R23} §4.4"},
        {"team": "Свинтицкий", "rule": f"{R23} §4.4"},
    ]
    assert state["history"][-1] == {
        "event": 29,
        "team": "Антипов",
        "kind": "year_final",
        "score": "5:6",
        "rating_after": ["Антипов", "Мудрый", "Буян", "Королёва"],
    }
    # the stored protocol replays to the same state (the engine's file)
    protocol = api("get", f"/api/v1/seasons/{run.id}/protocol", role="producer").json
    assert protocol["teams"] == doc["teams"]
    assert [e["type"] for e in protocol["events"]] == [e["type"] for e in doc["events"]]
    # the prizes of the finals: the winners of the spring and autumn finals get the
    # best-participant prize (§4.11.2); the lost summer final and year final give none
    finals = _finals(run)
    r = _award(api, finals["series_final:Буян:6:2"], "best_participant_of_series", "Буян")
    assert r.status_code == 201, r.json
    assert [(p["kind"], p["amount"], p["currency"], p["rule"]) for p in r.json["prizes"]] == [
        ("best_participant_of_series", "2000.00", "BYN", f"{R23} §4.11.2")
    ]
    r = _award(api, finals["series_final:Мудрый:6:4"], "best_participant_of_series", "Мудрый")
    assert r.status_code == 201
    r = _award(
        api, finals["series_final:Свинтицкий:3:6"], "best_participant_of_series", "Свинтицкий"
    )
    assert r.status_code == 409 and r.json["error"]["rule"] == f"{R23} §4.11.2"
    r = _award(api, finals["year_final:Антипов:5:6"], "best_expert_of_year", "Антипов")
    assert r.status_code == 409 and r.json["error"]["rule"] == f"{R23} §4.11.4"


def test_whole_2009_season_through_the_api(api):
    doc = _load("season_2009.json")
    run = SeasonRun(api, "2009", "Сезон 2009", "1000.00")
    run.add_teams(doc["teams"])
    run.run(doc["events"])
    state = run.state()
    assert state["rating"] == ["МТС", "Козлов", "Поташев"]
    assert state["next"] is None and state["order"] is None
    assert state["finals"] == [
        {"part": "spring", "team": "Козлов", "score": "6:2", "won": True},
        {"part": "summer", "team": "Поташев", "score": "4:6", "won": False},
        {"part": "autumn", "team": "Поташев", "score": "6:3", "won": True},
        {"part": "winter", "team": "Поташев", "score": "5:6", "won": False},
    ]
    assert state["winter"] == ["Козлов", "Поташев"]
    assert state["out"] == []
    protocol = api("get", f"/api/v1/seasons/{run.id}/protocol", role="producer").json
    # the rematch game was created as a qualifying game and recorded as the rematch (§2.10)
    assert protocol["events"][14] == {
        "type": "game",
        "kind": "rematch",
        "team": "Поташев",
        "score": "6:4",
        "decisive_round": False,
    }
    finals = _finals(run)
    r = _award(api, finals["series_final:Козлов:6:2"], "best_player_of_series", "Козлов")
    assert r.status_code == 201, r.json
    assert [(p["kind"], p["rule"]) for p in r.json["prizes"]] == [
        ("best_player_of_series", f"{R09} §3.2")
    ]
    r = _award(api, finals["year_final:МТС:6:4"], "best_player_of_year", "МТС")
    assert r.status_code == 201, r.json
    assert [(p["kind"], p["rule"]) for p in r.json["prizes"]] == [
        ("best_player_of_year", f"{R09} §3.3")
    ]
    r = _award(api, finals["series_final:Поташев:5:6"], "best_player_of_series", "Поташев")
    assert r.status_code == 409 and r.json["error"]["rule"] == f"{R09} §3.2"
