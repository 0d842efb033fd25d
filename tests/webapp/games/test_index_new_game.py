"""The «Новая игра» form on the games page: in a season kept by the engine (one with a
rating of teams), a team typed there is the season's team and its game is checked by the
season's rules, as the season page's own form does; a name outside the rating is refused."""

from __future__ import annotations

from tests.forms import page_forms
from tests.webapp.games.season_driver import SeasonRun
from webapp.extensions import db
from webapp.games.models import Game

TEAMS = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]


def _new_game_form(client, season_id: int, team: str) -> tuple[str, dict[str, str]]:
    """The games page's «Новая игра» form as a browser sends it, for ``season_id`` and
    ``team``, an air date typed in."""
    page = client.get("/games/").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.action == "/games/new"]
    data = dict(form.fields)
    assert "game-season_id" in data and "game-team" in data
    data.update({"game-season_id": str(season_id), "game-team": team})
    data["game-air_date"] = "2023-03-04"
    return form.action, data


def test_a_season_game_from_the_games_page_obeys_the_season(api, client, login):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(TEAMS)
    run.event({"type": "series", "part": "spring", "qualifying": 5, "closing": "series_final"})
    login("producer")

    action, data = _new_game_form(client, run.id, "Знатоки из ниоткуда")
    page = client.post(action, data=data, follow_redirects=True).get_data(as_text=True)
    assert (
        "Игра не создана: Команда знатоков: «Знатоки из ниоткуда» не в рейтинге сезона «Сезон 2023»: "
        "игру сезона играет команда из его рейтинга"
    ) in page

    action, data = _new_game_form(client, run.id, "Орлова")
    page = client.post(action, data=data, follow_redirects=True).get_data(as_text=True)
    assert "Игра не создана: «Орлова» играет не в свою очередь" in page
    assert "(п. 4.8 Правил сезона 2023 г.)" in page

    # the season's team typed in lower case, with a double space: the same team
    action, data = _new_game_form(client, run.id, " королёва ")
    r = client.post(action, data=data)
    assert r.status_code == 302
    game_id = int(r.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    game = db.session.get(Game, game_id)
    assert (game.team, game.team_id) == ("Королёва", run.team_ids["Королёва"])


def test_bad_sectors_are_named_by_their_fields(api, client, login):
    """Two sectors out of range: each message names its field, once each, one full stop."""
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    login("producer")
    action, data = _new_game_form(client, run.id, "")
    data.update({"game-blitz": "0", "game-superblitz": "14", "game-sector13": "abc"})
    page = client.post(action, data=data, follow_redirects=True).get_data(as_text=True)
    assert (
        "Игра не создана: Сектор блица: номер от 1 до 13; Сектор суперблица: номер от 1 до 13; "
        "13 сектор: неверное целое число."
    ) in page
    assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 0


def refused(client, action: str, data: dict[str, str]):
    """The games page's answer to a refused new game (422): its text, unescaped, and its
    «Новая игра» form as the browser would send it again."""
    import html

    r = client.post(action, data=data)
    assert r.status_code == 422
    page = html.unescape(r.get_data(as_text=True))
    (sent,) = [f for f in page_forms(page) if f.action == "/games/new"]
    return page, sent


def test_a_refused_new_game_keeps_what_was_typed(api, client, login):
    """Refused by the form (a sector out of range) or by the operation (one sector twice):
    the page comes back with its message and the form as it was sent, not an empty one;
    a game made says so."""
    import html

    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    login("producer")
    action, data = _new_game_form(client, run.id, "Команда Анны")
    data.update({"game-title": "Игра на пробу", "game-blitz": "14"})
    page, sent = refused(client, action, data)
    assert "Игра не создана: Сектор блица: номер от 1 до 13." in page
    assert {k: sent.fields[k] for k in ("game-title", "game-team", "game-air_date")} == {
        "game-title": "Игра на пробу",
        "game-team": "Команда Анны",
        "game-air_date": "2023-03-04",
    }
    assert sent.fields["game-blitz"] == "14"

    data.update({"game-blitz": "5", "game-superblitz": "5"})
    page, sent = refused(client, action, data)
    assert "Игра не создана: Стол: у блица, суперблица и 13 сектора должны быть разные" in page
    assert (sent.fields["game-title"], sent.fields["game-superblitz"]) == ("Игра на пробу", "5")
    assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 0

    data["game-superblitz"] = "6"
    made = client.post(action, data=data, follow_redirects=True)
    assert (
        "Игра создана: Игра на пробу — отборочная, Команда Анны, сезон «Сезон 2023», № 1."
    ) in html.unescape(made.get_data(as_text=True))
