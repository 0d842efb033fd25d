"""The season's cash prize per unanswered question (2009 §1.2.2 names no amount, 2023
§4.11.1 names 300,00): required by the season form where the book names none, set and
changed on the season page while no game of the season is closed (audited), and a close
refused without it says so in Russian and where to set it."""

from __future__ import annotations

import html
from decimal import Decimal

from tests.webapp.games import helpers as h
from tests.webapp.games.season_driver import SeasonRun, game_events
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.season.models import SeasonPrizeChange


def page(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def _finished_2009_game(api) -> tuple[int, int]:
    """A 2009 season created without a prize (the API allows it) and its game played to 0:6."""
    run = SeasonRun(api, "2009", "Сезон 2009", None)
    run.new_team("Буян")
    gid = run.create_game("qualifying", "Буян").json["id"]
    h.approved_questions_more(17)
    assert api("post", f"/api/v1/games/{gid}/assign", role="producer").status_code == 200
    for ev in game_events("0:6"):
        assert api("post", f"/api/v1/games/{gid}/events", role="host", json=ev).status_code == 201
    return run.id, gid


def test_the_season_form_requires_the_prize_of_2009_and_takes_the_book_amount_of_2023(login):
    client = login("producer")
    r = client.post(
        "/games/seasons",
        data={"season-name": "Сезон 2009", "season-ruleset": "2009"},
        follow_redirects=True,
    )
    assert (
        "Сезон не создан: Приз за невзятый вопрос: укажите сумму: в правилах 2009 г. её нет "
        "(п. 1.2.2 Правил сезона 2009 г.), её назначает продюсер"
    ) in page(r)
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 0
    r = client.post(
        "/games/seasons",
        data={"season-name": "Сезон 2023", "season-ruleset": "2023"},
        follow_redirects=True,
    )
    assert "Сезон «Сезон 2023» создан." in page(r)
    assert db.session.scalar(db.select(Season.unanswered_prize)) == Decimal("300.00")


def test_the_producer_sets_the_prize_on_the_season_page_and_the_game_closes(api, login, staff):
    season_id, gid = _finished_2009_game(api)
    client = login("producer")
    r = client.post(f"/prizes/close/{gid}", data={"confirm": "y"}, follow_redirects=True)
    assert (
        "Игра не закрыта: у сезона «Сезон 2009» не задан приз за невзятый вопрос "
        "(в правилах 2009 г. суммы нет, п. 1.2.2 Правил сезона 2009 г.): задайте его на странице "
        "сезона (Игры → сезон «Сезон 2009» → «Приз за невзятый вопрос») и закройте игру снова"
    ) in page(r)
    assert db.session.get(Game, gid).status == "finished"

    text = page(client.get(f"/games/seasons/{season_id}"))
    assert (
        "<strong>Не задан</strong>: игры сезона не закрыть, пока продюсер не назначит сумму "
        "(п. 1.2.2 Правил сезона 2009 г.)."
    ) in text
    assert 'id="prize-form"' in text
    r = client.post(
        f"/games/seasons/{season_id}/prize",
        data={"prize-unanswered_prize": ""},
        follow_redirects=True,
    )
    assert "Приз не изменён: Приз за невзятый вопрос: укажите сумму, например 1000,00." in page(r)
    r = client.post(
        f"/games/seasons/{season_id}/prize",
        data={"prize-unanswered_prize": "1 000,00"},
        follow_redirects=True,
    )
    text = page(r)
    assert "Приз за невзятый вопрос: 1\u00a0000,00\u00a0RUB." in text
    assert (
        "1\u00a0000,00\u00a0RUB за каждый вопрос, на который знатоки не ответили "
        "(п. 1.2.2 Правил сезона 2009 г.)."
    ) in text
    assert "<td>producer@test.local</td><td>не задан</td><td>1\u00a0000,00\u00a0RUB</td>" in text
    change = db.session.scalars(db.select(SeasonPrizeChange)).one()
    assert (change.season_id, change.old_amount, change.new_amount, change.by_user_id) == (
        season_id,
        None,
        Decimal("1000.00"),
        staff("producer")[0],
    )

    r = client.post(f"/prizes/close/{gid}", data={"confirm": "y"}, follow_redirects=True)
    assert "Игра закрыта. Призов: 6." in page(r)
    text = page(client.get(f"/games/seasons/{season_id}"))
    assert 'id="prize-form"' not in text
    assert "В сезоне есть закрытые игры: их призы начислены, сумма больше не меняется." in text
    r = client.post(
        f"/games/seasons/{season_id}/prize",
        data={"prize-unanswered_prize": "2000"},
        follow_redirects=True,
    )
    assert (
        "Приз не изменён: в сезоне «Сезон 2009» уже закрыто игр: 1; их призы начислены "
        "по прежней сумме, приз за невзятый вопрос больше не меняется"
    ) in page(r)
    assert db.session.get(Season, season_id).unanswered_prize == Decimal("1000.00")
    assert db.session.scalar(db.select(db.func.count()).select_from(SeasonPrizeChange)) == 1


def test_only_the_producer_sets_the_prize(api, login):
    season_id, _gid = _finished_2009_game(api)
    client = login("host")
    r = client.post(f"/games/seasons/{season_id}/prize", data={"prize-unanswered_prize": "5"})
    assert r.status_code == 403
    assert "prize-form" not in page(client.get(f"/games/seasons/{season_id}"))
    assert db.session.get(Season, season_id).unanswered_prize is None


def test_a_second_season_of_the_same_name_is_refused(login, api):
    client = login("producer")
    data = {"season-name": "Сезон 2023", "season-ruleset": "2023"}
    assert "Сезон «Сезон 2023» создан." in page(
        client.post("/games/seasons", data=data, follow_redirects=True)
    )
    r = client.post(
        "/games/seasons", data={**data, "season-name": " Сезон 2023 "}, follow_redirects=True
    )
    assert "Сезон не создан: Название: сезон с таким названием уже есть" in page(r)
    r = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "Сезон 2023", "ruleset": "2023"}
    )
    assert (r.status_code, r.json) == (
        422,
        {"errors": {"name": ["сезон с таким названием уже есть"]}},
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 1


def test_money_in_exponent_notation_is_refused_by_the_forms_and_the_api(api, login):
    """«1e5» is 100 000 to Python's Decimal; a person types 100 000,00. The season form as
    the page renders it, the season page's prize form and the API (a string or a JSON
    number) refuse it and store nothing."""
    from tests.forms import page_forms

    client = login("producer")
    forms = page_forms(client.get("/games/").text)
    (form,) = [f for f in forms if f.action == "/games/seasons"]
    r = client.post(
        form.action,
        data={
            **form.fields,
            "season-name": "Сезон 2009",
            "season-ruleset": "2009",
            "season-unanswered_prize": "1e5",
        },
        follow_redirects=True,
    )
    assert (
        "Сезон не создан: Приз за невзятый вопрос: Сумма цифрами, без степени: например "
        "100000,00, а не 1e5."
    ) in page(r)
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 0
    refusal = {"errors": {"unanswered_prize": ["Сумма цифрами, без степени: например "
                                               "100000,00, а не 1e5."]}}  # fmt: skip
    for body in (
        '{"name": "Сезон 2009", "ruleset": "2009", "unanswered_prize": 1e5}',
        '{"name": "Сезон 2009", "ruleset": "2009", "unanswered_prize": 1.5E+3}',
        '{"name": "Сезон 2009", "ruleset": "2009", "unanswered_prize": "1e5"}',
    ):
        r = api("post", "/api/v1/seasons", role="producer", data=body,
                content_type="application/json")  # fmt: skip
        assert (r.status_code, r.json) == (422, refusal), body
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 0
    # a JSON number in digits is still a number
    r = api("post", "/api/v1/seasons", role="producer", data=(
        '{"name": "Сезон 2009", "ruleset": "2009", "unanswered_prize": 1500.5}'
    ), content_type="application/json")  # fmt: skip
    assert r.status_code == 201, r.json
    season = db.session.scalars(db.select(Season)).one()
    assert season.unanswered_prize == Decimal("1500.50")
    client = login("producer")
    (form,) = [
        f
        for f in page_forms(client.get(f"/games/seasons/{season.id}").text)
        if f.action == f"/games/seasons/{season.id}/prize"
    ]
    r = client.post(
        form.action, data={**form.fields, "prize-unanswered_prize": "2E3"}, follow_redirects=True
    )
    assert "Приз не изменён: Приз за невзятый вопрос: Сумма цифрами, без степени" in page(r)
    assert db.session.get(Season, season.id).unanswered_prize == Decimal("1500.50")
