"""The toy book (``tests/toybook``) through the pages in headless Debian Chromium: the
producer chooses it on the season form; the host plays its game on the console to its own
three points and is refused in its words; the producer closes the game and the gift agreement
of its prize prints the toy book's amount and title."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402  (after the skip: playwright may be absent)

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


def choose_the_toy_book(live_server, page) -> int:
    """The producer creates «Игрушечный» with the toy book on the season form → its id."""
    from webapp.extensions import db
    from webapp.games.models import Season

    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/")
    assert page.locator("#season-ruleset option").all_inner_texts() == [
        "2023 (Беларусь, BYN)",
        "2009 (Россия, RUB)",
        "toy (RUB)",
    ]
    page.fill("#season-name", "Игрушечный")
    page.select_option("#season-ruleset", "toy")
    page.get_by_role("button", name="Создать сезон").click()
    expect(page.locator("main")).to_contain_text("Сезон «Игрушечный» создан.")
    expect(page.locator("#seasons + ul")).to_contain_text("правила toy, RUB")
    with live_server.app.app_context():
        return db.session.scalar(db.select(Season.id).where(Season.name == "Игрушечный"))


def test_the_producer_chooses_the_toy_book_on_the_season_form(live_server, page, toy_book):
    season_id = choose_the_toy_book(live_server, page)
    from webapp.extensions import db
    from webapp.games.models import Season

    with live_server.app.app_context():
        season = db.session.get(Season, season_id)
        assert (season.ruleset, season.currency, season.timezone) == (
            "toy",
            "RUB",
            "Asia/Yekaterinburg",
        )
        assert str(season.unanswered_prize) == "150.00"


def test_a_toy_game_on_the_console_closed_with_its_prize(live_server, page, browser, toy_book):
    import pypdf

    from tests.webapp.games import helpers as h
    from webapp.extensions import db
    from webapp.games.models import Season
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.tasks.outbox import commit

    season_id = choose_the_toy_book(live_server, page)
    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            db.session.get(Season, season_id),
            table={"blitz": None, "superblitz": None, "sector13": None},
            status="draft",
            team_=h.team(),
        )
        assign_envelopes(g)
        lock_table(g, None)
        h.startable(g)
        game_id = g.id
        commit()

    host_context = browser.new_context(locale="ru-RU")
    host = host_context.new_page()
    host.set_default_timeout(15000)
    live_server.login(host, "host")
    host.goto(f"{live_server.url}/games/{game_id}/console")
    for sector in (1, 2, 3):
        form = host.locator(
            "#console-actions form", has=host.get_by_role("button", name="Волчок", exact=True)
        )
        form.locator("input[name=sector]").fill(str(sector))
        with host.expect_response(lambda r: "/console" in r.url and r.request.method == "POST"):
            form.get_by_role("button", name="Волчок", exact=True).click()
        with host.expect_response(lambda r: "/console" in r.url and r.request.method == "POST"):
            host.get_by_role("button", name="Неверно", exact=True).click()
    expect(host.locator("#console-score")).to_have_text("0:3")
    refused = host.evaluate("""async () => {
        const root = document.getElementById('console');
        const body = new FormData();
        body.append('csrf_token', root.dataset.csrf);
        body.append('type', 'spin');
        body.append('sector', '7');
        const r = await fetch(root.dataset.url, {method: 'POST', body,
                                                 headers: {'Accept': 'application/json'}});
        return [r.status, (await r.json()).error];
    }""")
    assert refused[0] == 409
    assert refused[1]["text"] == (
        "Игрушечная игра уже сыграна со счётом 0:3, волчок отдыхает (п. 7.23 Игрушечных правил)"
    )
    host_context.close()

    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator("#close-game input[type=checkbox]").check()
    page.get_by_role("button", name="Закрыть игру и начислить призы").click()
    # one author's 150,00 and two co-authors' 75,00 each
    expect(page.locator("main")).to_contain_text("Игра закрыта. Призов: 3.")
    live_server.drain()
    live_server.login(page, "accountant")  # the agreement opens to the accountant
    page.goto(f"{live_server.url}/prizes/")
    page.locator("main tr", has_text="150,00").locator("a[href^='/prizes/']").first.click()
    link = page.locator("a[href^='/prizes/documents/']").first
    response = page.request.get(f"{live_server.url}{link.get_attribute('href')}")
    assert response.status == 200
    reader = pypdf.PdfReader(io.BytesIO(response.body()))
    text = " ".join(" ".join(p.extract_text() for p in reader.pages).replace("\u00a0", " ").split())
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № ")
    assert "150,00 (Сто пятьдесят) рублей 00 копеек" in text
    assert "Игрушечных правил «Что? Где? Когда?»" in text
