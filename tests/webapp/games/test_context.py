"""The engine's context from the database (2023 §3.6 series best, §3.4.3 options)."""

from __future__ import annotations

from datetime import date

import pytest

from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.models import GameEventAudit
from webapp.games.operations import GameConflict, GameError, game_context, record_event
from webapp.games.season.operations import attach, create_game, create_team

WIN_6_2 = [
    {"type": "spin", "sector": 1},
    {"type": "answer", "correct": False},
    {"type": "spin", "sector": 2},
    {"type": "answer", "correct": False},
] + [
    ev
    for s in (3, 5, 6, 7, 8, 10)
    for ev in ({"type": "spin", "sector": s}, {"type": "answer", "correct": True})
]


def play(game, events, user_id=None):
    state = None
    for ev in events:
        state = record_event(game, dict(ev), user_id)
    return state


def test_team_needs_six_distinct_experts_and_a_captain_among_them(app):
    with pytest.raises(GameError) as exc:
        create_team("", "Яков", ["А", "Б", "Б"])
    assert exc.value.errors == {
        "name": ["от 1 до 200 символов"],
        "experts": [
            "каждый знаток — один раз, а повторены: Б",
            "в команде 6 знатоков, а названо 2",
        ],
        "captain": ["капитан — один из шести знатоков"],
    }
    t = h.team()
    assert (t.captain, t.experts) == ("Анна", h.EXPERTS)
    with pytest.raises(GameError) as exc:
        h.team()
    assert exc.value.errors == {"name": ["команда с таким названием уже есть"]}


def test_series_is_one_per_season_and_part(app):
    s = h.season()
    assert h.series(s).id == h.series(s, "spring").id
    assert h.series(s, "summer").id != h.series(s).id
    with pytest.raises(GameError) as exc:
        h.series(s, "monsoon")
    assert exc.value.errors == {"part": ["одна из: spring, summer, autumn, winter"]}


def test_context_without_series_or_team_is_empty(app):
    g = h.game(h.season())
    assert game_context(g) == {"series_best": None, "sector13_options_used": []}


def test_series_best_is_the_best_earlier_finished_qualifying_result(app):
    s = h.season()
    spring = h.series(s)
    first = h.game(s, 1, series=spring)
    assert play(first, WIN_6_2)["score"] == "6:2"
    second = h.game(s, 2, series=spring)
    lost = [
        ev
        for sec in range(1, 4)
        for ev in ({"type": "spin", "sector": sec}, {"type": "answer", "correct": False})
    ]
    lost += [
        {"type": "spin", "sector": 5},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 6},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 7},
        {"type": "answer", "correct": False},
    ]
    assert play(second, lost)["score"] == "0:6"
    unfinished = h.game(s, 3, series=spring)
    play(unfinished, WIN_6_2[:4])
    other_series = h.game(s, 4, series=h.series(s, "summer"))
    play(other_series, [{"type": "spin", "sector": 1}, {"type": "answer", "correct": True}])
    final = h.game(s, 5, series=spring, kind="series_final")
    later = h.game(s, 6, series=spring)
    # 6:2 beats 0:6; the unfinished game, the other series and the final do not count
    assert game_context(later)["series_best"] == "6:2"
    assert game_context(final)["series_best"] is None  # §3.6: nobody to pass in a final
    # a game earlier than all of them has no best to pass
    assert game_context(first)["series_best"] is None
    assert game_context(second)["series_best"] == "6:2"


def test_decisive_round_follows_the_series_best(app):
    """§3.6: at 5:3 the team cannot pass 6:2 without the decisive round; at 5:2 it can."""
    s = h.season()
    spring = h.series(s)
    play(h.game(s, 1, series=spring), WIN_6_2)
    g = h.game(s, 2, series=spring)
    to_5_3 = [
        {"type": "spin", "sector": 1},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 2},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 3},
        {"type": "answer", "correct": False},
    ] + [
        ev
        for sec in (5, 6, 7, 8, 10)
        for ev in ({"type": "spin", "sector": sec}, {"type": "answer", "correct": True})
    ]
    assert play(g, to_5_3)["score"] == "5:3"
    state = record_event(g, {"type": "decisive_round"}, None)
    assert state["score"] == "0:0"
    # the same moment without the series: refused with the clause
    alone = h.game(s, 3)
    play(alone, to_5_3)
    with pytest.raises(GameConflict) as exc:
        record_event(alone, {"type": "decisive_round"}, None)
    assert exc.value.error["rule"] == "000_90d7c8192601ed3a.txt §3.6"
    assert exc.value.error["event"] == 16


