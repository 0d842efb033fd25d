"""The 2009 live form (``/live``, 002_e025d5ded135c1c4.txt §1.3, §1.4.1) as a viewer meets
it: the page is fetched, its rendered ``<form>`` parsed (action, every field, the CSRF
token) and exactly that is sent. The question is a live question of the game being played
(channel ``live``, ``live_game_id``), it waits in the editors' live lane, and once approved
it is in the pool of the game's sector-13 draw (``POST /api/v1/games/{id}/draw``). Every
re-rendering of the form (field errors, ``?lang=``, 429, 413, 503, an expired token) posts
back to ``/live``."""

from __future__ import annotations

import html
import io
from urllib.parse import urlsplit

import pytest

from tests.helpers import drain_outbox
from tests.webapp.games import helpers as h
from tests.webapp.submissions.live_form import (
    QUESTION,
    TYPED,
    RenderedForm,
    rendered,
    viewer_question,
)
from webapp.extensions import db
from webapp.submissions.models import Question


@pytest.fixture
def make_site(make_app):
    """``make_site(**config)``: a deployed-like app (CSRF on), its client, an
    ``api(method, path, role, **kw)`` with bearer tokens, and a live 2009 game (a filled
    table, its first spin recorded through the API). Returns ``(app, client, api,
    game_id)``; the app context stays pushed until the test ends."""
    from contextlib import ExitStack

    with ExitStack() as stack:

        def make(**config):
            app = make_app(**config)
            stack.enter_context(app.app_context())
            return h.live_site(app)

        yield make


@pytest.fixture
def site(make_site):
    return make_site()


def test_the_rendered_live_form_reaches_the_live_lane_and_the_draw(site):
    app, client, api, game_id = site
    form = rendered(client.get("/live"))
    assert form.action == "/live"
    assert {"csrf_token", "started", "idempotency_key", "website"} <= set(form.fields)
    assert form.fields["csrf_token"]
    sent = client.post(form.action, data=form.filled(TYPED))
    assert sent.status_code == 302
    status_url = urlsplit(sent.headers["Location"])
    q = viewer_question()
    assert (q.channel, q.live_game_id, q.text) == ("live", game_id, QUESTION)
    assert status_url.path == f"/status/{q.public_token}"
    page = client.get(sent.headers["Location"]).get_data(as_text=True)
    assert QUESTION in html.unescape(page)
    assert (
        "Вопрос прислан во время прямого эфира: после проверки редакторами он участвует "
        "в жеребьёвке 13 сектора этой игры." in page
    )

    assert drain_outbox(app) == ["moderation.precheck", "notify.received"]
    db.session.refresh(q)
    assert q.status == "in_review"
    # an editor logs in (on the same browser: the test's requests share one app context)
    api("get", "/api/v1/questions", "editor")  # makes the editor's account
    token = RenderedForm(client.get("/login").get_data(as_text=True), action=None)
    login = client.post(
        "/login",
        data={**token.fields, "email": "editor@live.local", "password": "editor-pw"},
    )
    assert login.status_code == 302
    editor = client
    lane = html.unescape(editor.get("/editor/queue?channel=live").get_data(as_text=True))
    assert QUESTION in lane and "Вопросов нет." not in lane
    web_lane = html.unescape(editor.get("/editor/queue?channel=web").get_data(as_text=True))
    assert QUESTION not in web_lane

    drawn = api("post", f"/api/v1/games/{game_id}/draw", "host")
    assert drawn.status_code == 409  # not approved yet: nothing to draw from
    assert drawn.json["error"]["message"] == (
        f"игра {game_id}: среди вопросов, присланных во время игры, нет одобренного "
        "редакторами с проверенными источниками — жеребьёвке не из чего выбирать "
        "(п. 1.4.1 Правил сезона 2009 г.)"
    )
    for role, decision in (("editor", "approve"), ("chief_editor", "sign_off")):
        r = api("post", f"/api/v1/questions/{q.id}/decision", role, json={"decision": decision})
        assert r.status_code == 200, r.json
    drawn = api("post", f"/api/v1/games/{game_id}/draw", "host")
    assert drawn.status_code == 200, drawn.json
    assert drawn.json["pool"] == [q.id] and drawn.json["question_id"] == q.id
    again = api("post", f"/api/v1/games/{game_id}/draw", "producer")
    assert again.json == drawn.json  # asking again returns the same draw
    db.session.refresh(q)
    assert q.status == "assigned"


def test_a_question_of_the_web_form_is_not_a_live_one(site):
    """``/submit`` during a live game stays the web form: channel ``web``, no game."""
    _app, client, _api, _game_id = site
    form = rendered(client.get("/submit"))
    assert form.action == "/submit"
    assert client.post(form.action, data=form.filled(TYPED)).status_code == 302
    q = viewer_question()
    assert (q.channel, q.live_game_id) == ("web", None)


