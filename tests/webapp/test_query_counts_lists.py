"""The paged lists send as many SQL statements with 300 rows as with 30: the queue's first,
middle and last page, a search, the question page (its previous and next), the games'
index (its games and its seasons), a season's page and the prizes' list. The page sizes are made small (5) so that 30
rows are already several pages; on SQLite, and on PostgreSQL with SOVA_TEST_DATABASE_URL."""

from __future__ import annotations

import pytest
from flask import g

from tests.query_count import statements
from tests.scale_data import add_questions
from tests.webapp.list_data import add_games_and_prizes, add_seasons
from webapp.extensions import db
from webapp.games import queries as game_queries
from webapp.games.models import Game, Season
from webapp.moderation import queries
from webapp.moderation.queries import QueueFilter
from webapp.prizes import queries as prize_queries
from webapp.prizes.models import Prize
from webapp.submissions.models import Question

PER_PAGE = 5


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(queries, "PAGE_SIZE", PER_PAGE)
    monkeypatch.setattr(game_queries, "GAMES_PAGE", PER_PAGE)
    monkeypatch.setattr(game_queries, "SEASONS_PAGE", PER_PAGE)
    monkeypatch.setattr(prize_queries, "PRIZES_PAGE", PER_PAGE)


def grow(n: int) -> None:
    """``n`` more questions, ``n`` more games with a prize each and ``n`` more seasons
    (``list_data``)."""
    add_games_and_prizes(add_questions(n, seed=n))
    add_seasons(n)


def urls() -> dict[str, tuple[str, str]]:
    """The pages counted, by who opens them, with cursors in the middle and at the end of
    the lists: ``{name: (role, url)}``."""
    every = [q.id for q in queries.queue_items(QueueFilter(status=None))]
    review = [q.id for q in queries.queue_items(QueueFilter())]
    # in review with a report naming one likely duplicate (tests.scale_data: every twelfth)
    reported = [qid for qid in review if qid % 12 == 0]
    # «по повторам» reads a page from a cursor by one statement per key at most (the rest
    # of the cursor's score, then the lower scores: ``keyset.seek``), so its cursors sit
    # where both sizes need the same: inside the long run without a duplicate, and on the
    # last question with one (each of its score alone: the page steps to the next score)
    by_score = [q.id for q in queries.queue_items(QueueFilter(status=None, sort="duplicate"))]
    last_scored = [qid for qid in by_score if qid % 12 == 0][-1]
    games = list(
        db.session.scalars(db.select(Game.id).order_by(Game.air_date.desc(), Game.id.desc()))
    )
    prizes = list(db.session.scalars(db.select(Prize.id).order_by(Prize.id)))
    season = db.session.scalar(db.select(Season.id).order_by(Season.id))
    seasons = list(db.session.scalars(db.select(Season.id).order_by(Season.id.desc())))
    search = "status=in_review&q=%D0%92%D0%BE%D0%BB%D0%B3%D0%B5"  # «Волге»
    editor = {
        "queue, first page": "/editor/queue?status=",
        "queue, middle page": f"/editor/queue?status=&after={every[len(every) // 2]}",
        "queue, last page": f"/editor/queue?status=&after={every[-2]}",
        "queue, a page back": f"/editor/queue?status=&before={every[len(every) // 2]}",
        "queue, search": f"/editor/queue?{search}",
        "queue, search, next page": f"/editor/queue?{search}&after={review[7]}",
        "queue, by duplicate score": f"/editor/queue?status=&sort=duplicate&after={every[9]}",
        "queue, by duplicate score, first page": "/editor/queue?sort=duplicate",
        "queue, by duplicate score, a page back": (
            f"/editor/queue?status=&sort=duplicate&before={by_score[len(by_score) // 2]}"
        ),
        "queue, by duplicate score, across scores": (
            f"/editor/queue?status=&sort=duplicate&after={last_scored}"
        ),
        "question page": f"/editor/questions/{reported[len(reported) // 2]}",
    }
    producer = {
        "games": "/games/",
        "games, last page": f"/games/?after={games[-2]}",
        "games, seasons' middle page": f"/games/?seasons_after={seasons[len(seasons) // 2]}",
        "games, seasons' last page": f"/games/?seasons_after={seasons[-2]}",
        "games, seasons' page back": f"/games/?after={games[3]}&seasons_before={seasons[-3]}",
        "season": f"/games/seasons/{season}",
        "season, middle page": f"/games/seasons/{season}?after={games[len(games) // 2]}",
        "prizes": "/prizes/",
        "prizes, last page": f"/prizes/?after={prizes[-2]}",
    }
    return {
        **{k: ("chief_editor", v) for k, v in editor.items()},
        **{k: ("producer", v) for k, v in producer.items()},
    }


def counts(client_for) -> dict[str, int]:
    """Statements per page (each fetched once before: the login's and a first visit's own
    statements are not counted)."""
    out = {}
    for name, (role, url) in urls().items():
        client = client_for(role)
        assert get(client, url).status_code == 200, url
        with statements(db.engine) as sent:
            assert get(client, url).status_code == 200, url
        out[name] = len(sent)
    return out


def get(client, url: str):
    """``client.get(url)`` as that client's user: the requests run inside the test's app
    context, where Flask-Login keeps the last user it loaded (``g._login_user``)."""
    g.pop("_login_user", None)
    return client.get(url)


def check(app) -> None:
    clients = {}

    def client_for(role):
        if role not in clients:
            clients[role] = app.test_client()
            _login(clients[role], role)
        return clients[role]

    grow(30)
    assert db.session.scalar(db.select(db.func.count(Question.id))) == 30
    small = counts(client_for)
    grow(270)
    assert db.session.scalar(db.select(db.func.count(Game.id))) == 300
    assert db.session.scalar(db.select(db.func.count(Season.id))) == 301
    big = counts(client_for)
    assert big == small
    assert all(n > 0 for n in small.values())


def _login(client, role: str) -> None:
    from webapp.accounts.operations import create_user
    from webapp.tasks.outbox import commit

    create_user(f"{role}@count.local", role, password=f"{role}-pw")
    commit()
    resp = client.post("/login", data={"email": f"{role}@count.local", "password": f"{role}-pw"})
    assert resp.status_code == 302, resp.data


def test_paged_lists_do_not_grow_with_the_data(app, small_pages):
    check(app)


def test_paged_lists_do_not_grow_with_the_data_on_postgresql(pg_app, small_pages):
    check(pg_app)
