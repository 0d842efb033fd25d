"""Stored XSS: viewer text full of markup, shown on every page that
shows viewer text — the author's status page, the editor queue and question page, the host
console (the page, then the parts the server renders after a spin, put in place by
console.js) — in headless Chromium.

Passes when no payload runs (``window.__xss`` stays unset, no dialog opens, no injected
element exists) and the payload is shown literally (so escaping worked, not only the CSP).
"""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures

MARK = "XSS-PROBE"
PAYLOAD = (
    f"{MARK} <script>window.__xss='script'</script>"
    "<img src=x onerror=\"window.__xss='img'\">"
    "<svg onload=\"window.__xss='svg'\"></svg>"
    '"><iframe srcdoc="<script>parent.__xss=\'iframe\'</script>"></iframe>'
    "<a href=\"javascript:window.__xss='href'\" id=xss-link>ссылка</a>"
    "{{ 7*7 }} ${7*7} — что это?"
)


def _assert_inert(page, where: str, dialogs: list[str]) -> None:
    page.wait_for_load_state("load")
    assert page.evaluate("() => window.__xss === undefined"), f"script ran on {where}"
    assert dialogs == [], f"dialog opened on {where}"
    injected = page.evaluate("""() => ({
        img: document.querySelectorAll('img[src="x"]').length,
        svg: document.querySelectorAll('svg[onload]').length,
        iframe: document.querySelectorAll('iframe[srcdoc]').length,
        link: document.querySelectorAll('#xss-link').length,
    })""")
    assert injected == {"img": 0, "svg": 0, "iframe": 0, "link": 0}, (where, injected)
    text = page.locator("body").inner_text()
    assert f"{MARK} <script>window.__xss='script'</script>" in text, f"not literal on {where}"
    # the template syntax shown as typed, not evaluated (a «49» nearby can be a time: 17:49)
    assert "{{ 7*7 }} ${7*7} — что это?" in text, where


def test_viewer_markup_never_runs_on_status_queue_question_and_console(live_server, page):
    from tests.webapp.games import helpers as h
    from webapp.extensions import db
    from webapp.games.models import EnvelopeQuestion
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.submissions.models import Question
    from webapp.tasks.outbox import commit

    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    client = live_server.app.test_client()
    resp = client.post(
        "/api/v1/submissions",
        json={
            "question": PAYLOAD,
            "answer": PAYLOAD,
            "comment": PAYLOAD,
            "authors": [
                {
                    "name": f"{MARK} <b onmouseover=\"window.__xss='name'\">Автор</b>",
                    "city": "<script>window.__xss='city'</script>",
                }
            ],
            "email": "xss@example.org",
            "consent": True,
        },
    )
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    qid, token = body["id"], body["token"]
    live_server.drain()

    # 1. the author's status page (public)
    page.goto(f"{live_server.url}/status/{token}")
    _assert_inert(page, "status page", dialogs)

    # 2. the editor queue and the question page
    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue")
    assert page.locator(f"text={MARK}").count() >= 1
    assert page.evaluate("() => window.__xss === undefined")
    page.goto(f"{live_server.url}/editor/questions/{qid}")
    _assert_inert(page, "question page", dialogs)

    # 3. the host console: every envelope question carries the payload
    with live_server.app.app_context():
        h.approved_questions(20)
        game = h.game(
            h.season(), table={"blitz": 4, "superblitz": None, "sector13": None}, status="draft"
        )
        assign_envelopes(game)
        lock_table(game, None)
        h.startable(game)
        gid = game.id
        ids = db.session.scalars(
            db.select(EnvelopeQuestion.question_id).where(EnvelopeQuestion.game_id == gid)
        ).all()
        for question in db.session.scalars(db.select(Question).where(Question.id.in_(ids))):
            question.text = PAYLOAD
            question.answer = PAYLOAD
        commit()
    page.context.clear_cookies()
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{gid}/console")
    assert page.evaluate("() => window.__xss === undefined")
    page.evaluate("() => { window.__noReload = true; }")
    form = page.locator(
        "#console-actions form", has=page.get_by_role("button", name="Волчок", exact=True)
    )
    form.locator("input[name=sector]").fill("1")
    with page.expect_response(
        lambda r: "/console" in r.url and r.request.method == "POST"
    ) as answer:
        form.get_by_role("button", name="Волчок", exact=True).click()
    page.wait_for_function("() => !document.getElementById('console').hasAttribute('aria-busy')")
    # the question's part arrives as HTML rendered by the server, escaped there, and
    # console.js puts it in place without reloading the page
    fragment = answer.value.json()["html"]["console-question"]
    assert "&lt;script&gt;window.__xss=" in fragment and "<script>" not in fragment
    _assert_inert(page, "host console after a spin (parts swapped in by console.js)", dialogs)
    assert page.evaluate("() => window.__noReload === true")
    assert MARK in page.locator("#console-question blockquote").inner_text()
    page.reload()
    _assert_inert(page, "host console (server-rendered)", dialogs)
