"""Game-day pages in headless Debian Chromium: the console refuses to start a game
whose envelopes were never printed until the producer confirms (audited); the game page
turns «готовится» into «скачать PDF» without a reload; editors reach import, letters and
partner questions from the header, and the queue's filters fold away."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


REFUSED = (
    "Игру нельзя начать: стол не заблокирован и конверты не напечатаны. Продюсер блокирует "
    "стол и печатает конверты на странице игры — или там же разрешает начать без них."
)


@pytest.fixture
def filled_game(live_server):
    """A 2023 game whose table is filled but neither locked nor printed."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft"
        )
        assign_envelopes(g)
        gid = g.id
        commit()
    return gid


def test_console_refuses_to_start_until_the_producer_confirms(live_server, browser, filled_game):
    from webapp.extensions import db
    from webapp.games.models import GameEventAudit

    host = browser.new_context(locale="ru-RU").new_page()
    live_server.login(host, "host")
    host.goto(f"{live_server.url}/games/{filled_game}/console")
    assert host.locator("#console-start").inner_text() == REFUSED
    assert host.locator("#console-actions button").count() == 0  # nothing offered
    # sent anyway (a stale page): refused with the same words, nothing recorded
    refused = host.evaluate("""async () => {
        const root = document.getElementById('console');
        const body = new FormData();
        body.append('csrf_token', root.dataset.csrf);
        body.append('type', 'spin');
        body.append('sector', '1');
        const r = await fetch(root.dataset.url, {method: 'POST', body,
                                                 headers: {'Accept': 'application/json'}});
        return [r.status, (await r.json()).error.text];
    }""")
    assert refused == [409, REFUSED]

    producer = browser.new_context(locale="ru-RU").new_page()
    live_server.login(producer, "producer")
    producer.goto(f"{live_server.url}/games/{filled_game}")
    assert producer.locator("#start-check p").inner_text() == REFUSED
    producer.get_by_label("Причина").fill("принтер сломан, ведущий читает с планшета")
    producer.get_by_role("button", name="Разрешить начать без конвертов").click()
    # the box is required: the browser keeps the form until it is ticked
    assert producer.locator("#start-check form").count() == 1
    producer.get_by_label(
        "Да, начать игру без заблокированного стола и напечатанных конвертов"
    ).check()
    producer.get_by_role("button", name="Разрешить начать без конвертов").click()
    producer.wait_for_load_state("load")
    expect(producer.locator("main")).to_contain_text(
        "Ведущий может начать игру без напечатанных конвертов."
    )
    assert producer.locator("#start-check").inner_text() == (
        "Продюсер разрешил начать игру без напечатанных конвертов: "
        "«принтер сломан, ведущий читает с планшета»."
    )
    with live_server.app.app_context():
        row = db.session.scalar(db.select(GameEventAudit).filter_by(game_id=filled_game))
        assert (row.action, row.payload) == (
            "start_ok",
            {
                "reason": "принтер сломан, ведущий читает с планшета",
                "locked": False,
                "envelopes": False,
            },
        )
        assert row.by_user_id is not None

    host.reload()
    assert host.locator("#console-start").is_hidden()
    assert host.locator("#console-actions button").all_inner_texts() == ["Волчок"]
    host.context.close()
    producer.context.close()


def test_game_page_turns_pending_documents_into_links_without_reload(
    live_server, page, filled_game
):
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.games.operations import lock_table
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        lock_table(db.session.get(Game, filled_game), None)
        commit()
    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/{filled_game}")
    page.get_by_role("button", name="Напечатать конверты").click()
    page.wait_for_load_state("load")
    docs = page.locator("#game-documents li")
    expect(docs).to_have_text(["Конверты: готовится", "Карточки ведущего: готовится"])
    page.evaluate("() => { window.__noReload = true; }")
    assert live_server.drain() == ["games.render_envelopes"] * 2
    page.wait_for_function(
        "() => !document.querySelector('#game-documents li[data-status=pending]')",
        timeout=20000,
    )
    assert docs.all_inner_texts() == ["Конверты: скачать PDF", "Карточки ведущего: скачать PDF"]
    assert page.evaluate("() => window.__noReload === true")  # never reloaded
    href = docs.first.get_by_role("link", name="скачать PDF").get_attribute("href")
    response = page.request.get(f"{live_server.url}{href}")
    assert response.status == 200 and response.body().startswith(b"%PDF")
    # the start check is gone too once the table is locked and the envelopes are printed
    page.reload()
    assert page.locator("#start-check").count() == 0


def test_editor_header_links_and_folded_queue_filters(live_server, page):
    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue")
    nav = page.locator("header nav")
    # the filters are folded: the table starts on the first screen
    assert page.locator("#queue-filters").get_attribute("open") is None
    assert not page.locator("select[name=channel]").is_visible()
    table_top = page.locator("main table").first.bounding_box()["y"]
    assert table_top < page.viewport_size["height"] / 2
    page.get_by_text("Фильтры и сортировка").click()
    page.select_option("select[name=channel]", label="письмо")
    page.get_by_role("button", name="Показать", exact=True).click()
    page.wait_for_load_state("load")
    # a filter is set: the filters stay open and say so
    assert page.locator("#queue-filters").get_attribute("open") is not None
    assert page.locator("#queue-filters summary").inner_text() == (
        "Фильтры и сортировка (заданы: 1)"
    )

    nav.get_by_role("link", name="Импорт пакета").click()
    page.wait_for_url("**/editor/import")
    nav.get_by_role("link", name="Вопрос партнёра").click()
    page.wait_for_url("**/editor/letters/new?channel=partner")
    assert page.locator("select[name=channel] option:checked").inner_text() == (
        "Вопрос партнёра (13 сектор)"
    )
    nav.get_by_role("link", name="Письмо", exact=True).click()
    page.wait_for_url("**/editor/letters/new")
    assert page.locator("select[name=channel] option:checked").inner_text() != (
        "Вопрос партнёра (13 сектор)"
    )
