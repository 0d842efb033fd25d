"""A co-author's consent: only the sender of a viewer form ticked «моё имя и город», so a
co-author typed into it is credited in public by name only, as the sender wrote it — no
city, no author page — on the archive, in the packet and on the host card, until that
co-author confirms the question through their own e-mailed link (the API sends one to a
co-author given with an address)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.header import decode_header, make_header

from tests.forms import page_forms
from tests.helpers import drain_outbox
from tests.webapp.archive.aired import aired_game
from tests.webapp.archive.rows import asked_in_closed_game
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.packet import author_line
from webapp.games.queries import envelope_context
from webapp.submissions.links import confirm_token
from webapp.submissions.models import Question


def _sent_with_a_coauthor(app) -> Question:
    """A question sent through the rendered /submit form by «Анна Отправителева» (Минск),
    naming «Пётр Соавторов» (Гродно) as co-author, every box ticked."""
    viewer = app.test_client()
    (form,) = [
        f for f in page_forms(viewer.get("/submit").get_data(as_text=True)) if f.action == "/submit"
    ]
    typed = {
        "question": "Какой город называли северной столицей задолго до революции?",
        "answer": "Петербург",
        "name": "Анна Отправителева",
        "city": "Минск",
        "email": "anna@example.com",
        "coauthors-0-name": "Пётр Соавторов",
        "coauthors-0-city": "Гродно",
    }
    ticked = dict.fromkeys(("consent", "consent_on_air", "age_confirmed"), "y")
    fields = {k: v for k, v in form.fields.items() if k not in form.checkboxes}
    assert viewer.post("/submit", data={**fields, **typed, **ticked}).status_code == 302
    sent = db.session.scalars(db.select(Question).order_by(Question.id.desc())).first()
    assert [(a.name, a.city) for a in sent.authors] == [
        ("Анна Отправителева", "Минск"),
        ("Пётр Соавторов", "Гродно"),
    ]
    # the sender confirms her own address (the e-mailed link)
    assert (
        viewer.get(f"/confirm/{confirm_token(sent.id, sent.authors[0].author_id)}").status_code
        == 302
    )
    return sent


def test_a_typed_in_coauthor_is_named_without_city_or_page_until_confirmed(app, api, played):
    game_id, _asked = aired_game(api, played)
    sent = _sent_with_a_coauthor(app)
    season = db.session.get(Game, game_id).season
    other = asked_in_closed_game(season, datetime(2024, 1, 6, 18, tzinfo=UTC), [sent])
    db.session.commit()
    sender, coauthor = sent.authors

    viewer = app.test_client()
    page = viewer.get(f"/archive/games/{other.id}").get_data(as_text=True)
    assert (
        f'href="/archive/authors/{sender.author.person_id}">Анна Отправителева</a> (Минск)' in page
    )
    assert "Пётр Соавторов" in page and "Гродно" not in page
    assert f"/archive/authors/{coauthor.author.person_id}" not in page
    assert viewer.get(f"/archive/authors/{coauthor.author.person_id}").status_code == 404
    assert author_line(sent) == "Анна Отправителева (Минск), Пётр Соавторов"  # the packet's
    card = envelope_context(other, with_answers=True, serial="T")
    (item,) = [q for s in card["sectors"] for q in s["questions"]]
    assert item["authors"] == [
        {"name": "Анна Отправителева", "city": "Минск"},
        {"name": "Пётр Соавторов", "city": None},
    ]

    # once the co-author confirms through their own link, name, city and page are theirs
    link = f"/confirm/{confirm_token(sent.id, coauthor.author_id)}"
    assert app.test_client().get(link).status_code == 302
    page = app.test_client().get(f"/archive/games/{other.id}").get_data(as_text=True)
    assert (
        f'href="/archive/authors/{coauthor.author.person_id}">Пётр Соавторов</a> (Гродно)' in page
    )
    assert app.test_client().get(f"/archive/authors/{coauthor.author.person_id}").status_code == 200


def test_a_coauthor_given_with_an_address_gets_a_link_to_consent(make_app, smtp_sink):
    url, received = smtp_sink
    app = make_app(SOVA_SMTP_URL=url)
    client = app.test_client()
    body = {
        "question": "Какой город называли северной столицей задолго до революции?",
        "answer": "Петербург",
        "authors": [
            {"name": "Анна Отправителева", "city": "Минск"},
            {"name": "Пётр Соавторов", "city": "Гродно", "email": "petr@example.com"},
            {"name": "Ян Безадресный", "city": "Брест"},
        ],
        "email": "anna@example.com",
        "consent": True,
        "language": "be",
    }
    with app.app_context():
        made = client.post("/api/v1/submissions", json=body)
        assert made.status_code == 201, made.json
        assert drain_outbox(app) == ["moderation.precheck", "notify.received"]
        assert drain_outbox(app) == []
    by_address = {m["To"]: m for m in received}
    assert sorted(by_address) == ["anna@example.com", "petr@example.com"]
    mail = by_address["petr@example.com"]
    subject = str(make_header(decode_header(mail["Subject"])))
    assert subject == "Вас назвалі сааўтарам пытання — «Што? Дзе? Калі?»"
    text = mail.get_payload(decode=True).decode()
    assert (
        "Анна Отправителева даслаў(-ла) пытанне для «Што? Дзе? Калі?» і назваў(-ла) вас яго сааўтарам."
        in text
    )
    link = next(w for w in text.split() if "/confirm/" in w)
    with app.app_context():
        q = db.session.scalars(db.select(Question)).one()
        assert q.authors[1].confirmed_at is None and q.authors[1].typed_in
        assert client.get(link[link.index("/confirm/") :]).status_code == 302
        db.session.expire_all()
        q = db.session.scalars(db.select(Question)).one()
        assert q.authors[1].confirmed_at is not None and not q.authors[1].typed_in
        assert q.authors[1].public_city == "Гродно" and q.authors[2].public_city is None
