"""The producer runs a season in headless Debian Chromium: teams in the initial rating, the
spring series opened with the real form (CSRF on), a refused event with its clause in
Russian, the next game proposed from the season and created; then the viewers' page."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402  (after the skip: playwright may be absent)

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]


@pytest.fixture
def season_id(live_server):
    from tests.webapp.games import helpers as h
    from webapp.games.season.events import add_new_team
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        season = h.season()
        for name in SPRING[:-1]:
            add_new_team(season, name, f"{name} 1", [f"{name} {k}" for k in range(1, 7)])
        sid = season.id
        commit()
    return sid


def test_producer_runs_the_season_page(live_server, page, browser, season_id):
    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/seasons/{season_id}")
    # the fifth team, new, through the form
    page.fill("#team-name", "Королёва")
    page.fill("#team-experts", "\n".join(f"Королёва {k}" for k in range(1, 7)))
    page.fill("#team-captain", "Королёва 1")
    page.get_by_role("button", name="Добавить в рейтинг последней").click()
    expect(page.locator("main")).to_contain_text("Команда «Королёва» — в рейтинге сезона.")
    # open the spring series
    page.select_option("#event-type", "series")
    page.select_option("#event-part", "spring")
    page.fill("#event-qualifying", "5")
    page.select_option("#event-closing", "series_final")
    page.get_by_role("button", name="Записать событие").click()
    expect(page.locator("main")).to_contain_text("Событие сезона записано.")
    assert page.inner_text("#order") == "Королёва → Потапова → Стишенок → Буян → Орлова"
    assert page.inner_text("#next-game") == ("Следующая игра: отборочная, команда «Королёва».")
    assert page.locator("#rating li").all_inner_texts() == SPRING
    # the team form is gone: the initial rating is fixed by the first event
    assert page.locator("#team-form").count() == 0
    # a second series while spring is open: refused, in Russian, with the clause
    page.select_option("#event-type", "series")
    page.select_option("#event-part", "summer")
    page.fill("#event-qualifying", "5")
    page.get_by_role("button", name="Записать событие").click()
    # the page after the POST, not the one still shown while it is sent (expect waits)
    expect(page.locator("main")).to_contain_text(
        "Событие не принято: летняя серия не открывается: весенняя серия ещё не окончена — "
        "ни одна из 5 отборочных игр ещё не сыграна (п. 4.1 Правил сезона 2023 г.)"
    )
    # the new game form proposes the next game: kind and team from the season
    assert page.locator("#game-kind").input_value() == "qualifying"
    assert page.locator("#game-team_id option:checked").inner_text() == "Королёва"
    page.fill("#game-air_date", "2023-03-04")
    page.get_by_role("button", name="Создать игру").click()
    page.wait_for_url("**/games/*")
    assert "Игра создана." in page.inner_text("main")
    # the viewers' page: standings in Belarusian, nothing of the unplayed game
    viewer = browser.new_context(locale="be-BY").new_page()
    viewer.goto(f"{live_server.url}/season/{season_id}")
    assert "Рэйтынг каманд" in viewer.inner_text("main")
    assert viewer.locator("#standings li").all_inner_texts() == SPRING
    assert "Гульняў яшчэ не было." in viewer.inner_text("#results")
    viewer.context.close()
