"""The editors' queue: filters, search, sorting, pages, claiming (two editors at once),
blind moderation with audited reveals, shortcuts. Who may open which editors'
page is checked by the generated access matrix, on a real question:
tests/security/test_access_matrix.py::test_matrix_editors_pages_on_a_real_question."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.webapp.moderation import pages
from tests.webapp.moderation.claims import claim_race
from tests.webapp.moderation.queue_data import make
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.models import ModerationAudit, QuestionClaim
from webapp.moderation.operations import ClaimConflict, ModerationError, claim, decide, precheck
from webapp.moderation.queries import QueueFilter
from webapp.submissions.models import Question
from webapp.submissions.operations import create_question
from webapp.tasks.outbox import commit

TEXTS = [
    ("Какой город основал Ярослав Мудрый на Волге в XI веке?", "Ярославль", "Гомель", "web"),
    (
        "Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.",
        "Западная Двина",
        "Минск",
        "mail",
    ),
    (
        "Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?",
        "Бородин",
        "Брест",
        "web",
    ),
]


@pytest.fixture
def three(app):
    return [
        make(*t, days_old=10 - 3 * i, sources=() if i == 2 else ("https://e.org",))
        for i, t in enumerate(TEXTS)
    ]


def ids(f: QueueFilter, **kw) -> list[int]:
    items, _ = queries.queue(filters=f, **kw)
    return [q.id for q in items]


def test_filters_sorting_and_pages(three):
    a, b, c = (q.id for q in three)
    assert ids(QueueFilter()) == [a, b, c]
    assert ids(QueueFilter(sort="newest")) == [c, b, a]
    assert ids(QueueFilter(channel="mail")) == [b]
    assert ids(QueueFilter(city="минск")) == [b]
    assert ids(QueueFilter(flag="sources_present")) == [c]
    assert ids(QueueFilter(older_than_days=5)) == [a, b]
    assert ids(QueueFilter(newer_than_days=5)) == [c]
    assert ids(QueueFilter(status="approved")) == []
    assert ids(QueueFilter(min_score=1)) == []
    assert queries.queue(filters=QueueFilter(), per_page=2, page=2) == ([three[2]], 2)
    assert queries.queue(filters=QueueFilter(), per_page=2, page=99)[0] == [three[2]]


def test_duplicate_score_filter_and_sort(three):
    dup = make(TEXTS[1][0].replace("Полоцк", "Полацк"), "Двина", "Пинск", "api")
    f = QueueFilter(min_score=90)
    assert ids(f) == [dup.id]
    assert ids(QueueFilter(sort="duplicate"))[0] == dup.id
    # the pre-check copies its report's best score to the question (the order's index)
    report = queries.latest_report(dup.id)
    assert report.top_score >= 90
    assert db.session.get(Question, dup.id).duplicate_score == report.top_score
    assert [db.session.get(Question, q.id).duplicate_score for q in three] == [0.0, 0.0, 0.0]
    precheck(dup.id)  # once more: the same report, the same score
    commit()
    assert db.session.get(Question, dup.id).duplicate_score == report.top_score


def test_full_text_search(three):
    a, b, c = (q.id for q in three)
    assert ids(QueueFilter(search="Полоцк")) == [b]
    assert ids(QueueFilter(search="оперу князь")) == [c]
    assert ids(QueueFilter(search='"Князь" OR')) == []  # no operator syntax from users
    assert ids(QueueFilter(search="Ярославль")) == [a]  # the answer is searched too


def test_claim_is_exclusive_until_it_expires(three, staff):
    ed1, ed2 = staff("editor")[0], staff("chief_editor")[0]
    q = three[0]
    claim(q.id, ed1)
    commit()
    with pytest.raises(ClaimConflict):
        claim(q.id, ed2)
    with pytest.raises(ModerationError, match=f"^вопрос № {q.id} взят другим редактором$"):
        decide(q, "approve", ed2)
    claim(q.id, ed1)  # renewing one's own claim is fine
    db.session.get(QuestionClaim, q.id).expires_at = utcnow() - timedelta(seconds=1)
    commit()
    assert claim(q.id, ed2).user_id == ed2  # expired: taken over
    commit()
    decide(q, "approve", ed2)  # deciding releases the claim
    commit()
    assert db.session.get(QuestionClaim, q.id) is None


def test_two_editors_claim_at_the_same_moment(app, three, staff):
    """Two threads, two connections, one question: exactly one claim wins."""
    users = [staff("editor")[0], staff("chief_editor")[0]]
    qid = three[0].id
    db.session.remove()
    assert claim_race(app, qid, users) == ["conflict", "won"]
    assert db.session.scalar(db.select(db.func.count()).select_from(QuestionClaim)) == 1


def test_blind_moderation_and_audited_reveal(three, login, client, staff):
    q = three[0]
    login("editor")
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "Мария Лис" not in page and "Гомель" not in page and "example.com" not in page
    assert "скрыты (слепая модерация)" in page and "Показать авторов" not in page
    assert client.post(f"/editor/questions/{q.id}/reveal").status_code == 403
    queue_page = client.get("/editor/queue?status=").get_data(as_text=True)
    assert "Мария Лис" not in queue_page and "Гомель@example.com" not in queue_page
    client.post("/logout")
    login("chief_editor")
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "Мария Лис" not in page and "Показать авторов" in page
    page = client.post(f"/editor/questions/{q.id}/reveal").get_data(as_text=True)
    assert "Мария Лис, Гомель &lt;Гомель@example.com&gt;" in page
    audit = db.session.scalars(db.select(ModerationAudit)).all()
    assert [(a.question_id, a.user_id, a.action) for a in audit] == [
        (q.id, staff("chief_editor")[0], "reveal_authors")
    ]


def test_pages_list_shortcuts_and_use_the_external_script(three, login, client):
    login("editor")
    for url in ("/editor/queue", f"/editor/questions/{three[0].id}"):
        page = client.get(url).get_data(as_text=True)
        assert '<script src="/static/moderation.js" defer></script>' in page
        assert "<script>" not in page
        for key in ("j", "k", "c", "a", "r", "q"):
            assert f"<dt><kbd>{key}</kbd></dt>" in page
    page = client.get(f"/editor/questions/{three[0].id}").get_data(as_text=True)
    assert 'data-shortcut="c"' in page and 'data-shortcut="a"' in page
    assert f'href="/editor/questions/{three[1].id}" data-shortcut="j"' in page
    assert client.get("/static/moderation.js").status_code == 200


def test_claim_and_release_through_pages(three, login, client, staff):
    q = three[0]
    login("editor")
    assert client.post(f"/editor/questions/{q.id}/claim").status_code == 302
    assert db.session.get(QuestionClaim, q.id).user_id == staff("editor")[0]
    page = client.get(f"/editor/questions/{q.id}").get_data(as_text=True)
    assert "Вы работаете с этим вопросом." in page
    assert client.post(f"/editor/questions/{q.id}/release").status_code == 302
    db.session.expire_all()
    assert db.session.get(QuestionClaim, q.id) is None
    assert client.post("/editor/questions/999/claim").status_code == 404


def test_queue_page_filters(three, login, client):
    login("editor")
    page = client.get("/editor/queue?channel=mail").get_data(as_text=True)
    assert "Полоцк" in page and "Ярослав" not in page
    # the filter form as the page renders it, a word typed in the score box
    form = pages.form(client.get("/editor/queue").get_data(as_text=True), role="search")
    query = pages.filled(form["fields"], q="Бородин", min_score="abc")
    page = client.get(f"/editor/queue?{query}").get_data(as_text=True)
    assert "Князь Игорь" in page and "Полоцк" not in page
    # one message, the field's own: not a second one about a range the person never gave;
    # under its own box and tied to it, not run into the next filter's label
    errors = re.findall(r'<p class="error" id="([a-z_]+)-error">([^<]*)</p>', page)
    assert errors == [("min_score", "Неверное целое число.")]
    assert 'aria-describedby="min_score-error" aria-invalid="true"' in page
    shown = " ".join(text for tag, text in _texts(page, "queue-filters"))
    assert "Неверное целое число. Старше, дней" in shown


def _texts(html: str, within: str) -> list[tuple[str, str]]:
    """The text of each block element inside the element of id ``within``, as a reader
    sees them one after another: ``[(tag, text)]``."""
    from html.parser import HTMLParser

    blocks = ("div", "p", "label", "summary")

    class Texts(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.out = 0, []

        def handle_starttag(self, tag, attrs):
            if self.depth or dict(attrs).get("id") == within:
                self.depth += tag not in ("input", "option")
                if tag in blocks:
                    self.out.append([tag, ""])

        def handle_endtag(self, tag):
            if self.depth and tag not in ("input", "option"):
                self.depth -= 1

        def handle_data(self, data):
            if self.depth and self.out and data.strip():
                self.out[-1][1] = (self.out[-1][1] + " " + data.strip()).strip()

    t = Texts()
    t.feed(html)
    return [(tag, text) for tag, text in t.out if text]


def _unlabelled(html: str) -> list[str]:
    """The form controls of a page a screen reader cannot name (what Lighthouse's «Form
    elements have associated labels» lists): each visible ``input``, ``select`` and
    ``textarea`` needs a ``<label for>`` of its id, an enclosing ``<label>`` or an
    ``aria-label``."""
    from html.parser import HTMLParser

    class Controls(HTMLParser):
        def __init__(self):
            super().__init__()
            self.controls, self.fors, self.in_label = [], set(), 0

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "label":
                self.in_label += 1
                if a.get("for"):
                    self.fors.add(a["for"])
            elif tag in ("input", "select", "textarea"):
                if a.get("type") in ("hidden", "submit", "button"):
                    return
                if not (self.in_label or a.get("aria-label")):
                    self.controls.append(a.get("id") or f"{tag} name={a.get('name')}")

        def handle_endtag(self, tag):
            if tag == "label":
                self.in_label -= 1

    c = Controls()
    c.feed(html)
    return [x for x in c.controls if x not in c.fors]


def test_every_form_control_of_the_queue_has_a_label(three, login, client):
    """The selection's «Действие» select had none (Lighthouse: accessibility 96)."""
    for role in ("editor", "chief_editor"):
        login(role)
        page = client.get("/editor/queue?min_score=abc").get_data(as_text=True)
        assert _unlabelled(page) == []
        assert '<label for="decision">Действие</label> <select id="decision"' in page


