"""Game-day pages and the API: one money parser for
the season form and the API, Russian messages and status labels on staff pages, undo on a
closed game, envelopes of a closed game, the editor's table page, odd names and dates."""

from __future__ import annotations

import html
from datetime import date
from decimal import Decimal

import pytest

from tests.webapp.games import helpers as h
from webapp.domain.books import BOOKS
from webapp.domain.money import MoneyError, parse_amount
from webapp.extensions import db
from webapp.games.models import Game, Season, Team
from webapp.games.operations import GameConflict, GameError, record_event, request_envelopes
from webapp.games.season.operations import create_game, create_team

TABLE = {"blitz": None, "superblitz": None, "sector13": None}


def page(response) -> str:
    return html.unescape(response.get_data(as_text=True))


@pytest.mark.parametrize(
    ("typed", "amount"),
    [
        ("300,00", Decimal("300.00")),
        ("2 000,50", Decimal("2000.50")),
        ("1\u00a0000", Decimal("1000.00")),
        ("300.00", Decimal("300.00")),
        ("0", Decimal("0.00")),
        ("9999999999.99", Decimal("9999999999.99")),
    ],
)
def test_form_amounts(typed, amount):
    assert parse_amount(typed, form=True) == amount


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "Сумма должна быть конечным числом."),
        ("Infinity", "Сумма должна быть конечным числом."),
        ("1e309", "Сумма цифрами, без степени: например 100000,00, а не 1e5."),
        ("-100", "Сумма не может быть отрицательной."),
        ("abc", "Не сумма: введите число, например 300,00."),
        ("0.001", "Не больше двух знаков после запятой (копейки)."),
        ("0.015", "Не больше двух знаков после запятой (копейки)."),
        ("1e20", "Сумма цифрами, без степени: например 100000,00, а не 1e5."),
        ("12345678901234567890.12", "Не больше 10 цифр до запятой."),
        (0.001, "Не больше двух знаков после запятой (копейки)."),
        (
            1e20,
            "Сумма цифрами, без степени: например 100000,00, а не 1e5.",
        ),  # a float printed «1e+20»
        (float("inf"), "Сумма должна быть конечным числом."),
        (True, "Сумма — число, например 300.00."),
    ],
)
def test_bad_amounts(value, message):
    with pytest.raises(MoneyError) as exc:
        parse_amount(value, form=isinstance(value, str))
    assert str(exc.value) == message


def test_api_takes_no_decimal_comma():
    with pytest.raises(MoneyError):
        parse_amount("300,00")


@pytest.mark.parametrize(
    ("typed", "flashed"),
    [
        ("NaN", "Сезон не создан: Приз за невзятый вопрос: Сумма должна быть конечным числом."),
        (
            "Infinity",
            "Сезон не создан: Приз за невзятый вопрос: Сумма должна быть конечным числом.",
        ),
        (
            "1e309",
            "Сезон не создан: Приз за невзятый вопрос: Сумма цифрами, без степени: например "
            "100000,00, а не 1e5.",
        ),
        ("-100", "Сезон не создан: Приз за невзятый вопрос: Сумма не может быть отрицательной."),
        (
            "abc",
            "Сезон не создан: Приз за невзятый вопрос: Не сумма: введите число, например 300,00.",
        ),
    ],
)
def test_season_form_refuses_bad_prizes(login, typed, flashed):
    client = login("producer")
    r = client.post(
        "/games/seasons",
        data={"season-name": "Сезон", "season-ruleset": "2009", "season-unanswered_prize": typed},
        follow_redirects=True,
    )
    assert r.status_code == 200
    assert flashed in page(r)
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 0


def test_season_form_takes_a_decimal_comma(login):
    client = login("producer")
    r = client.post(
        "/games/seasons",
        data={
            "season-name": "Сезон",
            "season-ruleset": "2009",
            "season-unanswered_prize": "1 000,50",
        },
        follow_redirects=True,
    )
    assert "Сезон «Сезон» создан." in page(r)
    assert db.session.scalar(db.select(Season.unanswered_prize)) == Decimal("1000.50")


@pytest.mark.parametrize(
    ("prize", "message"),
    [
        ("0.001", "Не больше двух знаков после запятой (копейки)."),
        (0.015, "Не больше двух знаков после запятой (копейки)."),
        (
            1e20,
            "Сумма цифрами, без степени: например 100000,00, а не 1e5.",
        ),  # a float printed «1e+20»
        ("1e20", "Сумма цифрами, без степени: например 100000,00, а не 1e5."),
        (
            12345678901234567890.12,
            "Сумма цифрами, без степени: например 100000,00, а не 1e5.",
        ),  # sent as 1.2345678901234567e+19
        ("NaN", "Сумма должна быть конечным числом."),
        ("300,00", "Не сумма: введите число, например 300,00."),
        (-1, "Сумма не может быть отрицательной."),
        ([300], "Сумма — число, например 300.00."),
    ],
)
def test_api_season_prize_is_checked_like_the_form(api, prize, message):
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "Сезон", "ruleset": "2009", "unanswered_prize": prize},
    )
    assert (r.status_code, r.json) == (422, {"errors": {"unanswered_prize": [message]}})
    assert db.session.scalar(db.select(db.func.count()).select_from(Season)) == 0