def test_sector13_options_cycle_across_the_teams_games(app):
    s = h.season()
    t = h.team()
    table = {"blitz": None, "superblitz": None, "sector13": 1}
    g1 = h.game(s, 1, team_=t, table=table)
    play(
        g1,
        [
            {"type": "spin", "sector": 1},
            {"type": "sector13_option", "option": "one"},
            {"type": "answer", "correct": True},
        ],
    )
    g2 = h.game(s, 2, team_=t, table=table)
    assert game_context(g2)["sector13_options_used"] == ["one"]
    record_event(g2, {"type": "spin", "sector": 1}, None)
    with pytest.raises(GameConflict) as exc:
        record_event(g2, {"type": "sector13_option", "option": "one"}, None)
    assert exc.value.error["rule"] == "000_90d7c8192601ed3a.txt §3.4.3"
    record_event(g2, {"type": "sector13_option", "option": "six"}, None)
    g3 = h.game(s, 3, team_=t, table=table)
    assert game_context(g3)["sector13_options_used"] == ["one", "six"]
    play(g3, [{"type": "spin", "sector": 1}, {"type": "sector13_option", "option": "three"}])
    g4 = h.game(s, 4, team_=t, table=table)
    assert game_context(g4)["sector13_options_used"] == []  # all three used: a new cycle
    # another team and the 2009 rule set know nothing of these options
    other = h.game(s, 5, team_=create_team("Другие", "Анна", h.EXPERTS), table=table)
    assert game_context(other)["sector13_options_used"] == []
    old = h.game(
        h.season("2009"), 6, team_=t, table={"blitz": None, "superblitz": None, "sector13": 13}
    )  # 2009 §1.3
    assert game_context(old)["sector13_options_used"] == []


def test_attach_checks_the_season_and_freezes_after_the_first_event(app):
    s, s2 = h.season(), h.season("2009")
    t = h.team()
    g = h.game(s)
    with pytest.raises(GameError) as exc:
        attach(g, 999, h.series(s2).id)
    assert exc.value.errors == {
        "team_id": ["нет такой команды"],
        "series_id": ["серия другого сезона"],
    }
    attach(g, t.id, h.series(s).id)
    assert (g.team, g.team_row.name, g.series.part) == ("Команда Анны", "Команда Анны", "spring")
    record_event(g, {"type": "spin", "sector": 1}, None)
    with pytest.raises(GameConflict):
        attach(g, None, None)
    with pytest.raises(GameError) as exc:
        create_game(s.id, "qualifying", date(2023, 1, 1), {}, series_id=h.series(s2).id)
    assert exc.value.errors == {"series_id": ["серия другого сезона"]}


def test_api_game_accepts_series_and_team_and_keeps_the_free_team(app, api):
    s = h.season()
    spring, t = h.series(s), h.team()
    h.commit()
    body = {
        "season_id": s.id,
        "kind": "qualifying",
        "date": "2023-03-01",
        "table": {"blitz": 4, "superblitz": None, "sector13": 13},
    }
    free = api("post", "/api/v1/games", role="producer", json=dict(body, team="Сборная"))
    assert free.status_code == 201
    linked = api(
        "post", "/api/v1/games", role="producer", json=dict(body, series_id=spring.id, team_id=t.id)
    )
    assert linked.status_code == 201
    bad = api("post", "/api/v1/games", role="producer", json=dict(body, series_id=999))
    assert (bad.status_code, bad.json["errors"]) == (422, {"series_id": ["нет такой серии"]})
    got = api("get", f"/api/v1/games/{linked.json['id']}", role="host").json
    assert got["protocol"]["context"] == {"series_best": None, "sector13_options_used": []}
    from webapp.games.models import Game

    assert db.session.get(Game, free.json["id"]).team == "Сборная"
    assert db.session.get(Game, linked.json["id"]).team == "Команда Анны"


def test_api_events_use_the_series_context(app, api):
    s = h.season()
    spring = h.series(s)
    play(h.game(s, 1, series=spring), WIN_6_2)
    g = h.game(s, 2, series=spring)
    h.commit()
    to_5_3 = [
        {"type": "spin", "sector": 1},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 2},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 3},
        {"type": "answer", "correct": False},
    ] + [
        ev
        for sec in (5, 6, 7, 8, 10)
        for ev in ({"type": "spin", "sector": sec}, {"type": "answer", "correct": True})
    ]
    for ev in to_5_3:
        assert api("post", f"/api/v1/games/{g.id}/events", role="host", json=ev).status_code == 201
    r = api("post", f"/api/v1/games/{g.id}/events", role="host", json={"type": "decisive_round"})
    assert (r.status_code, r.json["state"]["score"]) == (201, "0:0")
    got = api("get", f"/api/v1/games/{g.id}", role="host").json
    assert got["protocol"]["context"] == {"series_best": "6:2", "sector13_options_used": []}
    audits = db.session.scalars(
        db.select(GameEventAudit).where(GameEventAudit.game_id == g.id).order_by(GameEventAudit.id)
    ).all()
    assert [(a.action, a.seq) for a in audits][-1] == ("record", 17)


def test_game_ids_beyond_the_column_are_404(app, api, login):
    assert api("get", "/api/v1/games/99999999999999999999", role="host").status_code == 404
    assert api("get", "/api/v1/games/2147483648", role="host").status_code == 404
    assert login("host").get("/games/99999999999999999999/console").status_code == 404
