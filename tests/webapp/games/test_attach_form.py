"""The game page's «Сохранить команду и серию» form starts from the game's team and the
series the season counts it in; the header names that series; saving the form unchanged, as
a browser sends it, detaches nothing."""

from __future__ import annotations

import html

from tests.forms import form_fields
from tests.webapp.games.season_driver import SeasonRun
from webapp.extensions import db
from webapp.games.models import Game, Series
from webapp.tasks.outbox import commit

SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
OPEN = {"type": "series", "part": "spring", "qualifying": 5, "closing": "series_final"}


def _season_game(api, login) -> tuple[SeasonRun, int, object]:
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    run.event(OPEN)
    client = login("producer")
    r = client.post(
        f"/games/seasons/{run.id}/games",
        data={
            "game-kind": "qualifying",
            "game-team_id": str(run.team_ids["Королёва"]),
            "game-air_date": "2023-03-04",
        },
    )
    assert r.status_code == 302
    return run, int(r.headers["Location"].rsplit("/", 1)[1]), client


def _spring(run) -> int:
    return db.session.scalar(
        db.select(Series.id).where(Series.season_id == run.id, Series.part == "spring")
    )


def test_a_season_game_keeps_its_team_and_series_when_the_form_is_saved_unchanged(api, login):
    run, gid, client = _season_game(api, login)
    game = db.session.get(Game, gid)
    assert (game.team_id, game.series_id) == (run.team_ids["Королёва"], _spring(run))
    page = html.unescape(client.get(f"/games/{gid}").get_data(as_text=True))
    assert "Команда: <bdi>Королёва</bdi>. Серия: <bdi>Весенняя серия — Сезон 2023</bdi>." in page
    sent = form_fields(page, f"/games/{gid}/attach")
    assert sent == {"team_id": str(run.team_ids["Королёва"]), "series_id": str(_spring(run))}
    r = client.post(f"/games/{gid}/attach", data=sent, follow_redirects=True)
    assert "Команда и серия игры сохранены." in html.unescape(r.get_data(as_text=True))
    db.session.expire_all()
    game = db.session.get(Game, gid)
    assert (game.team_id, game.team, game.series_id) == (
        run.team_ids["Королёва"],
        "Королёва",
        _spring(run),
    )


def test_a_game_without_a_stored_series_shows_and_keeps_the_series_it_counts_in(api, login):
    run, gid, client = _season_game(api, login)
    db.session.get(Game, gid).series_id = None  # a game made before the series default
    commit()
    page = html.unescape(client.get(f"/games/{gid}").get_data(as_text=True))
    assert "Команда: <bdi>Королёва</bdi>. Серия: <bdi>Весенняя серия — Сезон 2023</bdi>." in page
    sent = form_fields(page, f"/games/{gid}/attach")
    assert sent["series_id"] == str(_spring(run))
    client.post(f"/games/{gid}/attach", data=sent)
    db.session.expire_all()
    game = db.session.get(Game, gid)
    assert (game.team_id, game.series_id) == (run.team_ids["Королёва"], _spring(run))


def test_the_team_list_offers_only_the_games_season_teams(api, login):
    """Only a season's teams may play its games (season.refusals.check_new_game): the game
    page's team list offers them, by name, and not the teams of another season."""
    import re

    other = SeasonRun(api, "2023", "Другой сезон 2023", "300.00")
    other.add_teams(["Чужая", "Дальняя"])
    run, gid, client = _season_game(api, login)
    page = html.unescape(client.get(f"/games/{gid}").get_data(as_text=True))
    form = page.split(f'action="/games/{gid}/attach"', 1)[1].split("</form>", 1)[0]
    select = form.split('name="team_id"', 1)[1].split("</select>", 1)[0]
    offered = re.findall(r"<option[^>]*>([^<]*)</option>", select)
    assert offered == ["— нет —", *sorted(SPRING)]


def test_a_game_with_only_a_typed_team_name_says_so_in_the_team_list(login):
    """A game made on the games' index with a team name typed, of a season without a rating:
    the header names the team and the list's empty choice says the game has that name
    without a team of the list («без состава»), not «нет»; saving it unchanged keeps the
    name."""
    from tests.forms import page_forms
    from tests.webapp.games import helpers as h

    season = h.season()
    h.commit()
    client = login("producer")
    index = client.get("/games/").get_data(as_text=True)
    (form,) = [f for f in page_forms(index) if f.action == "/games/new"]
    assert "Только название. Команду с составом знатоков" in html.unescape(index)
    r = client.post(
        form.action,
        data={
            **form.fields,
            "game-season_id": str(season.id),
            "game-air_date": "2023-03-04",
            "game-team": "Команда Анны",
        },
    )
    assert r.status_code == 302, r.get_data(as_text=True)
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    page = html.unescape(client.get(f"/games/{gid}").get_data(as_text=True))
    assert "Команда: <bdi>Команда Анны</bdi>." in page
    attach = page.split(f'action="/games/{gid}/attach"', 1)[1].split("</form>", 1)[0]
    assert '<option selected value="0">— без состава: «Команда Анны» —</option>' in attach
    client.post(f"/games/{gid}/attach", data=form_fields(page, f"/games/{gid}/attach"))
    db.session.expire_all()
    assert (db.session.get(Game, gid).team, db.session.get(Game, gid).team_id) == (
        "Команда Анны",
        None,
    )
