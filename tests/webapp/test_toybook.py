"""The toy book (``tests/toybook``), registered by one fixture and defined nowhere in Sova:
offered by the season form and the API, its season takes its currency, zone and default
prize, its game plays to its own three points and is refused in its own words, closing it
owes the viewers its own prize, printed on a gift agreement, and its own individual prize
(the Toy Owl, :mod:`tests.toybook.prizes`) is awarded after its final and paid at its own
amount — through the pages Sova's books use, with nothing of Sova changed."""

from __future__ import annotations

import html
import io
from decimal import Decimal
from pathlib import Path

import pypdf

from tests.forms import get_page, page_forms, submit_form
from tests.helpers import EXPERTS_WIN, VIEWERS_WIN
from webapp.core.models import Document
from webapp.domain.books import BOOKS
from webapp.extensions import db
from webapp.games.models import Season
from webapp.prizes.models import Prize

# three lost rounds end a toy game (three points win it)
TOY_VIEWERS_WIN = VIEWERS_WIN[:6]
TOY_EXPERTS_WIN = EXPERTS_WIN[:6]
TEAM = ["Алёна Повышева", "Илья Новиков", "Максим Поташев"]


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
    # the amounts of its individual prizes are the book's: its own Toy Owl's, nothing else
    assert season.prize_amounts == [("toy_owl", Decimal("250.00"))]
    # a season made before its book gave a prize has no row of its amount: the book's default
    season.amount_rows.clear()
    db.session.flush()
    assert season.prize_amount("toy_owl") == Decimal("250.00")
    season.set_prize_amount("toy_owl", Decimal("260.00"))
    db.session.commit()
    page = get_page(client, f"/games/seasons/{season.id}")
    assert (
        '<li data-amount="toy_owl">Игрушечная сова лучшему знатоку финала: 260,00\xa0RUB'
        " (п. 9.3 Игрушечных правил)</li>"
    ) in html.unescape(page)
    assert season.book is toy_book
    assert (
        form.fields["season-ruleset"] == "2023"
    )  # the first registered book is the form's default


def test_the_api_refuses_a_book_nobody_registered(api):
    r = api("post", "/api/v1/seasons", role="producer", json={"name": "Т", "ruleset": "toy"})
    assert r.status_code == 422, r.json
    assert r.json["errors"]["ruleset"] == ["Допустимые значения: 2023, 2009."]


#: A process that registers the toy book, as a deployment registers its books when Sova is
#: imported, and prints the rule sets its OpenAPI document offers for a season.
DOCUMENT_ENUM = """
import json, sys, tempfile
from tests.toybook import TOY
from webapp.domain.books import register
register(TOY)
from webapp.app import create_app
folder = tempfile.mkdtemp()
app = create_app({"TESTING": True, "SOVA_INSTANCE_PATH": folder,
                  "SOVA_DATABASE_URL": f"sqlite:///{folder}/sova.db"})
spec = app.test_client().get("/api/v1/openapi.json").json
print(json.dumps(spec["components"]["schemas"]["SeasonIn"]["properties"]["ruleset"]["enum"]))
"""


def test_the_api_document_offers_a_book_registered_with_sova():
    """In a process of its own: in a process that has built the document once, a book
    registered afterwards is missing from the documents built later (flask-smorest or
    apispec keeps part of the first build), which a deployment never meets, since its
    books are registered when Sova is imported."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", DOCUMENT_ENUM], cwd=root, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["2023", "2009", "toy"]


def test_a_toy_game_through_the_api(toy_book, app, api, played, drain):
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


def test_the_toy_owl_is_awarded_after_a_toy_final_and_paid_its_own_amount(
    toy_book, app, api, login, played, drain
):
    game = played("series_final", TOY_EXPERTS_WIN, ruleset="toy")
    state = api("get", f"/api/v1/games/{game}", role="producer").json["state"]
    assert (state["score"], state["winner"]) == ("3:0", "experts")
    assert api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"] == []

    # the producer's award page offers the toy book's prize, and only it
    client = login("producer")
    page = get_page(client, f"/prizes/games/{game}/award")
    assert '<option value="toy_owl">Игрушечная сова (п. 9.3 Игрушечных правил)</option>' in (
        html.unescape(page)
    )
    assert "best_participant_of_series" not in page
    r = client.post(
        f"/prizes/games/{game}/award",
        data={"kind": "toy_owl", "recipient": "Чужой", "team": "\n".join(TEAM), "author_id": "0"},
    )
    assert r.status_code == 409
    assert (
        "Приз не присуждён: «Чужой» не входит в состав команды знатоков этой игры: приз "
        "вручается только её участнику (п. 9.3 Игрушечных правил)"
    ) in html.unescape(r.text)
    r = client.post(
        f"/prizes/games/{game}/award",
        data={
            "kind": "toy_owl",
            "recipient": "Илья Новиков",
            "team": "\n".join(TEAM),
            "author_id": "0",
        },
        follow_redirects=True,
    )
    assert r.status_code == 200 and "Присуждено призов: 1." in r.text
    prize = db.session.scalars(db.select(Prize)).one()
    assert (
        prize.kind,
        prize.recipient_name,
        prize.amount,
        prize.currency,
        prize.trophy,
        prize.rule,
        prize.status,
    ) == (
        "toy_owl",
        "Илья Новиков",
        Decimal("250.00"),
        "RUB",
        "toy_owl",
        "toy_rules.txt §9.3",
        "owed",
    )
    text = html.unescape(get_page(client, f"/prizes/{prize.id}"))
    assert "Награда: Игрушечная сова." in text
    assert "п. 9.3 Игрушечных правил" in text

    # the API gives the same prize again, and the book's paperwork is one gift agreement
    again = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "toy_owl", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert again.status_code == 201, again.json
    assert again.json["prizes"] == [
        {
            "id": prize.id,
            "kind": "toy_owl",
            "amount": "250.00",
            "currency": "RUB",
            "author": "Илья Новиков",
            "question_id": None,
            "trophy": "toy_owl",
            "rule": "toy_rules.txt §9.3",
        }
    ]
    assert drain() == ["prizes.issue_agreement"]
    text = pdf_text(app, prize.agreement.document_id)
    assert "250,00 (Двести пятьдесят) рублей 00 копеек" in text
    assert "п. 9.3 Игрушечных правил «Что? Где? Когда?»" in text

    # a prize of Sova's own books is refused in a toy season, naming the book that has it
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "message": "приз «Лучший участник серии» есть только в правилах 2023 года, "
        "а сезон играет по правилам toy года",
        "rule": "000_90d7c8192601ed3a.txt §4.11.2",
    }


def test_the_toy_owl_is_refused_in_a_season_of_another_book(toy_book, api, played):
    game = played("series_final", EXPERTS_WIN)
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "toy_owl", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "message": "приз «Игрушечная сова» есть только в правилах toy года, "
        "а сезон играет по правилам 2023 года",
        "rule": "toy_rules.txt §9.3",
    }
