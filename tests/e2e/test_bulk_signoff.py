"""The second editor selects the whole page of approved questions with one check box
(``static/moderation.js``) and signs off their sources at once, in headless Chromium."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


@pytest.fixture
def approved(live_server):
    """Three questions approved by the chief editor."""
    from tests.webapp.moderation.queue_data import make
    from webapp.accounts.models import User
    from webapp.extensions import db
    from webapp.moderation.operations import decide
    from webapp.tasks.outbox import commit

    live_server.staff("chief_editor")
    texts = [
        ("Какой город основал Ярослав Мудрый на Волге в XI веке?", "Ярославль"),
        ("Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.", "Западная Двина"),
        ("Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?", "Бородин"),
    ]
    with live_server.app.app_context():
        chief = db.session.scalar(db.select(User.id).filter_by(role="chief_editor"))
        made = [make(t, a, "Минск", "web", days_old=5 - i) for i, (t, a) in enumerate(texts)]
        for q in made:
            decide(q, "approve", chief)
        commit()
        return [q.id for q in made]


def test_select_all_and_sign_off_the_sources(live_server, page, approved):
    from webapp.extensions import db
    from webapp.moderation.models import QuestionSignoff

    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue?status=approved")
    boxes = page.locator('#bulk input[type=checkbox][name="ids"]')
    expect(boxes).to_have_count(3)
    page.get_by_label("Отметить все на странице").check()
    for i in range(3):
        expect(boxes.nth(i)).to_be_checked()
    page.get_by_role("button", name="Источники проверены…").click()
    expect(page.locator("h1")).to_have_text("Источники проверены: 3 вопроса")
    page.get_by_role("button", name="Подтвердить: 3 вопроса").click()
    expect(page.locator(".flash.success")).to_have_text(
        "Источники проверены: 3 вопроса; они могут попасть в конверт."
    )
    with live_server.app.app_context():
        signed = db.session.scalars(
            db.select(QuestionSignoff.question_id).order_by(QuestionSignoff.question_id)
        ).all()
    assert signed == approved


def test_shortcuts_follow_the_physical_key_on_a_russian_keyboard(live_server, page, approved):
    """J opens the queue's first question and Q goes back to the queue on a Russian layout
    too, where those keys type «о» and «й» (``static/moderation.js`` reads ``event.code``)."""
    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue?status=approved")
    press = "key => document.dispatchEvent(new KeyboardEvent('keydown', key))"
    page.evaluate(press, {"key": "о", "code": "KeyJ", "bubbles": True})
    page.wait_for_url(f"**/editor/questions/{approved[0]}")
    page.evaluate(press, {"key": "й", "code": "KeyQ", "bubbles": True})
    page.wait_for_url("**/editor/queue")
