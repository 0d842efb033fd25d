"""A database outage must not lose the viewer's text. The database of the
live server really becomes unreachable (its SQLite file is replaced by a directory and the
pool is emptied: every connection fails with "unable to open database file"); the submit
form comes back as a 503 with the text kept and a clear message, in Chromium."""

from __future__ import annotations

import pytest

from tests.helpers import break_database

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


QUESTION = "Какой город называют северной столицей России? Назовите его одним словом."


def test_a_database_outage_keeps_the_viewers_text(live_server, page):
    page.goto(f"{live_server.url}/submit")
    page.fill("#question", QUESTION)
    page.fill("#answer", "Петербург")
    page.fill("#name", "Пётр Иванов")
    page.fill("#city", "Минск")
    page.fill("#email", "petr@example.com")
    page.check("#consent")
    page.check("#age_confirmed")
    break_database(live_server.app)
    with page.expect_response(lambda r: r.url.endswith("/submit")) as answer:
        page.click("button[type=submit]")
    assert answer.value.status == 503
    page.wait_for_load_state("load")
    assert page.input_value("#question") == QUESTION
    assert page.input_value("#answer") == "Петербург"
    assert page.input_value("#email") == "petr@example.com"
    assert "База данных временно недоступна, вопрос не сохранён." in page.content()
