"""The second editor signs off the sources of a selection of the queue at once, through the
queue page's own form and button: each question recorded and audited one by one, never one
the signer approved."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from tests.webapp.moderation import pages
from tests.webapp.moderation.queue_data import make
from webapp.extensions import db
from webapp.moderation.models import ModerationAudit, QuestionSignoff
from webapp.moderation.operations import decide, sign_off
from webapp.moderation.views.signoffs import questions
from webapp.submissions.models import Question
from webapp.tasks.outbox import commit

TEXTS = [
    ("Какой город основал Ярослав Мудрый на Волге в XI веке?", "Ярославль"),
    ("Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.", "Западная Двина"),
    ("Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?", "Бородин"),
    ("Какая река Европы длиннее всех и впадает в Каспийское море у Астрахани?", "Волга"),
    ("В каком городе на Волге стоит кремль, построенный при Иване Грозном?", "Казань"),
]


@pytest.fixture
def approved(app, staff):
    """Five questions: three approved by the chief editor, one approved by the editor, one
    still in review."""
    chief, editor = staff("chief_editor")[0], staff("editor")[0]
    made = [make(t, a, "Минск", "web", days_old=9 - i) for i, (t, a) in enumerate(TEXTS)]
    for q in made[:3]:
        decide(q, "approve", chief)
    decide(made[3], "approve", editor)
    commit()
    return [q.id for q in made]


def _select_all_and_press(client, page: str, text: str):
    """Check every question of the page (what «Отметить все на странице» does) and press
    the button ``text`` of the queue's selection form."""
    btn = pages.button(page, text)
    form = pages.form(page, id="bulk")
    assert btn["form"]["id"] == "bulk"
    data = [(k, v) for k, v in form["fields"]] + [("ids", str(i)) for i in pages.listed(page)]
    return client.post(btn["formaction"] or form["action"], data=MultiDict(data))


def test_the_plural_of_question():
    assert [questions(n) for n in (1, 2, 5, 11, 21, 22, 112)] == [
        "1 вопрос",
        "2 вопроса",
        "5 вопросов",
        "11 вопросов",
        "21 вопрос",
        "22 вопроса",
        "112 вопросов",
    ]


def test_second_editor_signs_off_a_whole_page(approved, login, client, staff):
    client = login("editor")
    editor = staff("editor")[0]
    search = pages.form(client.get("/editor/queue").get_data(as_text=True), role="search")
    page = client.get("/editor/queue?" + pages.filled(search["fields"], status="")).get_data(
        as_text=True
    )
    assert pages.listed(page) == approved
    assert 'data-select-all="ids" aria-label="Отметить все на странице"' in page

    preview = _select_all_and_press(client, page, "Источники проверены…")
    assert preview.status_code == 200
    html = preview.get_data(as_text=True)
    assert "<h1>Источники проверены: 3 вопроса</h1>" in html
    assert "<h2>Не подтверждаются (2 вопроса)</h2>" in html
    assert f"<li>№ {approved[3]}: одобрен вами: источники подтверждает второй редактор</li>" in html
    assert f"<li>№ {approved[4]}: статус «на рассмотрении»</li>" in html
    assert db.session.scalars(db.select(QuestionSignoff)).all() == []  # a preview writes nothing

    confirm = pages.form(html, action="/editor/signoffs")
    assert dict(confirm["fields"])["ids"] == " ".join(str(i) for i in approved[:3])
    assert pages.button(html, "Подтвердить: 3 вопроса")
    resp = client.post(confirm["action"], data=MultiDict(confirm["fields"]), follow_redirects=True)
    assert "Источники проверены: 3 вопроса; они могут попасть в конверт." in resp.get_data(
        as_text=True
    )
    db.session.expire_all()
    rows = db.session.scalars(db.select(QuestionSignoff).order_by(QuestionSignoff.question_id))
    assert [(s.question_id, s.user_id) for s in rows] == [(i, editor) for i in approved[:3]]
    audit = db.session.scalars(db.select(ModerationAudit).order_by(ModerationAudit.id))
    assert [(a.question_id, a.user_id, a.action) for a in audit] == [
        (i, editor, "sign_off") for i in approved[:3]
    ]

    # the same page again: nothing left to sign off, each question says why
    html = _select_all_and_press(client, page, "Источники проверены…").get_data(as_text=True)
    assert "<h1>Источники проверены: 0 вопросов</h1>" in html
    assert "<h2>Не подтверждаются (5 вопросов)</h2>" in html
    assert f"<li>№ {approved[0]}: источники уже проверены</li>" in html
    assert "Подтвердить:" not in html


