"""No page's number of SQL statements grows with the data: the staff pages that list or
aggregate questions and authors (the queue by filter and order, the statistics of a month
and of a year, the likely author pairs, an author's page), and the exports, send as many
statements with 200 questions as with 10 (an N+1 or a per-row query fails here, not in a benchmark)."""

from __future__ import annotations

from tests.query_count import statements
from tests.scale_data import add_questions
from tests.webapp.list_data import add_games_and_prizes
from webapp.extensions import db
from webapp.submissions.models import Author, Question, QuestionAuthor

PAGES = (
    "/editor/queue?status=",
    "/editor/queue",
    "/editor/questions/{question}",
    "/editor/stats",
    "/editor/stats?days=366",
    "/editor/queue?city=Гомель",
    "/editor/queue?signoff=pending",
    "/editor/queue?sort=duplicate",
    "/editor/authors/",
    "/editor/authors/?page=2",
    "/editor/authors/{author}",
    "/editor/authors/{author}?links_after={question}",
    "/editor/export.csv?status=",
    "/editor/export.xlsx?status=",
)


def grow(n: int) -> None:
    """``n`` more questions, each with a game and a prize to its first author (the author's
    page lists them), and ``n // 5`` more pairs of likely-same authors."""
    add_games_and_prizes(add_questions(n, seed=n))
    for k in range(n // 5):
        db.session.add_all(
            [Author(name=f"Иван Петров {n}-{k}", city="Минск"), Author(name=f"Иван Петров {n}-{k}")]
        )
    db.session.commit()


def counts(client) -> dict[str, int]:
    """Statements per page (each page fetched once before, so that the login's and the
    first visit's own statements are not counted)."""
    question = db.session.scalar(
        db.select(Question.id).where(Question.status == "in_review").order_by(Question.id)
    )
    # the author row with the most question links (its page lists them a page at a time)
    author = db.session.scalar(
        db.select(QuestionAuthor.author_id)
        .group_by(QuestionAuthor.author_id)
        .order_by(db.func.count().desc(), QuestionAuthor.author_id)
        .limit(1)
    )
    out = {}
    for path in PAGES:
        url = path.format(question=question, author=author)
        assert client.get(url).status_code == 200, url
        with statements(db.engine) as sent:
            resp = client.get(url)
            assert resp.status_code == 200, url
            resp.get_data()  # a streamed export reads the database while it is sent
        out[path] = len(sent)
    return out


def test_statements_do_not_grow_with_the_data(app, login):
    client = login("chief_editor")
    grow(10)
    small = counts(client)
    grow(190)
    assert db.session.scalar(db.select(db.func.count(Question.id))) == 200
    big = counts(client)
    assert big == small
    assert all(n > 0 for n in small.values())
