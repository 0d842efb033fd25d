"""A viewer sends a question on ``/live`` during a live 2009 game, in headless Debian
Chromium against a real server: the page's own form posts to ``/live``; the editor finds the
question in the live lane (``/editor/queue?channel=live``); once approved and signed off,
the spin on sector 13 draws it (002_e025d5ded135c1c4.txt §1.3, §1.4.1) and the host's
console shows it."""

from __future__ import annotations

import re

import pytest

from tests.webapp.games import helpers as h

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow

QUESTION = "Вопрос из интернета во время эфира: что светит ночью, но не греет?"


def _live_2009_game(app) -> int:
    """A 2009 game with a filled table whose first round has been played (status live)."""
    from webapp.extensions import db
    from webapp.games.operations import assign_envelopes, record_event
    from webapp.tasks.outbox import commit

    with app.app_context():
        game = h.game(h.season("2009"), table={"blitz": None, "superblitz": 5, "sector13": 13})
        h.approved_questions(15)
        game.status = "draft"
        assign_envelopes(game)
        h.startable(game)
        record_event(game, {"type": "spin", "sector": 1}, None)
        record_event(game, {"type": "answer", "correct": True}, None)
        commit()
        assert game.status == "live"
        db.session.remove()
        return game.id


def test_a_live_question_sent_in_the_browser_reaches_the_live_lane_and_the_draw(live_server, page):
    from webapp.extensions import db
    from webapp.games.models import Game, Sector13Draw
    from webapp.games.operations import record_event
    from webapp.moderation.operations import decide, sign_off
    from webapp.submissions.models import Question
    from webapp.tasks.outbox import commit

    game_id = _live_2009_game(live_server.app)
    page.goto(f"{live_server.url}/live")
    assert page.locator("h1").inner_text() == "Вопрос в 13 сектор во время игры"
    assert page.locator("form[enctype]").get_attribute("action") == "/live"
    page.fill("#question", QUESTION)
    page.fill("#name", "Зритель Петров")
    page.fill("#city", "Тверь")
    page.fill("#email", "tv@example.com")
    page.check("#consent")
    page.check("#age_confirmed")
    page.click("button[type=submit]")  # no answer: the form again, still the live one
    assert "Заполните это поле." in page.locator("#error-summary").inner_text()
    assert page.locator("form[enctype]").get_attribute("action") == "/live"
    page.fill("#answer", "Луна")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/status/[\w-]+\?new=1"))
    assert "Вопрос прислан во время прямого эфира" in page.content()
    assert live_server.drain() == ["moderation.precheck", "notify.received"]

    with live_server.app.app_context():
        q = db.session.scalars(db.select(Question).where(Question.text == QUESTION)).one()
        assert (q.channel, q.live_game_id, q.status) == ("live", game_id, "in_review")
        qid = q.id
        db.session.remove()

    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue?channel=live")
    assert QUESTION in page.locator("main").inner_text()
    page.goto(f"{live_server.url}/editor/queue?channel=web")
    assert QUESTION not in page.locator("main").inner_text()

    live_server.staff("chief_editor")
    with live_server.app.app_context():
        from webapp.accounts.models import User

        editor, chief = (
            db.session.scalar(db.select(User.id).filter_by(email=f"{role}@e2e.local"))
            for role in ("editor", "chief_editor")
        )
        decide(db.session.get(Question, qid), "approve", editor)
        sign_off(db.session.get(Question, qid), chief)
        record_event(db.session.get(Game, game_id), {"type": "spin", "sector": 13}, None)
        commit()
        draw = db.session.scalars(db.select(Sector13Draw)).one()
        assert (draw.candidates, draw.question_id) == ([qid], qid)
        db.session.remove()

    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_id}/console")
    assert QUESTION in page.content()
