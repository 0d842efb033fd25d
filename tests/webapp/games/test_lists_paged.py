"""The games' index, a season's games and the prizes' list, 50 a page: «следующая →» to the
end lists every game (prize) once in the list's order, «← предыдущая» comes back; the
prizes of one game keep their filter; a season's prize stays locked when its closed game
is on another page."""

from __future__ import annotations

import re

from flask import g

from tests.scale_data import add_questions
from tests.webapp.list_data import add_games_and_prizes
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.prizes.models import Prize

NEXT, PREV = "следующая →", "← предыдущая"
LOCKED = "В сезоне есть закрытые игры: их призы начислены, сумма больше не меняется."


def follow(client, url: str, text: str, pattern: str) -> list[list[int]]:
    """The ids each page lists (the numbers in the links matching ``pattern``), from
    ``url`` on through every link ``text``."""
    out = []
    while True:
        g.pop("_login_user", None)
        page = client.get(url).get_data(as_text=True)
        out.append([int(n) for n in re.findall(pattern, page)])
        if not any(t == text for t, _ in pages.parse(page).links):
            return out
        url = pages.link(page, text)


def test_games_index_season_page_and_prizes_by_pages(app, login):
    add_games_and_prizes(add_questions(120, seed=11))
    client = login("producer")
    newest = list(
        db.session.scalars(db.select(Game.id).order_by(Game.air_date.desc(), Game.id.desc()))
    )
    games = follow(client, "/games/", NEXT, r'<tr><td>(\d+)</td><td><a href="/games/\d+"')
    assert [len(p) for p in games] == [50, 50, 20]
    assert sum(games, []) == newest
    back = follow(client, f"/games/?before={newest[100]}", PREV, r"<tr><td>(\d+)</td><td><a")
    assert back == games[1::-1]

    season = db.session.scalar(db.select(Season.id))
    aired = follow(client, f"/games/seasons/{season}", NEXT, r'<li><a href="/games/(\d+)">')
    assert [len(p) for p in aired] == [50, 50, 20]
    assert sum(aired, []) == newest[::-1]

    prizes = follow(client, "/prizes/", NEXT, r'<a href="/prizes/(\d+)">')
    every = list(db.session.scalars(db.select(Prize.id).order_by(Prize.id)))
    assert [len(p) for p in prizes] == [50, 50, 20] and sum(prizes, []) == every
    one = db.session.scalar(db.select(Prize).where(Prize.id == every[7]))
    assert follow(client, f"/prizes/?game_id={one.game_id}", NEXT, r'<a href="/prizes/(\d+)">') == [
        [one.id]
    ]


def test_prize_links_keep_the_game(app, login):
    """Two games with 60 prizes each: the second page of one game's prizes is still that
    game's."""
    qids = add_questions(120, seed=12)
    add_games_and_prizes(qids)
    first, second = db.session.scalars(db.select(Game.id).order_by(Game.id).limit(2))
    db.session.execute(db.update(Prize).where(Prize.id % 2 == 0).values(game_id=second))
    db.session.execute(db.update(Prize).where(Prize.id % 2 == 1).values(game_id=first))
    db.session.commit()
    client = login("accountant")
    listed = follow(client, f"/prizes/?game_id={second}", NEXT, r'<a href="/prizes/(\d+)">')
    assert [len(p) for p in listed] == [50, 10]
    assert sum(listed, []) == list(
        db.session.scalars(db.select(Prize.id).where(Prize.game_id == second).order_by(Prize.id))
    )


def test_season_prize_locked_by_a_closed_game_on_another_page(app, login):
    """Only the last game to air is closed: it is on the third page of the season's games,
    yet the first page says the season's prize may no longer change."""
    add_games_and_prizes(add_questions(120, seed=13))
    last = db.session.scalar(db.select(Game).order_by(Game.air_date.desc()).limit(1))
    db.session.execute(db.update(Game).where(Game.id != last.id).values(status="draft"))
    db.session.commit()
    season = db.session.scalar(db.select(Season.id))
    client = login("producer")
    locked = client.get(f"/games/seasons/{season}").get_data(as_text=True)
    db.session.execute(db.update(Game).values(status="draft"))
    db.session.commit()
    g.pop("_login_user", None)
    open_ = client.get(f"/games/seasons/{season}").get_data(as_text=True)
    assert f'href="/games/{last.id}"' not in locked  # not on the first page
    assert LOCKED in locked and 'id="prize-form"' not in locked
    assert LOCKED not in open_ and 'id="prize-form"' in open_


def test_the_seasons_on_the_games_index_by_pages(app, login, monkeypatch):
    """12 seasons, 5 a page, the newest first: «следующая →» under «Сезоны» to the end
    lists each season once, «← предыдущая» comes back; the games' own pages (7 games, 5 a
    page) keep the seasons' page and the seasons' links keep the games' page."""
    from webapp.games import queries

    monkeypatch.setattr(queries, "SEASONS_PAGE", 5)
    monkeypatch.setattr(queries, "GAMES_PAGE", 5)
    monkeypatch.setattr(queries, "SEASON_CHOICES", 5)
    add_games_and_prizes(add_questions(7, seed=14))  # the first season, 7 games
    for year in range(2, 13):
        db.session.add(
            Season(name=f"Сезон {year}", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
        )
    db.session.commit()
    newest = list(db.session.scalars(db.select(Season.id).order_by(Season.id.desc())))
    assert len(newest) == 12
    client = login("producer")
    listed = r'<li><a href="/games/seasons/(\d+)">'

    def open_(url: str) -> str:
        g.pop("_login_user", None)
        resp = client.get(url)
        assert resp.status_code == 200, url
        return resp.get_data(as_text=True)

    def seasons_part(html: str) -> str:
        return html.split('<h2 id="seasons">Сезоны</h2>')[1]

    forward, url = [], "/games/"
    while True:
        page = open_(url)
        forward.append([int(n) for n in re.findall(listed, page)])
        if NEXT not in seasons_part(page):
            break
        url = pages.link(seasons_part(page), NEXT)
        assert url.endswith("#seasons") and "seasons_after=" in url
    assert forward == [newest[:5], newest[5:10], newest[10:]]
    first = open_("/games/")
    assert PREV not in seasons_part(first)
    # the new game's form offers the newest seasons only (the page stays the same size)
    select = re.search(r'<select[^>]*name="game-season_id".*?</select>', first, re.S).group(0)
    assert [int(n) for n in re.findall(r'<option[^>]*value="(\d+)"', select)] == newest[:5]
    back = [forward[-1]]
    while PREV in seasons_part(page):
        page = open_(pages.link(seasons_part(page), PREV))
        back.append([int(n) for n in re.findall(listed, page)])
    assert back == forward[::-1]

    # the games' «следующая →» on the seasons' second page keeps the seasons where they are
    second = open_(pages.link(seasons_part(open_("/games/")), NEXT))
    games_part = second.split('<h2 id="seasons">')[0]
    both = open_(pages.link(games_part, NEXT))
    assert [int(n) for n in re.findall(listed, both)] == newest[5:10]
    games = [int(n) for n in re.findall(r'<tr><td>(\d+)</td><td><a href="/games/\d+"', both)]
    assert len(games) == 2  # the second page of the 7 games
    back_to_first = open_(pages.link(seasons_part(both), PREV))
    assert [int(n) for n in re.findall(listed, back_to_first)] == newest[:5]
    again = [
        int(n) for n in re.findall(r'<tr><td>(\d+)</td><td><a href="/games/\d+"', back_to_first)
    ]
    assert again == games