def test_every_rerendering_of_the_live_form_posts_to_live(site, monkeypatch):
    app, client, _api, game_id = site
    form = rendered(client.get("/live?lang=be"))
    assert form.action == "/live?lang=be"
    # a field error (no answer): the form again, still the live one, in Belarusian
    refused = client.post(form.action, data=form.filled(dict(TYPED, answer="")))
    assert refused.status_code == 422
    again = rendered(refused)
    assert again.action == "/live?lang=be"
    assert "Пытанне ў 13 сектар падчас гульні" in refused.get_data(as_text=True)
    # an expired token: the form again (400), still /live
    expired = client.post("/live", data=dict(form.filled(TYPED), csrf_token="forged"))
    assert expired.status_code == 400
    assert rendered(expired).action == "/live"
    # the corrected form, sent as rendered: a live question
    sent = client.post(again.action, data=again.filled(TYPED))
    assert sent.status_code == 302
    q = viewer_question()
    assert (q.channel, q.live_game_id, q.language) == ("live", game_id, "be")
    # a body over the form's own limit (413): the form again, posting to /live
    import webapp.submissions.views.submit_form as submit_form

    monkeypatch.setattr(submit_form, "SUBMIT_MAX_BODY", 2 * 1024 * 1024)
    from flask_babel import refresh

    refresh()  # the test's requests share one app context: the language from the cookie
    token = rendered(client.get("/live")).fields
    big = client.post(
        "/live",
        data={**token, **TYPED, "handout_image": (io.BytesIO(b"\0" * (3 * 1024 * 1024)), "a.png")},
        content_type="multipart/form-data",
    )
    assert big.status_code == 413
    assert rendered(big).action == "/live"
    assert "Адпраўка занадта вялікая (больш за 2 МБ)" in big.get_data(as_text=True)


def test_the_live_forms_429_and_503_pages_post_to_live(make_site):
    from tests.helpers import break_database

    app, client, _api, _game_id = make_site(RATELIMIT_ENABLED=True)
    # 10 stored live questions an hour from one address; the 11th is the form again (429)
    for n in range(10):
        form = rendered(client.get("/live"))
        data = form.filled(dict(TYPED, question=f"{QUESTION} Вариант {n}.", email=f"v{n}@x.ru"))
        assert client.post(form.action, data=data).status_code == 302
    form = rendered(client.get("/live"))
    data = form.filled(dict(TYPED, question=f"{QUESTION} Одиннадцатый.", email="v11@x.ru"))
    limited = client.post(form.action, data=data)
    assert limited.status_code == 429
    assert rendered(limited).action == "/live"
    assert "Слишком много отправок." in limited.get_data(as_text=True)
    assert (
        db.session.scalar(
            db.select(db.func.count())
            .select_from(Question)
            .where(Question.text.startswith(QUESTION))
        )
        == 10
    )
    # a database outage: the form again (503) with the text, posting to /live
    db.session.remove()  # the test's own connection goes too
    break_database(app)
    down = client.post(form.action, data=data, environ_base={"REMOTE_ADDR": "10.9.0.2"})
    assert down.status_code == 503
    assert rendered(down).action == "/live"
    assert f"{QUESTION} Одиннадцатый." in html.unescape(down.get_data(as_text=True))


def test_every_viewer_form_posts_back_to_its_own_page(site):
    """No viewer page hands its form to another page (the live form did: ``/submit``):
    each page's post form (not the header's) posts to the page itself, with its
    ``?lang=``."""
    from flask_babel import refresh

    _app, client, _api, _game_id = site
    for url in ("/submit", "/live", "/my", "/submit?lang=en", "/live?lang=be", "/my?lang=be"):
        refresh()  # the test's requests share one app context: forget the last locale
        page = client.get(url)
        assert page.status_code == 200, url
        form = RenderedForm(page.get_data(as_text=True), action=None)
        assert form.fields.get("csrf_token"), url
        assert (form.action or url) == url, (url, form.action)


def test_a_huge_question_text_is_the_fields_length_error_with_the_rest_kept(site):
    """480 000 characters of question (under 1 MB, no image) sent with the form /submit
    renders: 422 with the question's length error, the other fields kept (not the 413
    page «Отправка слишком большая» with every field emptied)."""
    _app, client, _api, _game_id = site
    form = rendered(client.get("/submit"))
    huge = "Очень длинный вопрос. " * 21_819  # 480 018 characters
    assert 480_000 <= len(huge) and len(huge.encode()) < 1024 * 1024
    resp = client.post(
        form.action or "/submit",
        data=form.filled(dict(TYPED, question=huge)),
        content_type="multipart/form-data",
    )
    page = resp.get_data(as_text=True)
    assert resp.status_code == 422, page[:300]
    assert "Допускается от 20 до 3000 символов." in page
    assert "Отправка слишком большая" not in page
    again = rendered(resp)
    kept = {k: again.fields[k] for k in ("answer", "name", "city", "email")}
    assert kept == {k: TYPED[k] for k in ("answer", "name", "city", "email")}
