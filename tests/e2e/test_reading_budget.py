"""The producer sets the episode's reading budget on the table builder in headless
Chromium, and the page shows each sector's reading time, the game's total against the
budget and the warning past it."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow

# 45 syllables counted by hand (tests/domain/test_reading.py): 10.0 s at 4.5 a second
TEN_SECONDS = " ".join(["Назовите город, где родился Франциск Скорина."] * 3)


@pytest.fixture
def game_id(live_server):
    """A 2023 table of 13 single sectors, filled, each question 10 seconds long."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(26)
        g = h.game(
            h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
        )
        assign_envelopes(g)
        for env in g.envelopes:
            for eq in env.questions:
                eq.question.text = TEN_SECONDS
        gid = g.id
        commit()
    return gid


def test_producer_sets_a_budget_and_sees_the_total_past_it(live_server, page, game_id):
    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/{game_id}/table")
    expect(page.locator('td.reading[data-sector="7"]')).to_have_text("10 с")
    expect(page.locator("#reading-total")).to_have_text("2 мин 10 с")
    expect(page.locator("#reading-warning")).to_have_count(0)
    form = page.locator("#reading-budget")
    form.get_by_label("Бюджет на чтение вопросов: минут").fill("2")
    form.get_by_label("секунд").fill("0")
    with page.expect_navigation():
        form.get_by_role("button", name="Задать бюджет").click()
    expect(page.locator("body")).to_contain_text("Бюджет на чтение: 2 мин.")
    expect(page.locator("#reading-total")).to_have_text("2 мин 10 с из 2 мин")
    expect(page.locator("#reading-warning")).to_have_text(
        "Время чтения вопросов (2 мин 10 с) больше бюджета выпуска (2 мин) на 10 с."
    )
    assert "bad" in (page.locator("#reading-total").get_attribute("class") or "")
