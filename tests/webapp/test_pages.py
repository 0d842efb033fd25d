"""Viewer and staff pages: the form keeps text on errors, CSRF is required, roles hold."""

from __future__ import annotations

import re

import pytest

from webapp.extensions import db
from webapp.submissions.models import Question

FORM = {
    "question": "Какой город называют северной столицей России? Назовите его.",
    "answer": "Санкт-Петербург",
    "name": "Пётр Иванов",
    "city": "Минск",
    "email": "petr@example.com",
    "consent": "y",
    "age_confirmed": "y",
}


def questions():
    return db.session.scalar(db.select(db.func.count()).select_from(Question))


def test_submit_form_stores_and_redirects_to_status(client, drain):
    resp = client.post("/submit", data=FORM)
    assert resp.status_code == 302
    token = re.search(r"/status/([\w-]+)", resp.headers["Location"]).group(1)
    assert len(token) == 32
    page = client.get(f"/status/{token}").get_data(as_text=True)
    assert "Получен" in page and FORM["question"] in page
    drain()
    assert "На рассмотрении редакции" in client.get(f"/status/{token}").get_data(as_text=True)


@pytest.mark.parametrize(
    "change, field, message",
    [
        ({"question": ""}, "question", "Заполните это поле."),
        ({"question": "Коротко?"}, "question", "Допускается от 20 до 3000 символов."),
        ({"question": "Очень длинный вопрос. " * 200}, "question", "Допускается от 20 до 3000"),
        ({"consent": ""}, "consent", "Без согласия на обработку персональных данных"),
        ({"email": "not-an-address"}, "email", "Неверный адрес электронной почты"),
        ({"answer": "\x07звонок"}, "answer", "Недопустимый символ U+0007: удалите его."),
    ],
)
def test_bad_input_comes_back_with_message_and_text_kept(client, change, field, message):
    data = dict(FORM, **change)
    resp = client.post("/submit", data=data)
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert message in page
    assert 'class="error-summary"' in page
    assert FORM["answer"] in page or field == "answer"
    assert questions() == 0


def test_status_of_unknown_token_is_404(client):
    assert client.get("/status/nope").status_code == 404


def test_csrf_is_required_on_forms(make_app):
    app = make_app()  # CSRF on
    client = app.test_client()
    with app.app_context():
        resp = client.post("/submit", data=FORM)
        assert resp.status_code == 400
        assert questions() == 0
        page = client.get("/submit").get_data(as_text=True)
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
        assert client.post("/submit", data=dict(FORM, csrf_token=token)).status_code == 302
        assert questions() == 1


def test_user_text_is_escaped_in_pages(client, login, drain):
    evil = "<script>alert(1)</script> Какой город называют северной столицей?"
    client.post("/submit", data=dict(FORM, question=evil))
    drain()
    login("editor")
    q = db.session.scalars(db.select(Question)).one()
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_editor_approves_from_question_page(client, login, drain):
    client.post("/submit", data=FORM)
    drain()
    login("editor")
    q = db.session.scalars(db.select(Question)).one()
    resp = client.post(f"/editor/questions/{q.id}", data={"decision": "approve"})
    assert resp.status_code == 302
    db.session.expire_all()
    assert db.session.get(Question, q.id).status == "approved"
    assert [h.to_status for h in q.history] == ["received", "prechecked", "in_review", "approved"]


# The access matrix (every endpoint × role × anonymous) is tests/security/test_access_matrix.py.


@pytest.mark.parametrize(
    "role, url, code",
    [
        ("editor", "/editor/queue", 200),
        ("host", "/editor/queue", 403),
        ("producer", "/games/", 200),
        ("accountant", "/games/", 403),
        ("accountant", "/prizes/", 200),
        ("editor", "/prizes/", 403),
    ],
)
def test_pages_by_role(login, role, url, code):
    client = login(role)
    assert client.get(url).status_code == code


def test_anonymous_staff_page_redirects_to_login(client):
    resp = client.get("/editor/queue")
    assert resp.status_code == 302 and "/login" in resp.headers["Location"]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"email": "a" * 250 + "@test.local", "password": "x"}, "Почта не длиннее 254 символов."),
        ({"email": "", "password": "x"}, "Укажите почту."),
        ({"email": "editor@test.local", "password": ""}, "Укажите пароль."),
    ],
)
def test_login_form_failing_validation_answers_422(client, staff, data, message):
    """An empty or overlong login field is a validation error (422), not 200."""
    staff("editor")
    resp = client.post("/login", data=data)
    assert resp.status_code == 422
    assert message in resp.get_data(as_text=True)


def test_login_wrong_password_still_answers_401(client, staff):
    staff("editor")
    resp = client.post("/login", data={"email": "editor@test.local", "password": "wrong"})
    assert resp.status_code == 401 and "Неверная почта или пароль." in resp.get_data(as_text=True)


def test_weasyprint_loggers_are_quiet_in_task_processes(app):
    """Beat and worker logged every WeasyPrint layout step (INFO) — held at WARNING."""
    import logging

    from webapp.tasks.celery import celery_init_app

    logging.getLogger("weasyprint.progress").setLevel(logging.INFO)
    celery_init_app(app)
    assert logging.getLogger("weasyprint.progress").getEffectiveLevel() == logging.WARNING
    assert logging.getLogger("weasyprint").level == logging.WARNING
    assert not logging.getLogger("weasyprint.progress").isEnabledFor(logging.INFO)


@pytest.mark.parametrize(
    "role,url",
    [
        ("accountant", "/prizes/?game_id=99999999999999999999"),
        ("accountant", "/prizes/?game_id=-1&after=99999999999999999999"),
        ("producer", "/games/?seasons_after=99999999999999999999&before=1e9"),
        ("editor", "/editor/queue?after=99999999999999999999"),
    ],
)
def test_a_hand_typed_huge_id_filters_nothing(client, login, role, url):
    """An id past the database's integer in a query argument is no filter (it overflowed
    SQLite's INTEGER: a 500 on the prizes list)."""
    login(role)
    assert client.get(url).status_code == 200


def test_every_table_of_a_page_sits_in_its_scroll_box():
    """A table wider than a phone's screen scrolls in its own box (sova.css ``.table-scroll``),
    never the page: every ``<table>`` of a page's template opens inside one
    (``tests/e2e/test_narrow_pages.py`` measures the pages)."""
    from webapp.resources import templates_dir

    root = templates_dir()
    bare = [
        f"{path.relative_to(root)}:{html.count(chr(10), 0, m.start()) + 1}"
        for path in sorted(root.rglob("*.html"))
        if path.parent.name != "pdf"  # printed: nothing scrolls on paper
        for html in [path.read_text(encoding="utf-8")]
        for m in re.finditer(r"<table\b", html)
        if not html[: m.start()].endswith('<div class="table-scroll">')
    ]
    assert bare == []
