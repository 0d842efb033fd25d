"""The public archive (``/archive``): aired games, a game's questions in the order asked,
the search, an author's page, the Atom feed; and «Мои вопросы» once a game has aired.

A game played and closed (``played`` + ``close``; its date 30.12.2023, so it has aired),
then moved to tomorrow: it vanishes from every archive surface, and comes back once its
air time is in the past again. A held-back question never shows."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import timedelta

from tests.webapp.archive.aired import aired_game, my_questions
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.submissions.models import Question

ATOM = "{http://www.w3.org/2005/Atom}"


def surfaces(viewer, game_id: int, author_id: int) -> dict:
    """Every archive surface as a visitor without a role sees it."""
    feed = viewer.get("/archive/feed.atom")
    assert feed.status_code == 200 and feed.mimetype == "application/atom+xml"
    root = ET.fromstring(feed.data)
    return {
        "list": viewer.get("/archive").get_data(as_text=True),
        "game": viewer.get(f"/archive/games/{game_id}").status_code,
        "search": viewer.get("/archive/search?q=фестиваль").get_data(as_text=True),
        "author": viewer.get(f"/archive/authors/{author_id}").status_code,
        "feed": [e.find(f"{ATOM}link").get("href") for e in root.iter(f"{ATOM}entry")],
    }


def test_a_game_airing_tomorrow_is_absent_from_every_surface_until_it_airs(app, api, played):
    game_id, asked = aired_game(api, played)
    author_id = asked[0].authors[0].author_id
    viewer = app.test_client()
    game = db.session.get(Game, game_id)
    aired_at = game.air_at
    game.air_at = utcnow() + timedelta(days=1)  # recorded ahead: it airs tomorrow
    db.session.commit()

    before = surfaces(viewer, game_id, author_id)
    assert f"/archive/games/{game_id}" not in before["list"]
    assert "В архиве пока нет игр." in before["list"]
    assert before["game"] == 404
    assert "Найдено: 0" in before["search"] and "фестиваль номер" not in before["search"]
    assert before["author"] == 404
    assert before["feed"] == []
    image = viewer.get(f"/archive/questions/{asked[0].id}/images/x.png")
    assert image.status_code == 404

    game = db.session.get(Game, game_id)
    game.air_at = aired_at
    db.session.commit()
    after = surfaces(viewer, game_id, author_id)
    assert f'href="/archive/games/{game_id}"' in after["list"]
    assert "Игра 30 декабря 2023\u202fг." in after["list"]
    assert after["game"] == 200
    assert "Найдено: 6" in after["search"]
    assert after["author"] == 200
    assert after["feed"] == [f"http://localhost/archive/games/{game_id}"]


def test_the_game_page(app, api, played, client):
    game_id, asked = aired_game(api, played)
    page = client.get(f"/archive/games/{game_id}").get_data(as_text=True)
    # the six questions in the order asked (sectors 1..6 spun in turn), answers hidden
    positions = [page.index(f'id="q{q.id}"') for q in asked]
    assert positions == sorted(positions)
    for n in range(1, 7):
        assert f"<h2>Вопрос {n}</h2>" in page
    assert page.count("<details") == 6
    assert page.count("<summary>Показать ответ</summary>") == 6
    assert page.count("<dt>Ответ</dt><dd>Ленинград</dd>") == 6
    assert page.count("Знатоки не ответили.") == 6
    assert "Приз автору: 300,00\xa0BYN." in page
    assert page.count("Автор пожелал остаться неизвестным") == 4
    first = asked[0].authors
    assert [a.name for a in first] == ["Автор 1", "Соавтор 1"]
    # the co-author was typed in by the sender and never confirmed: the name only
    assert (
        f'<a href="/archive/authors/{first[0].author_id}">Автор 1</a> (Минск), Соавтор 1\n'
    ) in page
    assert "Брест" not in page
    assert '<meta name="description" content="Вопросы телезрителей игры' in page
    assert "<title>Игра 30 декабря 2023\u202fг. — Архив вопросов" in page


def test_a_held_back_question_is_absent(app, api, played, client):
    game_id, asked = aired_game(api, played)
    held = asked[0]
    held.held_back_at = utcnow()
    held.held_back_reason = "Претензия правообладателя"
    db.session.commit()
    page = client.get(f"/archive/games/{game_id}").get_data(as_text=True)
    assert f'id="q{held.id}"' not in page and page.count("<details") == 5
    assert "<h2>Вопрос 1</h2>" in page and "<h2>Вопрос 6</h2>" not in page
    found = client.get("/archive/search?q=фестиваль").get_data(as_text=True)
    assert "Найдено: 5" in found and f'id="q{held.id}"' not in found
    # a NUL in the words (neither database takes it in a query) separates them as a space
    # (it answered 500)
    for q in ("%00", "фестиваль%00"):
        resp = client.get(f"/archive/search?q={q}")
        assert resp.status_code == 200, q
    assert "Найдено: 5" in resp.get_data(as_text=True)
    # its author's page: the other named question only (the co-author had only this one)
    author = held.authors[0].author_id
    assert client.get(f"/archive/authors/{author}").status_code == 404
    other = asked[1].authors[0].author_id
    page = client.get(f"/archive/authors/{other}").get_data(as_text=True)
    assert "Сыгранных вопросов в архиве: 1" in page
    assert client.get(f"/archive/questions/{held.id}/images/x.png").status_code == 404


def test_an_author_who_did_not_agree_has_no_page(app, api, played, client):
    _game_id, asked = aired_game(api, played)
    assert client.get(f"/archive/authors/{asked[2].authors[0].author_id}").status_code == 404
    page = client.get(f"/archive/authors/{asked[1].authors[0].author_id}")
    assert page.status_code == 200
    assert "<h1>Автор 2, Минск</h1>" in page.get_data(as_text=True)


def test_my_questions_show_the_outcome_and_prize_once_aired(app, api, played):
    game_id, asked = aired_game(api, played)
    question, author_id = asked[1], asked[1].authors[0].author_id
    game = db.session.get(Game, game_id)
    aired_at, game.air_at = game.air_at, utcnow() + timedelta(days=1)
    db.session.commit()
    page = my_questions(app, question, author_id)
    assert "Вопрос задан в эфире" not in page and "/archive/games/" not in page
    assert "Ваш приз" not in page

    game = db.session.get(Game, game_id)
    game.air_at = aired_at
    db.session.commit()
    page = my_questions(app, question, author_id)
    assert "Вопрос задан в эфире: знатоки не ответили." in page
    assert "Ваш приз: 300,00\xa0BYN." in page
    assert f'<a href="/archive/games/{game_id}#q{question.id}">Игра в архиве</a>' in page

    # held back after the air: the author still learns the outcome, the archive has no link
    question = db.session.get(Question, question.id)
    question.held_back_at = utcnow()
    db.session.commit()
    page = my_questions(app, question, author_id)
    assert "Вопрос задан в эфире: знатоки не ответили." in page
    assert "Игра в архиве" not in page


def test_a_question_sent_with_someone_elses_address_is_not_on_their_page(app, api, played):
    """Someone who knows only an author's e-mail address sends a question with it under
    another name, ticking the on-air consent; it is approved and aired. The archive names
    «Самозванец Подменный» with that question, as it was asked, but neither lists it on
    the author's page nor lets it rename the page or link there: only authorship the
    author confirmed through the e-mailed link counts («Мои вопросы» ignores it too).
    Once the author confirms it, it is theirs."""
    from datetime import UTC, datetime

    from tests.forms import page_forms
    from tests.webapp.archive.rows import asked_in_closed_game
    from webapp.submissions.links import confirm_token

    game_id, asked = aired_game(api, played)
    victim = asked[1].authors[0]
    assert victim.confirmed_at is not None
    impostor = app.test_client()
    (form,) = [
        f
        for f in page_forms(impostor.get("/submit").get_data(as_text=True))
        if f.action == "/submit"
    ]
    typed = {
        "question": "Какой город называли северной столицей задолго до революции?",
        "answer": "Петербург",
        "name": "Самозванец Подменный",
        "city": "Гродно",
        "email": "author2@example.com",  # the author's address, nothing more
    }
    ticked = dict.fromkeys(("consent", "consent_on_air", "age_confirmed"), "y")
    fields = {k: v for k, v in form.fields.items() if k not in form.checkboxes}
    assert impostor.post("/submit", data={**fields, **typed, **ticked}).status_code == 302
    sent = db.session.scalars(db.select(Question).order_by(Question.id.desc())).first()
    assert sent.consent_on_air and sent.authors[0].author_id == victim.author_id
    assert sent.authors[0].confirmed_at is None
    game = db.session.get(Game, game_id)
    other = asked_in_closed_game(game.season, datetime(2024, 1, 6, 18, tzinfo=UTC), [sent])
    db.session.commit()

    viewer = app.test_client()
    page = viewer.get(f"/archive/authors/{victim.author_id}").get_data(as_text=True)
    assert "<h1>Автор 2, Минск</h1>" in page
    assert "Сыгранных вопросов в архиве: 1" in page
    assert "Самозванец" not in page and "северной столицей" not in page
    aired = viewer.get(f"/archive/games/{other.id}").get_data(as_text=True)
    assert "Автор:\n    Самозванец Подменный (Гродно)" in aired
    assert f"/archive/authors/{victim.author_id}" not in aired
    found = viewer.get("/archive/search?q=северной").get_data(as_text=True)
    assert "Самозванец Подменный (Гродно)" in found
    assert f"/archive/authors/{victim.author_id}" not in found

    # the author confirms it (the link went to their address): now it is on their page
    assert viewer.get(f"/confirm/{confirm_token(sent.id, victim.author_id)}").status_code == 302
    page = viewer.get(f"/archive/authors/{victim.author_id}").get_data(as_text=True)
    assert "Сыгранных вопросов в архиве: 2" in page
    assert "<h1>Самозванец Подменный, Гродно</h1>" in page  # the newest confirmed name


def test_withdrawing_changes_only_at_the_air_never_at_the_assignment_or_the_game(app, api, played):
    """«Мои вопросы» shows a question the same way — «принят», with «Отозвать вопрос» — while
    it is approved, once it is in a game's envelope and once it was asked in a game
    recorded ahead: the author cannot tell that a game took it. The button, as the page
    renders it, is then refused with a message that says nothing about games, and the
    question stays as it was. Only at the air does the page change (the outcome, no
    button)."""
    import re

    from tests.forms import page_forms
    from webapp.submissions.links import my_link_token
    from webapp.submissions.models import Author

    game_id, asked = aired_game(api, played)
    question, author_id = asked[1], asked[1].authors[0].author_id
    game = db.session.get(Game, game_id)
    aired_at, game.air_at = game.air_at, utcnow() + timedelta(days=1)  # recorded ahead
    db.session.commit()
    viewer = app.test_client()
    link = my_link_token(db.session.get(Author, author_id))
    assert viewer.get(f"/my/{link}").status_code == 302

    def shown(page: str) -> str:
        (article,) = [a for a in page.split('<article class="my-question">') if question.text in a]
        return re.sub(r'name="csrf_token" value="[^"]*"', "", article.split("</article>")[0])

    def as_it_is_now(status: str) -> str:
        db.session.get(Question, question.id).status = status
        db.session.commit()
        return shown(viewer.get("/my/questions").get_data(as_text=True))

    approved = as_it_is_now("approved")
    assert "Отозвать вопрос" in approved and "Принят" in approved
    assert as_it_is_now("assigned") == approved  # in a game's envelope
    assert as_it_is_now("unanswered") == approved  # asked in the game, not yet aired

    as_it_is_now("assigned")
    page = viewer.get("/my/questions").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.action.endswith(f"/{question.id}/withdraw")]
    refused = viewer.post(form.action, data=form.fields, follow_redirects=True)
    flashes = re.findall(r'<div class="flash error" role="status">([^<]*)</div>', refused.text)
    assert flashes == ["Этот вопрос уже нельзя отозвать."]  # not a word of a game
    assert db.session.get(Question, question.id).status == "assigned"

    as_it_is_now("unanswered")
    game = db.session.get(Game, game_id)
    game.air_at = aired_at  # the broadcast: now the page may change
    db.session.commit()
    aired = shown(viewer.get("/my/questions").get_data(as_text=True))
    assert "Отозвать вопрос" not in aired
    assert "Вопрос задан в эфире: знатоки не ответили." in aired
