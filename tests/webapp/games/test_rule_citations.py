"""A person reads a rule as «п. 1.3 Правил сезона 2009 г.», never the rule book's file name
(:func:`webapp.domain.rules.cite`): the game form's refusal of a 2009 table plan, the
citation helper in each language, and the API's machine-readable ``rule`` unchanged."""

from __future__ import annotations

import html
import re

from tests.forms import form_fields
from tests.helpers import api_game, api_season
from webapp.domain.books import BOOKS, cite


def test_cite_in_each_language():
    r09, r23 = BOOKS["2009"].rules.file, BOOKS["2023"].rules.file
    assert cite(f"{r09} §3.1") == "п. 3.1 Правил сезона 2009 г."
    assert cite(f"{r23} §4.4") == "п. 4.4 Правил сезона 2023 г."
    assert cite(f"{r23} §4.4", "be") == "п. 4.4 Правілаў сезона 2023 г."
    assert cite(f"{r09} §1.3", "en") == "clause 1.3 of the 2009 season rules"
    assert cite(f"{r23} §4.11.2–§4.11.5") == "п. 4.11.2–4.11.5 Правил сезона 2023 г."
    assert cite(None) == "" and cite("не правило") == "не правило"


def test_a_2009_plan_refused_on_the_game_form_cites_the_clause_as_people_read_it(api, login):
    season = api_season(api, "Сезон 2009", "2009", unanswered_prize="1000.00")
    client = login("producer")
    page = client.get("/games/").get_data(as_text=True)
    data = form_fields(page, "/games/new")
    assert "game-sector13" in data and "game-season_id" in data, data
    data.update(
        {
            "game-season_id": str(season),
            "game-air_date": "2009-03-01",
            "game-sector13": "7",
            "game-superblitz": "5",
            "game-blitz": "",
        }
    )
    r = client.post("/games/new", data=data, follow_redirects=True)
    text = html.unescape(r.get_data(as_text=True))
    assert (
        "Игра не создана: 13 сектор: по правилам 2009 вопросы из Интернета играют в 13-м секторе "
        "(п. 1.3 Правил сезона 2009 г.)"
    ) in text
    assert not re.search(r"\.txt|e025d5ded135c1c4", text)
    # the API's 422 is read by a person too; a 409's "rule" stays the contract's citation
    r = api_game(api, season, "2009-03-01", {"blitz": None, "superblitz": 5, "sector13": 7})
    assert r.json["errors"]["table.sector13"] == [
        "по правилам 2009 вопросы из Интернета играют в 13-м секторе (п. 1.3 Правил сезона 2009 г.)"
    ]
