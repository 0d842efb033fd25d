"""Wording a person reads: a team named once (never «команда Команда …»), every count
through the one plural helper (:func:`webapp.domain.text.quantity`), the 2009 vote result
citing its clause as people read it."""

from __future__ import annotations

import re

import pytest

from tests.webapp.games import helpers as h
from webapp.domain.text import plural, quantity, team_phrase
from webapp.games.operations import assign_envelopes

QUESTIONS = ("вопрос", "вопроса", "вопросов")


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0 вопросов"), (1, "1 вопрос"), (2, "2 вопроса"), (5, "5 вопросов"), (11, "11 вопросов"),
     (21, "21 вопрос"), (22, "22 вопроса"), (112, "112 вопросов")],
)  # fmt: skip
def test_quantity_in_russian(n, text):
    assert quantity(n, QUESTIONS) == text


def test_plural_in_belarusian_and_english():
    days_be = ("дзень", "дні", "дзён")
    assert [plural(n, days_be) for n in (1, 3, 5, 21)] == ["дзень", "дні", "дзён", "дзень"]
    assert [quantity(n, ("day", "days")) for n in (0, 1, 2)] == ["0 days", "1 day", "2 days"]
    with pytest.raises(ValueError):
        plural(1, ("один",))


def test_team_phrase_never_says_team_twice():
    assert team_phrase("Королёва") == "команда «Королёва»"
    assert team_phrase("Королёва", capital=True, quotes=False) == "Команда Королёва"
    assert team_phrase("Команда Евгения Стихина") == "Команда Евгения Стихина"
    assert team_phrase("КОМАНДА Х", capital=True) == "КОМАНДА Х"
    assert team_phrase("") == ""


@pytest.mark.parametrize(
    ("name", "shown"),
    [("Команда Евгения Стихина", "Команда Евгения Стихина"), ("Королёва", "Команда «Королёва»")],
)
def test_the_console_names_the_team_once(app, login, name, shown):
    h.approved_questions(15)
    g = h.game(
        h.season(),
        team_=h.team(name),
        table={"blitz": 4, "superblitz": None, "sector13": 13},
        status="draft",
    )
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    page = login("host").get(f"/games/{g.id}/console").get_data(as_text=True)
    assert f'<span id="console-team">{shown}</span>' in page
    assert not re.search(r"(?i)команда\s+«?команда", page)


def test_the_privacy_notice_counts_days_and_hours_in_each_language(make_app):
    app = make_app(
        SOVA_DETAILS_LINK_HOURS=1,
        SOVA_PAYEE_RETENTION_DAYS=21,
        SOVA_VOTE_RETENTION_DAYS=2,
        SOVA_BACKUP_RETENTION_DAYS=35,
    )
    client = app.test_client()
    ru = " ".join(client.get("/privacy?lang=ru").text.split())
    assert (
        "Ссылка для ввода реквизитов действует 1 час; реквизиты удаляются через 21 день после "
        "выплаты приза."
    ) in ru
    assert "удаляются через 2 дня после закрытия голосования" in ru
    assert "хранятся самое большее 35 дней:" in ru
    be = " ".join(client.get("/privacy?lang=be").text.split())
    assert "дзейнічае 1 гадзіну; рэквізіты выдаляюцца праз 21 дзень пасля" in be
    assert "праз 2 дні пасля закрыцця" in be and "не даўжэй за 35 дзён:" in be
    en = " ".join(client.get("/privacy?lang=en").text.split())
    assert "is valid for 1 hour; the details are deleted 21 days after" in en
    assert "deleted 2 days after the vote closes" in en and "at most 35 days:" in en


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        (None, "Слишком длинно: 501 символ, допускается не более 500."),
        ("be", "Занадта доўга: 502 сімвалы, дапушчаецца не больш за 500."),
        ("en", "Too long: 501 characters, at most 500 allowed."),
    ],
)
def test_a_too_long_answer_counts_its_characters_in_the_clients_language(make_app, lang, message):
    app = make_app()  # each request in its own app context: the locale is the request's
    body = {
        "question": "Назовите город, где прошёл фестиваль номер один: слово слово",
        "answer": "я" * (502 if lang == "be" else 501),
        "authors": [{"name": "Анна", "city": "Минск"}],
        "email": "anna@example.com",
        "consent": True,
    }
    headers = {"Accept-Language": lang} if lang else {}
    r = app.test_client().post("/api/v1/submissions", json=body, headers=headers)
    assert (r.status_code, r.json) == (422, {"errors": {"answer": [message]}})
