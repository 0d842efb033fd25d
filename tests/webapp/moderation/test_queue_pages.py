"""The queue's pages as an editor follows them: «следующая →» to the end and «← предыдущая»
back, in every order, with the filters and the search kept; a question decided between two
pages; the question page's previous and next questions (keyset: found by the sort key and
id of the row next to them, never by a count or an offset)."""

from __future__ import annotations

import pytest

from tests.scale_data import add_questions
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.queries import QueueFilter
from webapp.submissions.models import Question
from webapp.tasks.outbox import commit

NEXT, PREV = "следующая →", "← предыдущая"


def follow(client, url: str, text: str) -> list[tuple[list[int], str]]:
    """(the numbers listed, the page) of ``url`` and of every page reached by the link
    ``text`` from it."""
    page = client.get(url).get_data(as_text=True)
    out = [(pages.listed(page), page)]
    while any(t == text for t, _ in pages.parse(page).links):
        page = client.get(pages.link(page, text)).get_data(as_text=True)
        out.append((pages.listed(page), page))
    return out


@pytest.mark.parametrize("sort", ["oldest", "newest", "duplicate", "id"])
def test_next_to_the_end_and_previous_back_to_the_start(app, login, sort):
    """130 questions of «Все, кроме архива» (149 made), 50 a page: three pages forward, the
    same three back, together the queue's order (the one the exports list)."""
    add_questions(149, seed=5)
    client = login("editor")
    forward = follow(client, f"/editor/queue?status=&sort={sort}", NEXT)
    listed = [ids for ids, _ in forward]
    everything = [q.id for q in queries.queue_items(QueueFilter(status=None, sort=sort))]
    assert [len(ids) for ids in listed] == [50, 50, 30]
    assert sum(listed, []) == everything
    first, last = forward[0][1], forward[-1][1]
    assert PREV not in first and NEXT not in last
    assert "Вопросов: 130" in first
    back = follow(client, pages.link(forward[1][1], NEXT), PREV)
    assert [ids for ids, _ in back] == listed[::-1]


def test_the_links_keep_the_filters_and_the_search(app, login):
    """A search within one status and channel, sorted newest first, over two pages: each
    link repeats every filter and no page number; the pages are the search's questions."""
    add_questions(480, seed=6)  # «mail» in review: 60, one of them (97) a formula text
    client = login("chief_editor")
    query = "status=in_review&channel=mail&q=%D0%92%D0%BE%D0%BB%D0%B3%D0%B5&sort=newest"
    forward = follow(client, "/editor/queue?" + query, NEXT)
    f = QueueFilter(status="in_review", channel="mail", search="Волге", sort="newest")
    assert sum((ids for ids, _ in forward), []) == [q.id for q in queries.queue_items(f)]
    assert [len(ids) for ids, _ in forward] == [50, 9]
    href = pages.link(forward[0][1], NEXT)
    for part in ("status=in_review", "channel=mail", "sort=newest", "q=%D0%92"):
        assert part in href, href
    assert "page=" not in href and "after=" in href
    assert "Вопросов: 59" in forward[0][1]


def test_a_count_beyond_the_cap_says_more(app, login, monkeypatch):
    add_questions(40, seed=7)
    monkeypatch.setattr(queries, "COUNT_CAP", 10)
    page = login("editor").get("/editor/queue?status=").get_data(as_text=True)
    assert "Вопросов: больше 10" in page
    assert queries.queue_count(QueueFilter(status=None)) == 11
    assert queries.queue_count(QueueFilter(status=None), cap=100) == 35


def test_a_question_decided_between_two_pages(app, login):
    """The last question of the first page is approved before «следующая →» is followed:
    the next page still starts right after it (its place in the order is its key)."""
    add_questions(120, seed=8)  # 60 in review
    client = login("editor")
    first = client.get("/editor/queue").get_data(as_text=True)
    listed = pages.listed(first)
    order = [q.id for q in queries.queue_items(QueueFilter())]
    assert listed == order[:50]
    db.session.get(Question, listed[-1]).status = "approved"
    commit()
    second = client.get(pages.link(first, NEXT)).get_data(as_text=True)
    assert pages.listed(second) == order[50:]
    # the page before the second is full again from the start: the 49 left of the first
    assert pages.listed(client.get(pages.link(second, PREV)).get_data(as_text=True)) == [
        *order[:49],
        order[50],
    ]


def test_a_cursor_of_no_question_gives_the_first_page(app, login):
    add_questions(16, seed=9)
    client = login("editor")
    first = pages.listed(client.get("/editor/queue").get_data(as_text=True))
    for query in ("after=999999", "before=999999", "after=abc", "page=7", "after=" + "9" * 30):
        assert pages.listed(client.get("/editor/queue?" + query).get_data(as_text=True)) == first


def test_question_page_neighbours(app, login):
    """Previous and next in the default queue (in review, oldest first) around each
    question, the ends without one; a question not in review: no previous, the queue's
    first as the next."""
    add_questions(40, seed=10)
    order = [q.id for q in queries.queue_items(QueueFilter())]
    assert len(order) == 20
    for i, qid in enumerate(order):
        q = db.session.get(Question, qid)
        prev = order[i - 1] if i else None
        nxt = order[i + 1] if i + 1 < len(order) else None
        assert queries.neighbours(q) == (prev, nxt)
    approved = db.session.scalar(db.select(Question).where(Question.status == "approved"))
    assert queries.neighbours(approved) == (None, order[0])
    f = QueueFilter(status=None, sort="duplicate")
    every = [q.id for q in queries.queue_items(f)]
    middle = db.session.get(Question, every[17])
    assert queries.neighbours(middle, f) == (every[16], every[18])
    page = login("editor").get(f"/editor/questions/{order[5]}").get_data(as_text=True)
    assert f'href="/editor/questions/{order[4]}" data-shortcut="k"' in page
    assert f'href="/editor/questions/{order[6]}" data-shortcut="j"' in page
