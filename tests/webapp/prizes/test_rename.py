"""Anyone could rename a prize winner by submitting with the winner's
e-mail. A submission never changes what earlier questions, prizes and documents say about
their author; identity across questions only by the e-mailed confirmation link.

Run on SQLite (the ORM path) and on PostgreSQL (the one-statement path of
``webapp.submissions.pg_intake``; skipped without SOVA_TEST_DATABASE_URL, fails under
CI=true).
"""

from __future__ import annotations

import re

import pytest

from tests.helpers import COMMISSION, VIEWERS_WIN, give_details
from tests.webapp.prizes.paperwork import doc_bytes, pdf_lines
from webapp.extensions import db
from webapp.prizes.models import Prize
from webapp.submissions.links import confirm_token, my_link_token
from webapp.submissions.models import Question, QuestionAuthor
from webapp.tasks.outbox import commit


@pytest.fixture(params=["sqlite", "postgresql"])
def app(request, make_app):
    """The prizes tests' app on SQLite or on a fresh PostgreSQL database."""
    extra = {}
    if request.param == "postgresql":
        extra["SOVA_DATABASE_URL"] = request.getfixturevalue("pg_url")
    app = make_app(
        WTF_CSRF_ENABLED=False,
        SOVA_PRIZE_COMMISSION=COMMISSION,
        SOVA_REQUIRE_SIGNOFF=False,
        **extra,
    )
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def agreement_lines(app, prize_id: int) -> list[str]:
    prize = db.session.get(Prize, prize_id)
    return pdf_lines(doc_bytes(app, prize.agreement.document_id))


def attack(client, api) -> list[int]:
    """Two submissions with the winner's address (author1@example.com) and another
    name: through the API and through the web form. Returns the new question ids."""
    body = {
        "question": "Вопрос злоумышленника о том, как переименовать чужого автора?",
        "answer": "Никак",
        "authors": [{"name": "Злоумышленник", "city": "Нигде"}],
        "email": "AUTHOR1@example.com",
        "consent": True,
    }
    r = api("post", "/api/v1/submissions", json=body)
    assert r.status_code == 201, r.json
    r = client.post(
        "/submit",
        data={
            "question": "Второй вопрос злоумышленника, уже через форму на сайте, с тем же адресом?",
            "answer": "Никак",
            "name": "Подменённое Имя",
            "city": "Где-то",
            "email": "author1@example.com",
            "consent": "y",
            "age_confirmed": "y",
        },
    )
    assert r.status_code == 302, r.data.decode()
    return [
        q.id
        for q in db.session.scalars(
            db.select(Question).where(Question.answer == "Никак").order_by(Question.id)
        )
    ]


def test_a_submission_with_a_winners_email_renames_nothing(app, api, client, played, drain):
    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    first_question = prize.question_id
    assert (prize.payee, prize.byline.city) == ("Автор 1", "Минск")
    before = agreement_lines(app, prize.id)
    assert "1 (Минск; далее — «Одаряемый»), с другой стороны, вместе именуемые «Стороны»," in before

    attacks = attack(client, api)
    assert len(attacks) == 2
    drain()
    db.session.expire_all()

    # the earlier question, its prize and the documents still carry the original name
    prize = db.session.get(Prize, prize.id)
    assert (prize.payee, prize.byline.display) == ("Автор 1", "Автор 1, Минск")
    q = db.session.get(Question, first_question)
    assert q.authors_display == "Автор 1, Минск; Соавтор 1, Брест"
    listed = api("get", f"/api/v1/prizes?game_id={game}", role="accountant").json["items"]
    assert {"name": "Автор 1", "city": "Минск"} in [p["author"] for p in listed]
    assert not any("Злоумышленник" in str(p) or "Подменённое" in str(p) for p in listed)
    assert agreement_lines(app, prize.id) == before
    # each new question carries its own name, on the same address's author row
    bylines = [db.session.get(Question, i).authors_display for i in attacks]
    assert bylines == ["Злоумышленник, Нигде", "Подменённое Имя, Где-то"]
    links = db.session.scalars(
        db.select(QuestionAuthor).where(QuestionAuthor.question_id.in_(attacks))
    ).all()
    assert {qa.author_id for qa in links} == {prize.author_id}
    assert [qa.confirmed_at for qa in links] == [None, None]

    # «Мои вопросы» of the winner: their own question once confirmed by the e-mailed link,
    # never the unconfirmed submissions typed with their address
    for q_id in attacks:  # forged confirmation: a token signed by someone else
        assert client.get(f"/confirm/{confirm_token(q_id, prize.author_id)}x").status_code == 410
    r = client.get(f"/confirm/{confirm_token(first_question, prize.author_id)}")
    assert r.status_code == 302 and "/status/" in r.headers["Location"]
    author = prize.author
    r = client.get(f"/my/{my_link_token(author)}")
    assert r.status_code == 302
    page = client.get("/my/questions").data.decode()
    assert "фестиваль номер 1:" in page
    assert "злоумышленника" not in page
    # nor can they withdraw it from that session
    r = client.post(f"/my/questions/{attacks[0]}/withdraw", data={})
    assert db.session.get(Question, attacks[0]).status != "withdrawn"

    # the agreement names the payee as they declared themselves with their details
    give_details(prize, drain)
    lines = agreement_lines(app, prize.id)
    assert "с одной стороны, и Сапего Иван Петрович (Минск), именуемый" in " ".join(lines)
    assert not [line for line in lines if re.search("Злоумышленник|Подменённое", line)]
    commit()
