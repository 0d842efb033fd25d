"""The chief editor's list of likely pairs at scale: found in SQL on the folded keys, the
same pairs in the same order as ``webapp.domain.authors.suggest`` finds them among every
author not merged, shown 50 a page with Russian links between the pages."""

from __future__ import annotations

import re
import secrets

import pytest
from sqlalchemy import insert

from tests.webapp.moderation import pages
from webapp.authors.queries import PAIRS_PER_PAGE, suggestions
from webapp.core.models import utcnow
from webapp.domain.authors import AuthorKey, suggest
from webapp.extensions import db
from webapp.submissions.models import Author, Question, QuestionAuthor

SPELLINGS = ("Пётр Ёлкин", "ПЕТР ЕЛКИН", "Пе́тр  Елкин", "Петр Елкин.", "Мария Лис")
CITIES = ("Минск", "минск", None, "Брест", "", "Ми́нск")


def many_authors() -> None:
    """Spellings × cities for 12 surnames, two merged rows, and two rows with confirmed
    addresses (a veto) and one with an unconfirmed one."""
    rows = []
    for n in range(12):
        for i, name in enumerate(SPELLINGS):
            rows.append(Author(name=f"{name} {n}", city=CITIES[(i + n) % len(CITIES)]))
    rows += [Author(name="Пётр Ёлкин 0", city="Минск", email_hash=f"h{k}") for k in range(3)]
    db.session.add_all(rows)
    db.session.flush()
    rows[1].merged_into_id = rows[0].id
    rows[7].merged_into_id = rows[6].id
    db.session.execute(
        insert(Question).values(
            id=1,
            public_token=secrets.token_urlsafe(24),
            text="Вопрос",
            answer="Ответ",
            sources=[],
            channel="web",
            status="received",
            matching_key="вопрос",
        )
    )
    for k, author in enumerate(rows[-3:-1]):
        db.session.execute(
            insert(QuestionAuthor).values(
                question_id=1,
                author_id=author.id,
                position=k,
                name=author.name,
                city=author.city,
                confirmed_at=utcnow(),
            )
        )
    db.session.commit()


def domain_pairs():
    confirmed = set(
        db.session.scalars(
            db.select(QuestionAuthor.author_id).where(QuestionAuthor.confirmed_at.is_not(None))
        )
    )
    live = db.session.scalars(db.select(Author).where(Author.merged_into_id.is_(None)))
    return suggest(
        AuthorKey(a.id, a.name, a.city, a.email_hash if a.id in confirmed else None) for a in live
    )


def test_sql_pairs_are_the_domain_pairs_and_the_page_walks_them(app, login):
    many_authors()
    expected = domain_pairs()
    assert len(expected) > PAIRS_PER_PAGE  # more than one page
    assert suggestions() == expected
    client = login("chief_editor")
    page = client.get("/editor/authors/").get_data(as_text=True)
    assert "Страница 1 из 2" in page and "← назад" not in page
    shown = re.findall(r'data-pair="(\d+)-(\d+)"', page)
    assert len(shown) == PAIRS_PER_PAGE
    page = client.get(pages.link(page, "вперёд →")).get_data(as_text=True)
    assert "Страница 2 из 2" in page and "вперёд →" not in page
    shown += re.findall(r'data-pair="(\d+)-(\d+)"', page)
    assert [(int(a), int(b)) for a, b in shown] == [(m.a.id, m.b.id) for m in expected]
    assert client.get("/editor/authors/?page=99").status_code == 200


@pytest.mark.integration
def test_sql_pairs_are_the_domain_pairs_on_postgresql(pg_app):
    """PostgreSQL orders the folded names by code point too (``COLLATE "C"``)."""
    many_authors()
    assert suggestions() == domain_pairs()


def test_an_authors_page_lists_its_questions_a_hundred_at_a_time(app, login):
    """An archive's author row may hold thousands of questions: its page lists
    ``LINKS_SHOWN`` (100) by question id, says how many there are, and links to the next
    hundred and back to the first."""
    from tests.scale_data import add_questions

    ids = add_questions(505, seed=3)  # five first authors, the question ids cycling them
    author_id = db.session.scalar(
        db.select(QuestionAuthor.author_id).where(QuestionAuthor.question_id == ids[0])
    )
    mine = [q for q in ids if q % 5 == ids[0] % 5]
    assert len(mine) == 101
    client = login("chief_editor")
    page = client.get(f"/editor/authors/{author_id}").get_data(as_text=True)
    listed = [int(n) for n in re.findall(r'href="/editor/questions/(\d+)"', page)]
    assert listed == mine[:100]
    assert "Всего вопросов: 101." in page
    more = f"/editor/authors/{author_id}?links_after={mine[99]}"
    assert [t for t, href in pages.parse(page).links if href == more] == ["Следующие"]
    page = client.get(more).get_data(as_text=True)
    assert [int(n) for n in re.findall(r'href="/editor/questions/(\d+)"', page)] == mine[100:]
    links = pages.parse(page).links
    assert ("С первого", f"/editor/authors/{author_id}") in links
    assert "Следующие" not in [t for t, _ in links]
