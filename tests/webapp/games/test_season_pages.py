"""The season pages: the producer's page (rating, moves with their clause, next game,
events and refusals in Russian), the viewers' page (ru/be/en; nothing of a game before it
has aired) and the prize page of a final (which final, who won)."""

from __future__ import annotations

from datetime import date, timedelta

from flask_babel import refresh

from tests.webapp.games.season_driver import OPEN, SPRING, SeasonRun

R23 = "000_90d7c8192601ed3a.txt"


def _text(r) -> str:
    return r.get_data(as_text=True)


def test_producer_page_shows_the_state_and_takes_events(api, client, login):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    login("producer")
    before = _text(client.get(f"/games/seasons/{run.id}"))
    assert 'id="team-form"' in before and "Начальный рейтинг закрыт" not in before
    r = client.post(
        f"/games/seasons/{run.id}/events",
        data={
            "event-type": "series",
            "event-part": "spring",
            "event-qualifying": "5",
            "event-closing": "series_final",
            "event-team": "Буян",
            "event-enter_as": "reserve",
        },
        follow_redirects=True,
    )
    page = _text(r)
    assert "Событие сезона записано." in page
    # the initial rating is closed now: the page says why and how a team still enters
    assert 'id="team-form"' not in page
    assert (
        "Начальный рейтинг закрыт: у сезона уже есть события, и каждое из них проверено по "
        "этому рейтингу. Команда входит в сезон позже событием «Ввести команду (резерв 2023 / "
        "спонсор 2009)» ниже"
    ) in page
    assert "Королёва → Потапова → Стишенок → Буян → Орлова" in page
    assert (
        "Следующая игра: <strong>отборочная</strong>, <strong>команда «Королёва»</strong>" in page
    )
    # a refusal: Russian gist and the clause
    r = client.post(
        f"/games/seasons/{run.id}/events",
        data={
            "event-type": "series",
            "event-part": "summer",
            "event-qualifying": "5",
            "event-closing": "series_final",
            "event-team": "Буян",
            "event-enter_as": "reserve",
        },
        follow_redirects=True,
    )
    assert (
        "Событие не принято: летняя серия не открывается: весенняя серия ещё не окончена — "
        "ни одна из 5 отборочных игр ещё не сыграна (п. 4.1 Правил сезона 2023 г.)"
    ) in _text(r)
    # a game for the wrong team is refused with the clause
    r = client.post(
        f"/games/seasons/{run.id}/games",
        data={
            "game-kind": "qualifying",
            "game-team_id": str(run.team_ids["Орлова"]),
            "game-air_date": "2023-03-04",
        },
        follow_redirects=True,
    )
    assert (
        "Игра не создана: «Орлова» играет не в свою очередь: 1-ю отборочную игру весенней "
        "серии играет «Королёва» (первой играет команда с последнего места рейтинга, "
        "последней — с первого) (п. 4.8 Правил сезона 2023 г.)"
    ) in _text(r)
    # the page comes back with the form as it was sent, not the expected game's
    from tests.forms import form_fields

    assert r.status_code == 422
    sent = form_fields(r.get_data(as_text=True), f"/games/seasons/{run.id}/games")
    assert (sent["game-team_id"], sent["game-air_date"]) == (
        str(run.team_ids["Орлова"]),
        "2023-03-04",
    )
    r = client.post(
        f"/games/seasons/{run.id}/games",
        data={
            "game-kind": "qualifying",
            "game-team_id": str(run.team_ids["Королёва"]),
            "game-air_date": "2023-03-04",
        },
    )
    assert r.status_code == 302 and "/games/" in r.headers["Location"]