def test_api_season_prize_accepted(api):
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "Сезон", "ruleset": "2009", "unanswered_prize": 1000.5},
    )
    assert r.status_code == 201
    assert db.session.scalar(db.select(Season.unanswered_prize)) == Decimal("1000.50")


@pytest.mark.parametrize(
    ("ruleset", "currency", "message"),
    [
        ("2023", "RUB", "по правилам 2023 призы выплачиваются в BYN"),
        ("2009", "BYN", "по правилам 2009 призы выплачиваются в RUB"),
    ],
)
def test_api_season_currency_is_the_rule_books(api, ruleset, currency, message):
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": "Сезон", "ruleset": ruleset, "currency": currency},
    )
    assert (r.status_code, r.json) == (422, {"errors": {"currency": [message]}})
    ok = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={
            "name": "Сезон",
            "ruleset": ruleset,
            "currency": BOOKS[ruleset].currency,
        },
    )
    assert ok.status_code == 201


def test_table_message_is_russian(login):
    s = h.season()
    h.commit()
    client = login("producer")
    r = client.post(
        "/games/new",
        data={
            "game-season_id": s.id,
            "game-kind": "qualifying",
            "game-air_date": "2023-03-04",
            "game-blitz": 5,
            "game-superblitz": 5,
        },
        follow_redirects=True,
    )
    assert (
        "Игра не создана: Стол: у блица, суперблица и 13 сектора должны быть разные сектора"
    ) in page(r)


def test_game_statuses_are_russian_labels(login):
    s = h.season()
    for day, status in enumerate(("draft", "ready", "finished", "closed"), start=1):
        h.game(s, day, status=status)
    h.commit()
    client = login("producer")
    index = page(client.get("/games/"))
    for label in ("черновик", "стол заполнен", "сыграна", "закрыта"):
        assert f"<td>{label}</td>" in index
    game_id = db.session.scalar(db.select(Game.id).where(Game.status == "draft"))
    assert "<small>(черновик)</small>" in page(client.get(f"/games/{game_id}"))


def test_close_and_console_refusals_are_russian(login):
    g = h.game(h.season(), status="draft")
    h.commit()
    producer = login("producer")
    r = producer.post(f"/prizes/close/{g.id}", data={"confirm": "y"}, follow_redirects=True)
    assert f"Игра не закрыта: игра {g.id} — черновик: закрыть можно только сыгранную игру" in page(
        r
    )
    host = login("host")
    r = host.post(
        f"/games/{g.id}/console", data={"type": "spin", "sector": 3}, follow_redirects=True
    )
    assert (
        f"Отказано: Игра {g.id} — черновик: события записываются "
        "после заполнения стола и до закрытия игры"
    ) in page(r)


def test_console_unknown_event_type_is_russian(login):
    g = h.game(h.season(), status="ready")
    h.startable(g)
    h.commit()
    host = login("host")
    r = host.post(
        f"/games/{g.id}/console", data={"type": "bogus"}, headers={"Accept": "application/json"}
    )
    assert r.status_code == 409
    assert r.json["error"]["text"] == (
        "Неизвестный тип события 'bogus'; допустимы: spin, "
        "sector13_option, decisive_round, extra_minute, club_help, credit_minute, answer, "
        "red_card, minute"
    )


def spin_refused(login, sector: str):
    """The console's spin form of a ready game, as the page renders it, sent with ``sector``
    typed in its box: the JSON answer (422 asserted) and that nothing was recorded."""
    from tests.forms import page_forms

    g = h.game(h.season(), status="ready")
    h.startable(g)
    h.commit()
    host = login("host")
    page = host.get(f"/games/{g.id}/console").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.fields.get("type") == "spin"]
    r = host.post(
        form.action or f"/games/{g.id}/console",
        data={**form.fields, "sector": sector},
        headers={"Accept": "application/json"},
    )
    assert r.status_code == 422
    db.session.expire_all()
    assert db.session.get(type(g), g.id).events == []
    return r.json


def test_a_spin_without_its_sector_is_asked_for_in_the_hosts_words(login):
    """The console's spin form sent with its sector box left empty: the host reads what to
    do, not the protocol's «событию spin нужно поле «sector»»; nothing is recorded."""
    answer = spin_refused(login, "")
    assert answer["error"]["text"] == "Укажите сектор, на который указала стрелка: от 1 до 13"
    assert "spin" not in answer["error"]["text"]


