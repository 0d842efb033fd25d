"""The queue filtered by the author's city (``queries.by_city``: a probe of each question's
own author links; the count from ``question_city_count`` where it answers exactly,
``queries.city_count``) lists and counts exactly the questions some author of which gave
one of the typed city's spellings (as typed, lower case, capitalised, title case), whatever the other authors,
the archive or the spellings of one question's authors: every page walked to its end, the
count at caps below, at and above the number of matches and the maintained counts equal a
computation question by question in Python, on SQLite and on PostgreSQL, before and after
the writes that move a question in or out (a status change, an author's city corrected, a
co-author added, a question deleted). The maintained counts after the other writers (the
intake, the imports, a merge) are checked with the statistics' counts
(``test_stats_day_counts``)."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from sqlalchemy import select

from tests.stats_counts import city_counts, stored
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.queries import QueueFilter
from webapp.submissions.models import Author, Question, QuestionAuthor
from webapp.tasks.outbox import commit

#: (status, [author cities]) of the questions, in the order received; the same minute
#: twice in a row now and then (the order's tie on the id).
SPEC: list[tuple[str, list[str | None]]] = [
    ("in_review", ["Минск"]),
    ("in_review", ["минск"]),
    ("in_review", ["МИНСК"]),  # not a spelling of «Минск» as typed: only of «МИНСК»
    ("in_review", ["Пинск", "Минск"]),  # a co-author's city
    ("in_review", ["Минск", "минск"]),  # two spellings on one question: listed once
    ("in_review", [None]),
    ("in_review", []),  # no author at all
    ("in_review", ["Гомель", None, "Брест"]),
    ("approved", ["Минск"]),
    ("archived", ["Минск"]),
    ("archived", ["минск", "Минск"]),
    ("rejected", ["Минск", "Минск"]),
    ("received", ["Минск"]),
    ("in_review", ["Минск Мазовецкий"]),  # another city that starts alike
    ("in_review", ["Новый Свет"]),
    ("in_review", ["новый свет"]),
    ("in_review", ["Минск"]),
    ("in_review", ["минск", "Пинск"]),
]

#: The cities typed into the filter: as stored, lower case, upper case, spaces around and
#: between words, a title-case pair of words, one that nobody gave.
TYPED = ("Минск", "минск", "МИНСК", "  минск ", "новый   свет", "Новый Свет", "Лида", "гомель")
STATUSES = ("in_review", None, "approved", "archived", "received")


def build() -> list[Question]:
    people: dict[tuple[str | None, int], Author] = {}
    start = utcnow() - timedelta(days=30)
    out = []
    for n, (status, cities) in enumerate(SPEC):
        q = Question(
            public_token=secrets.token_urlsafe(24),
            text=f"Вопрос о городе {n}",
            answer="Ответ",
            sources=[],
            channel="archive" if status == "archived" else "web",
            status=status,
            matching_key=f"вопрос о городе {n}",
            created_at=start + timedelta(minutes=n - n % 3),
        )
        for position, city in enumerate(cities):
            author = people.get((city, position))
            if author is None:
                author = Author(name=f"Автор {position} из {city}", city=city)
                people[city, position] = author
            q.authors.append(
                QuestionAuthor(author=author, position=position, name=author.name, city=city)
            )
        db.session.add(q)
        out.append(q)
    commit()
    return out


def expected(f: QueueFilter) -> list[int]:
    """The ids the queue of ``f`` lists, oldest first, computed question by question."""
    typed = " ".join((f.city or "").split())
    spellings = {typed, typed.lower(), typed.capitalize(), typed.title()}
    rows = db.session.execute(
        select(Question.id, Question.status, Question.created_at).order_by(
            Question.created_at, Question.id
        )
    ).all()
    cities: dict[int, set] = {}
    for qid, city in db.session.execute(select(QuestionAuthor.question_id, QuestionAuthor.city)):
        cities.setdefault(qid, set()).add(city)
    return [
        qid
        for qid, status, _ in rows
        if (status == f.status if f.status else status != "archived")
        and cities.get(qid, set()) & spellings
    ]


def walk(f: QueueFilter, per_page: int) -> list[int]:
    """Every page of the queue of ``f``, forwards, each after the last of the one before."""
    seen: list[int] = []
    page = queries.queue_page(f, per_page=per_page)
    while True:
        seen += [q.id for q in page.items]
        if not page.items or page.after is None:
            return seen
        page = queries.queue_page(f, after=page.after, per_page=per_page)


def assert_exact() -> None:
    db.session.expire_all()
    assert stored()["city"] == city_counts()
    for typed in TYPED:
        for status in STATUSES:
            f = QueueFilter(status=status, city=typed)
            want = expected(f)
            counted = queries.city_count(f)
            assert counted is None or counted == len(want), (typed, status)
            assert walk(f, 2) == want, (typed, status)
            assert [q.id for q in queries.queue_page(f).items] == want, (typed, status)
            for cap in (1, max(1, len(want) - 1), max(1, len(want)), len(want) + 1, 1000):
                got = queries.queue_count(f, cap=cap)
                assert got == min(len(want), cap + 1), (typed, status, cap)


def build_and_check() -> None:
    from webapp.accounts.operations import create_user
    from webapp.moderation.operations.editing import correct_author
    from webapp.submissions.models import set_status

    chief = create_user("chief@test.local", "chief_editor", password="chief-pw")[0].id
    qs = build()
    f = QueueFilter(city="Минск")
    assert expected(f) == [qs[i].id for i in (0, 1, 3, 4, 16, 17)]
    assert queries.queue_count(f) == 6
    # the counts answer for one spelling per status; not for two spellings in one status
    # (a question giving both would count twice), the archive, or another filter beside
    assert queries.city_count(QueueFilter(city="гомель")) == 1
    assert queries.city_count(QueueFilter(city="Минск", status="approved")) == 1
    assert queries.city_count(QueueFilter(city="Лида", status=None)) == 0
    assert queries.city_count(f) is None
    assert queries.city_count(QueueFilter(city="Новый Свет")) is None
    assert queries.city_count(QueueFilter(city="Минск", status="archived")) is None
    assert queries.city_count(QueueFilter(city="гомель", channel="web")) is None
    assert queries.city_count(QueueFilter(city="гомель", sort="newest")) == 1
    assert_exact()
    set_status(qs[0], "approved", chief)  # out of the queue in review
    set_status(qs[12], "prechecked", chief)
    set_status(qs[12], "in_review", chief)  # into it
    commit()
    assert_exact()
    assert correct_author(qs[3], 1, "Автор из Пинска", "Пинск", chief)  # out: no Минск left
    assert correct_author(qs[5], 0, "Автор из Минска", "минск", chief)  # in
    newcomer = Author(name="Соавтор", city="Минск")
    qs[7].authors.append(QuestionAuthor(author=newcomer, position=3, name="Соавтор", city="Минск"))
    db.session.delete(qs[16])
    commit()
    assert_exact()
    assert queries.queue_count(f) == len(expected(f)) == 6


def test_the_queue_by_city_is_exact(app):
    build_and_check()


@pytest.mark.integration
def test_the_queue_by_city_is_exact_on_postgresql(pg_app):
    assert db.session.get_bind().dialect.name == "postgresql"
    build_and_check()


def migrate_down_and_up() -> None:
    """Migration 0051 down drops the counts; up fills them from the questions as they are."""
    from flask_migrate import downgrade, upgrade

    build()
    before = city_counts()
    assert stored()["city"] == before
    db.session.remove()
    downgrade(revision="0050_question_fts_trigger")
    assert "question_city_count" not in db.inspect(db.engine).get_table_names()
    upgrade(revision="heads")
    db.session.remove()
    assert stored()["city"] == before
    assert_exact()


def test_the_migration_fills_and_drops_the_city_counts(app):
    migrate_down_and_up()


@pytest.mark.integration
def test_the_migration_fills_and_drops_the_city_counts_on_postgresql(pg_app):
    assert db.session.get_bind().dialect.name == "postgresql"
    migrate_down_and_up()
