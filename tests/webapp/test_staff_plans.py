"""The plans of the staff pages' heaviest statements on PostgreSQL, on a database shaped
as the real one (an archive many times the viewer questions, author rows of one name in
many cities), in the planner's own choice (no setting turned off): the statistics of a
year and of a month, the likely author pairs and the queue filtered by the author's city
read neither the questions nor their author links whole, so their cost follows the
window, the pairs or the page, not the archive."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy import insert

from tests.scale_data import add_questions
from webapp.authors import queries as author_queries
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import queries, stats
from webapp.moderation.queries import QueueFilter
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionStatusChange,
    author_keys,
)

pytestmark = pytest.mark.integration

#: Archive questions (as in the archive, ten times the viewer questions) and their authors:
#: NAMES names, each in CITIES cities (the first Минск, as many viewer questions' authors)
#: and once without a city.
ARCHIVE, VIEWER, NAMES, CITIES = 20_000, 2_000, 12, 25


def add_archive() -> None:
    """The archive: :data:`ARCHIVE` questions received two years ago and more, each with
    a first author of the pool (city as the row's) and its status change to «archived»
    (as the bulk import records it)."""
    pool = []
    for n in range(NAMES):
        for c in range(CITIES + 1):
            name = f"Автор Архивов {n}"
            city = None if not c else "Минск" if c == 1 else f"Город {c}"
            pool.append({"name": name, "city": city, **author_keys(name, city)})
    ids = list(db.session.scalars(insert(Author).returning(Author.id), pool))
    long_ago = utcnow() - timedelta(days=730)
    start = db.session.scalar(sa.select(sa.func.coalesce(sa.func.max(Question.id), 0)))
    for lo in range(0, ARCHIVE, 5000):
        qids = range(start + lo + 1, start + min(lo + 5000, ARCHIVE) + 1)
        db.session.execute(
            insert(Question),
            [
                {
                    "id": q,
                    "public_token": secrets.token_urlsafe(24),
                    "text": f"Архивный вопрос {q}",
                    "answer": "Ответ",
                    "sources": [],
                    "channel": "archive",
                    "status": "archived",
                    "matching_key": f"архивный вопрос {q}",
                    "created_at": long_ago - timedelta(minutes=q),
                }
                for q in qids
            ],
        )
        db.session.execute(
            insert(QuestionAuthor),
            [
                {
                    "question_id": q,
                    "author_id": ids[q % len(ids)],
                    "position": 0,
                    "name": pool[q % len(ids)]["name"],
                    "city": pool[q % len(ids)]["city"],
                }
                for q in qids
            ],
        )
        db.session.execute(
            insert(QuestionStatusChange),
            [
                {"question_id": q, "from_status": None, "to_status": "archived", "at": long_ago}
                for q in qids
            ],
        )
    db.session.commit()


@pytest.fixture
def shaped(pg_app):
    add_archive()
    add_questions(VIEWER, seed=41, days=365)
    db.session.connection().exec_driver_sql("ANALYZE")
    db.session.commit()
    return pg_app


def sent_by(fn) -> list[tuple[str, object]]:
    """The statements (SQL, parameters) ``fn`` sends."""
    sent: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _executemany):
        sent.append((statement, parameters))

    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        fn()
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)
    assert sent
    return sent


def plans(fn) -> list[str]:
    """The plan of every statement ``fn`` sends (EXPLAIN, the planner's own choice)."""
    out = []
    for sql, parameters in sent_by(fn):
        rows = db.session.connection().exec_driver_sql("EXPLAIN " + sql, parameters)
        out.append("\n".join(r[0] for r in rows))
    return out


#: A scan of every row of the questions or of their author links (``question_author`` is
#: matched whole, ``question`` not followed by a word character).
WHOLE = re.compile(r"Seq Scan on (question|question_author)\b(?!_)")


#: A statement that reads the questions or their author links at all.
QUESTIONS = re.compile(r" on (question|question_author)\b(?!_)")


def test_the_statistics_read_the_window_not_the_archive(shaped):
    for days in (366, 30):
        found = plans(lambda: stats.summary(days))  # noqa: B023
        # the first, partial day; the intake chart and the cities; the decisions (the first
        # month's part and the later months' hours); the one or two middle values
        assert len(found) == 4, found
        for plan in found:
            assert not WHOLE.search(plan), plan
        # the partial first day: the viewer questions by receipt time, never the archive's,
        # each first author's city by one probe
        assert "ix_question_viewer_created" in found[0], found[0]
        assert "ix_question_author_first" in found[0], found[0]
        # the intake chart and the cities from the counts alone: not one question read
        for table in ("viewer_intake_day", "viewer_question_day", "viewer_question_month"):
            assert table in found[1], found[1]
        assert not QUESTIONS.search(found[1]), found[1]
        # the decisions: the first day's part (or the part before the window), one range
        # of the decided viewer questions' own index, the first month's days' hours and
        # the later months'
        assert "ix_question_viewer_decided" in found[2], found[2]
        assert "viewer_decision_day" in found[2], found[2]
        assert "viewer_decision_month" in found[2], found[2]
        # the middle values: one hour's range (or two) of the time to decision's index
        assert "ix_question_viewer_decision_time" in found[3], found[3]
        for plan in found[2:]:
            assert "question_status_change" not in plan, plan


def test_the_author_pairs_meet_only_the_rows_they_keep(shaped):
    found = plans(lambda: author_queries.suggestions_page(1))
    assert len(found) == 1, found  # the page and its total in one statement
    (plan,) = found
    assert not WHOLE.search(plan), plan
    assert "ix_question_author_confirmed" in plan, plan
    # a row meets its partners by name *and* city, or by name among the rows without a
    # city: never every row of its name (a hash join or the index, as the sizes say)
    assert re.search(r"Cond: .*name_key.*city_key", plan), plan
    assert plan.count("city_key)::text = ''::text") >= 2, plan
    pairs, page, pages = author_queries.suggestions_page(1)
    # per name: the city-less row with each of the 25 cities; no pair of two cities
    assert (len(pairs), page, pages) == (50, 1, -(-(NAMES * CITIES) // 50))
    assert {m.reason for m in pairs} == {"name_no_city"}


#: A question's author links read by its id: the probe of ``queries.by_city``.
PROBE = re.compile(r"SubPlan \d+\n\s*->  Index (Only )?Scan using \S+ on question_author\b")


def test_the_author_page_reads_its_page_of_links_whatever_their_place(shaped):
    """An author of the newest questions (a prolific viewer: every viewer question's
    co-author here) gets a page of links read from ``ix_question_author_author_id`` in its
    order, never the unique ``(question_id, author_id)`` index walked from the archive's
    first question; the page and the next one hold the right links."""
    name = "Плодовитый Зритель"
    author = Author(name=name, city="Минск", **author_keys(name, "Минск"))
    db.session.add(author)
    db.session.flush()
    viewer = list(range(ARCHIVE + 1, ARCHIVE + VIEWER + 1))
    db.session.execute(
        insert(QuestionAuthor),
        [
            {"question_id": q, "author_id": author.id, "position": 1, "name": name, "city": "Минск"}
            for q in viewer
        ],
    )
    db.session.commit()
    db.session.connection().exec_driver_sql("ANALYZE question_author")
    db.session.commit()
    found = plans(lambda: author_queries.summary(author))
    (page,) = [p for p in found if "Limit" in p and "question_author" in p]
    assert "ix_question_author_author_id" in page, page
    assert "question_author_question_id_author_id_key" not in page, page
    first = author_queries.summary(author)
    shown = author_queries.LINKS_SHOWN
    assert [link.question_id for link in first.links] == viewer[:shown]
    assert first.links_more and first.links_total == VIEWER
    after = author_queries.summary(author, links_after=viewer[shown - 1])
    assert [link.question_id for link in after.links] == viewer[shown : 2 * shown]


def test_the_queue_by_city_reads_the_page_not_the_archive(shaped):
    """The page walks the queue in its order and probes each question's links (the
    archive's links of the city, hundreds here, are never read: no semi-join, no read by
    city); the count reads the maintained counts alone, and where those cannot answer
    (another filter beside) the queue's questions with the same probe."""
    f = QueueFilter(city="Минск")
    by_id = dict(db.session.execute(sa.select(Question.id, Question.created_at)).all())
    archived = db.session.scalar(
        sa.select(sa.func.count())
        .select_from(QuestionAuthor)
        .where(QuestionAuthor.city == "Минск", QuestionAuthor.question_id <= ARCHIVE)
    )
    assert archived > 700
    page, count = plans(lambda: (queries.queue_page(f), queries.queue_count(f)))
    assert "ix_question_status_created" in page, page
    (read,) = plans(lambda: queries.queue_count(QueueFilter(city="Минск", channel="web")))
    for plan in (page, read):
        assert not WHOLE.search(plan), plan
        assert PROBE.search(plan), plan
        assert "ix_question_author_city" not in plan, plan
        assert "Semi Join" not in plan, plan
        assert plan.count("on question_author") == 1, plan
    assert "question_city_count" in count, count
    assert not QUESTIONS.search(count), count
    # the figures themselves: tests.scale_data gives every fifth question Минск (id
    # divisible by 5) and half of them in review (MIX by id modulo 8)
    viewer = range(ARCHIVE + 1, ARCHIVE + VIEWER + 1)
    expected = [q for q in viewer if q % 5 == 0 and q % 8 in (0, 1, 4, 7)]
    assert queries.queue_count(f) == len(expected) == 200
    assert [q.id for q in queries.queue_page(f).items][:3] == sorted(
        expected, key=lambda q: (by_id[q], q)
    )[:3]
