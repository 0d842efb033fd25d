"""The queue's order «по повторам» (the best duplicate score first, then the oldest question):
given scores, the pages list the questions in exactly that order, «следующая →» continues
where the page ended (within a run of equal scores too: no question twice, none left out)
and «← предыдущая» goes back the same way; every statement of a page reads an index of the
question table in the order's direction, never a sort of the filtered rows (SQLite's
``EXPLAIN QUERY PLAN``; PostgreSQL's ``EXPLAIN`` with SOVA_TEST_DATABASE_URL)."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from flask import g

from tests.scale_data import add_questions
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.queries import QueueFilter
from webapp.tasks.outbox import commit

NEXT, PREV = "следующая →", "← предыдущая"

#: The best duplicate score of questions 1..16 (``tests.scale_data``: 5 and 13 archived;
#: 1, 4, 7, 8, 9, 12, 15, 16 in review).
SCORES = {
    1: 0.0,
    2: 90.0,
    3: 75.5,
    4: 0.0,
    5: 99.0,
    6: 90.0,
    7: 100.0,
    8: 0.0,
    9: 75.5,
    10: 60.0,
    11: 90.0,
    12: 0.0,
    13: 100.0,
    14: 75.5,
    15: 0.0,
    16: 60.0,
}
#: «Все, кроме архива» by score, 4 a page: the pages end inside runs of equal scores.
EVERY = [[7, 2, 6, 11], [3, 9, 14, 10], [16, 1, 4, 8], [12, 15]]
#: «На рассмотрении» the same way.
IN_REVIEW = [[7, 9, 16, 1], [4, 8, 12, 15]]


@pytest.fixture
def four_a_page(monkeypatch):
    monkeypatch.setattr(queries, "PAGE_SIZE", 4)


def scored() -> None:
    """Questions 1..16 with the scores of :data:`SCORES`, as their pre-checks left them."""
    assert add_questions(16, seed=27) == list(range(1, 17))
    for qid, score in SCORES.items():
        db.session.execute(
            sa.text("UPDATE question SET duplicate_score = :s WHERE id = :id"),
            {"s": score, "id": qid},
        )
    commit()


def follow(client, url: str, text: str) -> list[tuple[list[int], str]]:
    """(the numbers listed, the page) of ``url`` and of every page its link ``text`` leads
    to, as rendered."""
    page = get(client, url)
    out = [(pages.listed(page), page)]
    while any(t == text for t, _ in pages.parse(page).links):
        page = get(client, pages.link(page, text))
        out.append((pages.listed(page), page))
    return out


def get(client, url: str) -> str:
    g.pop("_login_user", None)  # the request's own user, not the test context's last one
    resp = client.get(url)
    assert resp.status_code == 200, url
    return resp.get_data(as_text=True)


def login(app):
    from webapp.accounts.operations import create_user

    create_user("order@test.local", "editor", password="order-pw")
    commit()
    client = app.test_client()
    resp = client.post("/login", data={"email": "order@test.local", "password": "order-pw"})
    assert resp.status_code == 302
    return client


def check_order(app) -> None:
    scored()
    client = login(app)
    for query, status, expected in (
        ("status=&sort=duplicate", None, EVERY),
        ("sort=duplicate", "in_review", IN_REVIEW),
    ):
        forward = follow(client, f"/editor/queue?{query}", NEXT)
        assert [ids for ids, _ in forward] == expected
        assert PREV not in forward[0][1] and NEXT not in forward[-1][1]
        back = follow(client, pages.link(forward[-2][1], NEXT), PREV)
        assert [ids for ids, _ in back] == expected[::-1]
        # the exports and the question page's neighbours list the same order
        f = QueueFilter(status=status, sort="duplicate")
        order = sum(expected, [])
        assert [q.id for q in queries.queue_items(f)] == order
        for i, qid in enumerate(order):
            prev = order[i - 1] if i else None
            nxt = order[i + 1] if i + 1 < len(order) else None
            assert queries.neighbours(queries.question(qid), f) == (prev, nxt)


def test_the_pages_by_duplicate_score(app, four_a_page):
    check_order(app)


def test_the_pages_by_duplicate_score_on_postgresql(pg_app, four_a_page):
    check_order(pg_app)


def sent_with_parameters(fn) -> list[tuple[str, object]]:
    """(SQL, parameters) of every statement ``fn()`` sends."""
    sent: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _executemany):
        sent.append((statement, parameters))

    sa.event.listen(db.engine, "before_cursor_execute", record)
    try:
        fn()
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", record)
    return sent


def page_statements(f: QueueFilter) -> list[tuple[str, object, bool]]:
    """The statements that read the questions in the order (not a cursor's key by id) for
    the first page, the page after the sixth question (a few more of its score, then the
    lower scores) and the page before the sixtieth (the same, upwards)."""
    every = [q.id for q in queries.queue_items(f)]
    out = []
    for cursor in ({}, {"after": every[5]}, {"before": every[59]}):
        sent = sent_with_parameters(lambda: queries.queue_page(f, **cursor))  # noqa: B023
        out += [(sql, p, bool(cursor)) for sql, p in sent if "ORDER BY" in sql]
    return out


#: The order's indexes (migration 0027): of one status, and of the questions not archived
#: (either may serve a status: PostgreSQL filters the partial one by status when most of
#: its rows have that status).
INDEXES = ("ix_question_status_duplicate", "ix_question_live_duplicate")


def check_plans(f: QueueFilter, explain) -> None:
    """Every statement of the pages reads the questions by an index from the cursor on:
    those that step over scores (ORDER BY the score) by an index of the order, those
    within the cursor's score by it or by the id's. The first page in the index's order (no
    sort); a page from a cursor sorted at most when PostgreSQL expects fewer rows beyond
    the cursor than a page: then the index condition holds the cursor's score, so only
    those rows are sorted, never every row of the filter."""
    statements = page_statements(f)
    across = [sql for sql, _, _ in statements if "ORDER BY question.duplicate_score" in sql]
    assert len(statements) >= 5 and len(across) >= 3, statements
    for sql, parameters, cursor in statements:
        plan = explain(sql, parameters)
        scan = re.search(r"(?:Scan (?:Backward )?using|Index Scan on) (\w+)|INDEX (\w+)", plan)
        assert scan, plan
        used = scan.group(1) or scan.group(2)
        assert used in INDEXES or (sql not in across and used == "question_pkey"), plan
        assert "TEMP B-TREE" not in plan, plan
        if re.search(r"Sort Key: question\.", plan):
            assert cursor, plan
            assert re.search(r"Index Cond: \(.*duplicate_score [<>=]+ '", plan), plan


#: «Все, кроме архива» and «На рассмотрении» by score.
ORDERS = (QueueFilter(status=None, sort="duplicate"), QueueFilter(sort="duplicate"))


def test_sqlite_reads_the_order_from_its_indexes(app):
    add_questions(1000, seed=29)  # the plans are those of 6 000 (tried)
    db.session.connection().exec_driver_sql("ANALYZE")
    commit()

    def explain(sql, parameters):
        rows = db.session.connection().exec_driver_sql("EXPLAIN QUERY PLAN " + sql, parameters)
        return " | ".join(r[-1] for r in rows)

    for f in ORDERS:
        check_plans(f, explain)


def test_postgresql_reads_the_order_from_its_indexes(pg_app):
    """As on SQLite, in the planner's own choice (no setting turned off), on 6 000
    questions as ``tests.scale_data`` mixes them (an eighth archived, half in review, a
    twelfth with a likely duplicate)."""
    add_questions(6000, seed=29)
    db.session.connection().exec_driver_sql("ANALYZE question")
    commit()

    def explain(sql, parameters):
        rows = db.session.connection().exec_driver_sql("EXPLAIN " + sql, parameters)
        return "\n".join(r[0] for r in rows)

    for f in ORDERS:
        check_plans(f, explain)