def test_producer_page_lists_moves_with_clauses_and_the_final_prizes(api, client, login):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    run.run(
        [OPEN]
        + [
            {"type": "game", "kind": "qualifying", "team": t, "score": s}
            for t, s in (
                ("Королёва", "6:3"),
                ("Потапова", "4:6"),
                ("Стишенок", "6:4"),
                ("Буян", "6:3"),
                ("Орлова", "2:6"),
            )
        ]
        + [{"type": "game", "kind": "series_final", "team": "Буян", "score": "6:2"}]
    )
    login("producer")
    page = _text(client.get(f"/games/seasons/{run.id}"))
    assert (
        "<td>Потапова</td><td>4:6</td><td>Королёва, Орлова, Буян, Стишенок, Потапова</td>"
        "<td>п. 4.5.5 Правил сезона 2023 г.</td>"
    ) in page
    assert "<td>Буян</td><td>6:2</td><td>знатоки победили</td>" in page
    assert "Лучший участник серии (п. 4.11.2 Правил сезона 2023 г.)" in page
    assert '<p id="winter">Буян</p>' in page
    final_id = run.games[-1][0]
    page = _text(client.get(f"/prizes/games/{final_id}/award"))
    assert "По сезону: финал весенней серии: «Буян», 6:2, знатоки победили." in page
    assert "Буян 1\nБуян 2" in page  # the team's experts filled in; people choose


def test_public_page_hides_games_not_aired_and_speaks_three_languages(api, client):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    run.event(OPEN)
    run.play({"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"})
    run.day = date.today() + timedelta(days=30)  # recorded ahead of its broadcast
    run.play({"type": "game", "kind": "qualifying", "team": "Потапова", "score": "6:0"})
    page = _text(client.get(f"/season/{run.id}"))
    assert "Рейтинг команд" in page and "Результаты игр" in page
    assert "<td>Королёва</td><td>6:3</td>" in page
    assert "Потапова</td><td>6:0" not in page
    # the standings are those before the unaired game (Королёва first, Потапова not moved)
    assert page.index("<li>Королёва</li>") < page.index("<li>Орлова</li>")
    assert page.index("<li>Стишенок</li>") < page.index("<li>Потапова</li>")
    refresh()  # the test's app context caches the locale between requests
    en = _text(client.get(f"/season/{run.id}", headers={"Accept-Language": "en"}))
    assert "Team rating" in en and "Рейтинг команд" not in en
    refresh()
    be = _text(client.get(f"/season/{run.id}", headers={"Accept-Language": "be"}))
    assert "Рэйтынг каманд" in be
    assert client.get("/season/999999").status_code == 404


def test_close_refused_by_the_season_is_a_russian_flash(api, client, login):
    from tests.webapp.games import helpers as h
    from tests.webapp.games.season_driver import game_events

    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    run.event(OPEN)
    first, twin = (run.create_game("qualifying", "Королёва").json["id"] for _ in range(2))
    for gid in (first, twin):
        h.approved_questions_more(17)
        api("post", f"/api/v1/games/{gid}/assign", role="producer")
        for ev in game_events("6:3"):
            api("post", f"/api/v1/games/{gid}/events", role="host", json=ev)
    assert api("post", f"/api/v1/games/{first}/close", role="producer").status_code == 200
    login("producer")
    page = _text(client.post(f"/prizes/close/{twin}", data={"confirm": "y"}, follow_redirects=True))
    assert (
        "Игра не закрыта: «Королёва» уже сыграла свою отборочную игру весенней серии "
        "(п. 4.8 Правил сезона 2023 г.)"
    ) in page
    assert 'href="/games/seasons/' in _text(client.get("/games/"))


def test_series_refusals_say_the_specific_reason_with_the_clause(api, client, login):
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(["Орлова", "Буян"])
    login("producer")
    form = {
        "event-type": "series",
        "event-part": "spring",
        "event-qualifying": "5",
        "event-closing": "series_final",
        "event-team": "Буян",
        "event-enter_as": "reserve",
    }

    def post(**changes) -> str:
        r = client.post(
            f"/games/seasons/{run.id}/events", data={**form, **changes}, follow_redirects=True
        )
        return _text(r)

    assert (
        "Событие не принято: не хватает команд: для 5 отборочных игр нужно 5 команд рейтинга, "
        "сыграть могут 2 (п. 4.8 Правил сезона 2023 г.)"
    ) in post()
    assert (
        "Событие не принято: в весенней серии — 5 отборочных игр и финал серии (отборочных игр "
        "не больше 5), а не 9 отборочных игр и финал серии (п. 4.1 Правил сезона 2023 г.)"
    ) in post(**{"event-qualifying": "9"})
    assert (
        "Событие не принято: переигровки (матча-реванша) в правилах 2023 г. нет: это событие "
        "правил 2009 г. (п. 4.1 Правил сезона 2023 г.)"
    ) in post(**{"event-type": "rematch", "event-granted": "y"})
    assert run.state()["series"] is None