def test_a_sector_that_is_not_a_number_names_the_field_once(login):
    """The spin form sent with a word in its sector box: one refusal naming the field,
    in the message box and in the JSON, nothing recorded."""
    answer = spin_refused(login, "пять")
    assert answer["error"]["text"] == "Сектор: неверное целое число."
    assert "Отказано: Сектор: неверное целое число." in answer["html"]["console-message"]


def test_undo_on_a_closed_game_says_it_is_closed(login):
    g = h.game(h.season(), status="ready")
    record_event(g, {"type": "spin", "sector": 3}, None)
    g.status = "closed"
    h.commit()
    host = login("host")
    r = host.post(f"/games/{g.id}/undo", headers={"Accept": "application/json"})
    assert r.status_code == 409
    assert r.json["error"]["text"] == (f"Игра {g.id} закрыта: события закрытой игры не отменяются")
    assert len(db.session.get(Game, g.id).events) == 1
    g.status = "ready"
    h.commit()
    r = host.post(f"/games/{g.id}/undo", headers={"Accept": "application/json"})
    assert r.status_code == 200
    r = host.post(f"/games/{g.id}/undo", headers={"Accept": "application/json"})
    assert (r.status_code, r.json["error"]["text"]) == (
        409,
        "Отменять нечего: событий ещё нет",
    )


def test_closed_game_offers_no_envelopes(login):
    h.approved_questions(13)
    from webapp.games.operations import assign_envelopes, lock_table

    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    lock_table(g, None)
    h.commit()
    client = login("producer")
    assert "Напечатать конверты" in page(client.get(f"/games/{g.id}"))
    g.status = "closed"
    h.commit()
    text = page(client.get(f"/games/{g.id}"))
    assert "Напечатать конверты" not in text
    assert "Игра закрыта: конверты больше не печатаются." in text
    with pytest.raises(GameConflict) as exc:
        request_envelopes(g)
    assert str(exc.value) == f"игра {g.id} закрыта: конверты больше не печатаются"
    r = client.post(f"/games/{g.id}/envelopes", data={"copies": 1}, follow_redirects=True)
    assert f"игра {g.id} закрыта: конверты больше не печатаются" in page(r)


def test_editor_table_page_links_to_what_the_editor_may_open(login):
    h.approved_questions(13)
    from webapp.games.operations import assign_envelopes

    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.commit()
    editor = login("editor")
    text = page(editor.get(f"/games/{g.id}/table"))
    assert f'href="/games/{g.id}"' not in text
    assert '<a href="/editor/queue">К очереди вопросов</a>' in text
    assert editor.get(f"/games/{g.id}").status_code == 403
    producer = login("producer")
    assert f'<a href="/games/{g.id}">К странице игры</a>' in page(
        producer.get(f"/games/{g.id}/table")
    )


def test_control_characters_and_odd_dates_refused(app, api):
    s = h.season()
    h.commit()
    with pytest.raises(GameError) as exc:
        create_team("\x01bad", "Анна", h.EXPERTS)
    assert exc.value.errors == {"name": ["недопустимые управляющие символы"]}
    with pytest.raises(GameError) as exc:
        create_game(s.id, "qualifying", date(2023, 3, 4), TABLE, team="\x01bad", title="Игра\u202e")
    assert exc.value.errors == {
        "team": ["недопустимые управляющие символы"],
        "title": ["недопустимые управляющие символы"],
    }
    r = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={"season_id": s.id, "kind": "qualifying", "date": "0001-01-01", "table": TABLE},
    )
    assert (r.status_code, r.json) == (
        422,
        {"errors": {"date": ["дата эфира — с 1975 по 2100 год"]}},
    )
    r = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": s.id,
            "kind": "qualifying",
            "date": "2023-03-04",
            "team": "\x01bad",
            "table": TABLE,
        },
    )
    assert (r.status_code, r.json) == (  # the API's check of every string, first
        422,
        {"errors": {"team": ["Недопустимый символ U+0001: удалите его."]}},
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 0
    assert db.session.scalar(db.select(db.func.count()).select_from(Team)) == 0


def test_an_untitled_game_is_named_by_its_air_date_in_the_house_format(app, login):
    g = h.game(h.season(), 30, status="draft")
    g.air_date = date(2026, 11, 30)
    h.commit()
    assert g.display_title == "Игра 30.11.2026"
    text = page(login("producer").get(f"/games/{g.id}"))
    assert g.label.startswith("Игра 30.11.2026 — ")  # then kind, team, season, number
    assert f"<h1>{g.label} <small>(черновик)</small></h1>" in text
    assert "2026-11-30" not in text