def test_a_stale_confirmation_signs_off_nothing(approved, login, client, staff):
    """Between the preview and the confirmation another editor signed one off: the whole
    selection is refused, nothing of it is written, the preview shows why."""
    client = login("editor")
    page = client.get("/editor/queue?status=approved").get_data(as_text=True)
    html = _select_all_and_press(client, page, "Источники проверены…").get_data(as_text=True)
    confirm = pages.form(html, action="/editor/signoffs")
    sign_off(db.session.get(Question, approved[1]), staff("admin")[0])
    commit()
    resp = client.post(confirm["action"], data=MultiDict(confirm["fields"]))
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert "<h1>Источники проверены: 2 вопроса</h1>" in html
    assert f"<li>№ {approved[1]}: источники уже проверены</li>" in html
    db.session.expire_all()
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionSignoff)) == 1


def test_the_approver_cannot_sign_off_a_selection_of_their_own(approved, login, client):
    client = login("chief_editor")
    page = client.get("/editor/queue?status=approved").get_data(as_text=True)
    html = _select_all_and_press(client, page, "Источники проверены…").get_data(as_text=True)
    assert "<h1>Источники проверены: 1 вопрос</h1>" in html
    assert "<h2>Не подтверждаются (3 вопроса)</h2>" in html
    resp = client.post(
        "/editor/signoffs", data={"ids": " ".join(map(str, approved[:4])), "confirm": "1"}
    )
    assert resp.status_code == 200  # the preview again, nothing signed off
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionSignoff)) == 0


def test_more_than_a_page_is_signed_off_page_by_page(app, login, client, staff):
    """55 approved questions, 50 a page: the queue's «Источники: ещё не проверены вторым
    редактором» filter lists those left to sign off; after the first page is signed off the
    queue comes back with the filter kept and lists the other five, then none; the filter
    «проверены» lists all 55."""
    chief = staff("chief_editor")[0]
    made = []
    for i in range(55):
        q = make(
            f"Вопрос номер {i} о реке, на которой стоит древний город Полоцк?",
            "Двина",
            "Минск",
            "web",
            days_old=60 - i,
        )
        decide(q, "approve", chief)
        made.append(q.id)
    commit()
    client = login("editor")
    search = pages.form(client.get("/editor/queue").get_data(as_text=True), role="search")
    assert ("signoff", "") in search["fields"]
    query = pages.filled(search["fields"], status="approved", signoff="pending")
    page = client.get(f"/editor/queue?{query}").get_data(as_text=True)
    assert pages.listed(page) == made[:50]
    assert "Вопросов: 55" in page
    assert '<option selected value="pending">ещё не проверены вторым редактором</option>' in page

    preview = _select_all_and_press(client, page, "Источники проверены…").get_data(as_text=True)
    confirm = pages.form(preview, action="/editor/signoffs")
    resp = client.post(confirm["action"], data=MultiDict(confirm["fields"]))
    assert resp.headers["Location"] == "/editor/queue?status=approved&signoff=pending"
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Источники проверены: 50 вопросов; они могут попасть в конверт." in page
    assert pages.listed(page) == made[50:]
    assert "Вопросов: 5" in page

    preview = _select_all_and_press(client, page, "Источники проверены…").get_data(as_text=True)
    assert "<h1>Источники проверены: 5 вопросов</h1>" in preview
    confirm = pages.form(preview, action="/editor/signoffs")
    page = client.post(
        confirm["action"], data=MultiDict(confirm["fields"]), follow_redirects=True
    ).get_data(as_text=True)
    assert pages.listed(page) == [] and "Вопросов нет." in page
    db.session.expire_all()
    signed = db.session.scalars(db.select(QuestionSignoff.question_id)).all()
    assert sorted(signed) == made

    done = client.get(
        f"/editor/queue?{pages.filled(search['fields'], status='approved', signoff='done')}"
    )
    html = done.get_data(as_text=True)
    assert pages.listed(html) == made[:50] and "Вопросов: 55" in html
    nxt = client.get(pages.link(html, "следующая →")).get_data(as_text=True)
    assert pages.listed(nxt) == made[50:]


def test_the_question_page_offers_the_approver_no_sign_off_button(approved, login, client):
    """The chief editor approved the first question: its page says another editor signs
    its sources off, with no button he could only be refused by; the editor, who did not
    approve it, gets the button."""
    chief = login("chief_editor")
    page = chief.get(f"/editor/questions/{approved[0]}").get_data(as_text=True)
    assert "вы одобрили этот вопрос, его источники проверяет другой редактор." in page
    assert f'action="/editor/questions/{approved[0]}/sign-off"' not in page
    editor = login("editor")
    page = editor.get(f"/editor/questions/{approved[0]}").get_data(as_text=True)
    assert f'action="/editor/questions/{approved[0]}/sign-off"' in page