def test_a_withdrawal_between_two_series_through_the_rendered_form_2_3(api, client, login):
    """2009 §2.3: after the spring final a team refuses the coming summer series with the
    event form the page renders; a second refusal and its game in that series are refused
    with the fault in Russian and the clause."""
    import json
    from pathlib import Path

    from tests.forms import form_fields

    doc = json.loads(
        (Path(__file__).parents[2] / "domain/data/season_2009.json").read_text(encoding="utf-8")
    )
    run = SeasonRun(api, "2009", "Сезон 2009", "1000.00")
    run.add_teams(doc["teams"])
    run.run(doc["events"][:6])  # the spring series to its final
    login("producer")
    action = f"/games/seasons/{run.id}/events"

    def withdraw(team: str) -> str:
        data = form_fields(_text(client.get(f"/games/seasons/{run.id}")), action)
        assert data["event-type"] == "series"  # the form as rendered, then the person's choice
        data.update({"event-type": "withdraw", "event-team": team})
        return _text(client.post(action, data=data, follow_redirects=True))

    page = withdraw("Бялко")
    assert "Событие сезона записано." in page
    assert '<p id="refusing">Отказались от следующей серии: Бялко.</p>' in page
    assert (
        "Событие не принято: «Бялко» уже отказалась от участия в предстоящей летней серии "
        "(п. 2.3 Правил сезона 2009 г.)"
    ) in withdraw("Бялко")
    assert (
        "Событие не принято: «Козлов» не может отказаться от участия в предстоящей летней "
        "серии: места в ней у неё нет — она выиграла финал серии и покинула ТРК ради места в "
        "зимней серии (п. 2.12 Правил сезона 2009 г.)"
    ) in withdraw("Козлов")
    assert run.event(doc["events"][6]).status_code == 201  # the summer series opens
    login("producer")
    games = f"/games/seasons/{run.id}/games"
    page = _text(client.get(f"/games/seasons/{run.id}"))
    assert '<p id="withdrawn">Отказались от этой серии: Бялко.</p>' in page
    assert 'id="refusing"' not in page
    data = form_fields(page, games)
    data.update({"game-team_id": str(run.team_ids["Бялко"]), "game-air_date": "2009-06-06"})
    assert data["game-kind"] == "qualifying"
    r = client.post(games, data=data, follow_redirects=True)
    assert (
        "Игра не создана: «Бялко» отказалась от участия в летней серии и в ней не играет "
        "(п. 2.3 Правил сезона 2009 г.)"
    ) in _text(r)


