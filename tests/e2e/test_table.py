"""The editor adjusts the table by drag-and-drop in headless Chromium (``static/table.js``:
HTML5 drag events → the same swap endpoint as the no-JS form), then sets a topic and sees
the completeness check warn about it (table builder)."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


@pytest.fixture
def game_id(live_server):
    """A 2023 table of 13 single sectors, filled, not locked; the first question of sector 2
    already has the topic «История»."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, set_topic
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(26)
        g = h.game(
            h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
        )
        assign_envelopes(g)
        set_topic(g.envelopes[1].questions[0].question.id, "history", None)
        gid = g.id
        commit()
    return gid


def slot_question(live_server, game_id: int, sector: int) -> int:
    from webapp.extensions import db
    from webapp.games.models import Game

    with live_server.app.app_context():
        g = db.session.get(Game, game_id)
        return next(e for e in g.envelopes if e.sector == sector).questions[0].question_id


def test_editor_drags_a_question_onto_another_slot(live_server, page, game_id):
    first, second = (slot_question(live_server, game_id, s) for s in (1, 3))
    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/games/{game_id}/table")
    source = page.locator('.slot[data-sector="1"][data-slot="1"]')
    target = page.locator('.slot[data-sector="3"][data-slot="1"]')
    assert f"№{first}:" in source.inner_text() and f"№{second}:" in target.inner_text()
    with page.expect_navigation():  # table.js reloads the page after a swap
        source.drag_to(target)
    assert slot_question(live_server, game_id, 1) == second
    assert slot_question(live_server, game_id, 3) == first
    assert f"№{second}:" in page.locator('.slot[data-sector="1"][data-slot="1"]').inner_text()
    # the topic list under sector 3's question: the same topic as sector 2 → a warning
    form = page.locator(
        "form.topic", has=page.locator(f'input[name="topic-question_id"][value="{first}"]')
    )
    form.locator("select").select_option("history")
    form.get_by_role("button", name="Сохранить").click()
    page.wait_for_load_state()
    expect(page.locator("body")).to_contain_text(f"Тема вопроса №{first}: История.")
    warnings = page.locator("li", has_text="повторяется").all_inner_texts()
    assert warnings == ["тема «История» повторяется: сектор 2, вопрос 1; сектор 3, вопрос 1"]