def test_an_unknown_status_lists_the_default_in_review(three, login, client, staff):
    """``?status=bogus`` (a hand-edited link) says the choice is wrong and lists what no
    status lists, «На рассмотрении» — not «Все, кроме архива», which only an empty status
    means; the CSV export follows the screen."""
    login("editor")
    decide(three[1], "approve", staff("editor")[0])
    commit()
    page = client.get("/editor/queue?status=bogus").get_data(as_text=True)
    default = client.get("/editor/queue").get_data(as_text=True)
    every = client.get("/editor/queue?status=").get_data(as_text=True)
    assert "Полоцк" not in page and "Полоцк" not in default and "Полоцк" in every
    assert "Князь Игорь" in page and "Князь Игорь" in default
    csv = client.get("/editor/export.csv?status=bogus").get_data(as_text=True)
    assert "Полоцк" not in csv and "Князь Игорь" in csv


def test_archive_questions_are_not_in_the_default_lists(app, three):
    create_question(
        {
            "question": "Старый вопрос из архива про Полоцк и Двину, сыгранный давно.",
            "answer": "Двина",
            "authors": [("Архив", None, None)],
        },
        "archive",
        status="archived",
    )
    commit()
    assert len(ids(QueueFilter(status=None))) == 3
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 4


def test_api_queue_filters(three, api):
    a, b, c = (q.id for q in three)
    body = api("get", "/api/v1/questions?status=in_review&q=Полоцк", role="editor").json
    assert [i["id"] for i in body["items"]] == [b] and body["pages"] == 1
    body = api("get", "/api/v1/questions?sort=newest&flag=sources_present", role="editor").json
    assert [i["id"] for i in body["items"]] == [c]
    resp = api("get", "/api/v1/questions?sort=bogus", role="editor")
    assert resp.status_code == 422 and "sort" in resp.json["errors"]
    assert api("get", "/api/v1/questions", role="host").status_code == 403