def test_an_amendment_through_the_rendered_form_4_12_1(api, client, login):
    """2023 §4.12.1: the producer announces a rule change with the event form the page renders
    (parameter, value, what was announced, confirmation); the page lists the rules in force
    and the amendment with its time and who recorded it; a bad value is refused in Russian
    with the clause."""
    from tests.forms import form_fields

    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    assert run.event(OPEN).status_code == 201
    login("producer")
    action = f"/games/seasons/{run.id}/events"
    page = _text(client.get(f"/games/seasons/{run.id}"))
    assert '<tr><td colspan="5">Правила не менялись.</td></tr>' in page
    assert "<tr><td>очков для победы в игре</td><td>6</td><td>6</td></tr>" in page

    def amend(value: str, confirm: bool) -> str:
        data = form_fields(_text(client.get(f"/games/seasons/{run.id}")), action)
        data.update(
            {
                "event-type": "amend",
                "event-parameter": "points_to_win",
                "event-value": value,
                "event-note": "Ведущий объявил в эфире: игра до 7 очков",
            }
        )
        data.pop(
            "event-confirm", None
        )  # the parser takes every checkbox; a browser only a ticked one
        if confirm:
            data["event-confirm"] = "y"
        return _text(client.post(action, data=data, follow_redirects=True))

    assert "Подтвердите изменение правил." in amend("7", confirm=False)
    assert "Событие не принято: Новое значение: укажите целое число." in amend("семь", confirm=True)
    assert (
        "Событие не принято: изменение правил не принято: очков для победы в игре: допустимо "
        "от 1 до 12, получено 13 (п. 4.12.1 Правил сезона 2023 г.)"
    ) in amend("13", confirm=True)
    page = amend("7", confirm=True)
    assert "Событие сезона записано." in page
    assert '<tr class="changed"><td>очков для победы в игре</td><td>7</td><td>6</td></tr>' in page
    row = page[page.index('<table id="amendments">') :]
    row = row[: row.index("</table>")]
    assert "<td>1</td>" in row and "<td>producer@test.local</td>" in row
    assert "<td>очков для победы в игре: 7</td>" in row
    assert "<td>Ведущий объявил в эфире: игра до 7 очков</td>" in row
    assert run.state()["amendments"] == [
        {
            "event": 1,
            "set": {"points_to_win": 7},
            "note": "Ведущий объявил в эфире: игра до 7 очков",
        }
    ]
    # the viewers' page: the rules in force and the amendment with its date, in three languages
    from webapp.core.formats import when
    from webapp.extensions import db
    from webapp.games.season.models import SeasonEvent

    stored = db.session.scalar(
        db.select(SeasonEvent).where(SeasonEvent.season_id == run.id, SeasonEvent.seq == 2)
    )
    day = when(stored.created_at, "Europe/Minsk")
    assert f"<td>{day}</td>" in row  # the staff page's row: when it was recorded
    refresh()
    page = _text(client.get(f"/season/{run.id}"))
    assert "<li>Очков для победы в игре: 7</li>" in page
    assert "<li>Решающий раунд: есть</li>" in page
    assert (
        f"<li>{day}: Очков для победы в игре — 7 (Ведущий объявил в эфире: игра до 7 очков)</li>"
    ) in page
    refresh()
    en = _text(client.get(f"/season/{run.id}", headers={"Accept-Language": "en"}))
    assert "<li>Points to win a game: 7</li>" in en and "<li>Decisive round: yes</li>" in en
    refresh()
    be = _text(client.get(f"/season/{run.id}", headers={"Accept-Language": "be"}))
    assert "<li>Ачкоў для перамогі ў гульні: 7</li>" in be


def test_a_2009_season_shows_only_what_its_book_has_and_cites_it(api, client, login):
    """The 2009 book names no limit of club help a game (§1.7, which the engine reads as 11)
    and has no clause on changing the rules: its pages do not show «Помощь Клуба … 11», and
    the staff heading cites the 2009 clauses of what it shows, not 2023 §4.12.1. Once an
    amendment sets club help, both pages show it."""
    run = SeasonRun(api, "2009", "Сезон 2009", "1000.00")
    run.add_teams(["Друзь", "Козлов", "Поташев", "Бялко"])
    login("producer")
    page = _text(client.get(f"/games/seasons/{run.id}"))
    assert "<h2>Правила сезона (п. 1.8 Правил сезона 2009 г.)</h2>" in page
    assert "4.12.1 Правил сезона 2023" not in page[: page.index('<table id="amendments">')]
    assert "<tr><td>очков для победы в игре</td><td>6</td><td>6</td></tr>" in page
    assert "<td>«Помощь Клуба» за игру, раз</td>" not in page
    refresh()
    public = _text(client.get(f"/season/{run.id}"))
    assert '<ul id="rules"><li>Очков для победы в игре: 6</li></ul>' in public
    assert "Помощь Клуба" not in public
    r = run.event({"type": "amend", "set": {"club_help": 2}, "note": "объявлено в эфире"})
    assert r.status_code == 201, r.json
    login("producer")
    page = _text(client.get(f"/games/seasons/{run.id}"))
    assert (
        "<h2>Правила сезона (п. 1.8 Правил сезона 2009 г.; п. 1.7 Правил сезона 2009 г.)</h2>"
    ) in page
    assert (
        '<tr class="changed"><td>«Помощь Клуба» за игру, раз</td><td>2</td><td>без ограничения</td>'
        in page
    )
    refresh()
    public = _text(client.get(f"/season/{run.id}"))
    assert "<li>«Помощь Клуба» за игру, раз: 2</li>" in public
