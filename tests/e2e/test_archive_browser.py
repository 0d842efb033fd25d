"""A viewer reads the archive on a phone in headless Debian Chromium: the list of aired
games, a game, «Показать ответ» opens the answer; without JavaScript too (``<details>``)."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402  (after the skip: playwright may be absent)

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


@pytest.fixture
def game_id(live_server):
    from tests.webapp.archive.rows import aired_archive_game

    return aired_archive_game(live_server.app)


def _open_game(page, url: str) -> None:
    page.goto(f"{url}/archive")
    page.get_by_role("link", name="Игра 30 декабря 2023\u202fг.").click()
    page.wait_for_url("**/archive/games/*")
    expect(page.locator("h1")).to_have_text("Игра 30 декабря 2023\u202fг.")


@pytest.mark.parametrize("javascript", [True, False])
def test_a_viewer_opens_an_answer(live_server, browser, game_id, javascript):
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        locale="ru-RU",
        java_script_enabled=javascript,
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        _open_game(page, live_server.url)
        answer = page.get_by_text("Санкт-Петербург")
        expect(answer).to_be_hidden()
        page.get_by_text("Показать ответ").click()
        expect(answer).to_be_visible()
        expect(page.locator(".outcome")).to_have_text("Знатоки не ответили.")
        # nothing wider than the phone's screen
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
