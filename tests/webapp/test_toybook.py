"""The toy book (``tests/toybook``), registered by one fixture and defined nowhere in Sova:
offered by the season form and the API, its season takes its currency, zone and default
prize, its game plays to its own three points and is refused in its own words, and closing it
owes the viewers its own prize, printed on a gift agreement."""

from __future__ import annotations

import html
import io
from decimal import Decimal
from pathlib import Path

import pypdf

from tests.forms import get_page, page_forms, submit_form
from tests.helpers import VIEWERS_WIN
from webapp.core.models import Document
from webapp.domain.books import BOOKS
from webapp.extensions import db
from webapp.games.models import Season
from webapp.prizes.models import Prize

# three lost rounds end a toy game (three points win it)
TOY_VIEWERS_WIN = VIEWERS_WIN[:6]


def pdf_text(app, doc_id: int) -> str:
    doc = db.session.get(Document, doc_id)
    assert doc.status == "ready", doc.error
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.replace("\u00a0", " ").split())


def test_the_fixture_registers_the_toy_book_for_one_test_only(toy_book):
    assert list(BOOKS) == ["2023", "2009", "toy"]
    assert BOOKS["toy"] is toy_book


def test_without_the_fixture_sova_knows_its_own_books():
    assert list(BOOKS) == ["2023", "2009"]


def test_the_season_form_offers_the_toy_book_and_the_season_takes_its_values(toy_book, login):
    client = login("producer")
    page = get_page(client, "/games/")
    (form,) = [f for f in page_forms(page) if f.attrs.get("id") == "season-new"]
    assert ">toy (RUB)</option>" in page
    assert '<option value="2023">2023 (Беларусь, BYN)</option>' in html.unescape(page)
    typed = {"season-name": "Игрушечный", "season-ruleset": "toy"}
    resp = submit_form(client, page, "season-new", "/games/", **typed)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    season = db.session.scalar(db.select(Season).where(Season.name == "Игрушечный"))
    assert (season.ruleset, season.currency, season.timezone) == (
        "toy",
        "RUB",
        "Asia/Yekaterinburg",
    )
    assert season.unanswered_prize == Decimal("150.00")
    assert season.series_final_prize == Decimal("500.00")
    assert season.book is toy_book
    assert (
        form.fields["season-ruleset"] == "2023"
    )  # the first registered book is the form's default


def test_the_api_refuses_a_book_nobody_registered(api):
    r = api("post", "/api/v1/seasons", role="producer", json={"name": "Т", "ruleset": "toy"})
    assert r.status_code == 422, r.json
    assert r.json["errors"]["ruleset"] == ["Допустимые значения: 2023, 2009."]


def test_a_toy_game_through_the_api(toy_book, app, api, played, drain):
    spec = api("get", "/api/v1/openapi.json", role="producer").json
    assert spec["components"]["schemas"]["SeasonIn"]["properties"]["ruleset"]["enum"] == [
        "2023",
        "2009",
        "toy",
    ]
    game = played("qualifying", TOY_VIEWERS_WIN, ruleset="toy")
    state = api("get", f"/api/v1/games/{game}", role="producer").json
    assert state["state"]["score"] == "0:3" and state["state"]["winner"] == "viewers"

    r = api("post", f"/api/v1/games/{game}/events", role="host", json={"type": "spin", "sector": 7})
    assert r.status_code == 409, r.json
    assert r.json["error"]["code"] == "game_over"
    assert r.json["error"]["rule"] == "toy_rules.txt §7.23"
    assert r.json["error"]["message"] == (
        "Игрушечная игра уже сыграна со счётом 0:3, волчок отдыхает (п. 7.23 Игрушечных правил)"
    )

    r = api("post", f"/api/v1/games/{game}/close", role="producer")
    assert r.status_code == 200, r.json
    prizes = r.json["prizes"]
    # 150,00 to a sole author, 75,00 to each of two co-authors
    assert {(p["kind"], p["amount"], p["currency"], p["rule"]) for p in prizes} == {
        ("unanswered_question", "150.00", "RUB", "toy_rules.txt §9.2"),
        ("unanswered_question", "75.00", "RUB", "toy_rules.txt §9.2"),
    }
    drain()
    prize = db.session.scalar(
        db.select(Prize).where(Prize.amount == Decimal("150.00")).order_by(Prize.id)
    )
    text = pdf_text(app, prize.agreement.document_id)
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № ")
    assert "150,00 (Сто пятьдесят) рублей 00 копеек" in text
    assert "Игрушечных правил «Что? Где? Когда?»" in text
