"""Every staff page speaks Russian: each staff role logs in and walks every
GET page of the generated URL map — with real URL arguments (a closed 2023 game with its
prizes, a 2009 game with a closed audience vote, a question in review, the staff list) and
with ids that do not exist (the 404 page), plus the pages it may not open (the 403 page) —
and no visible Latin-script word may appear outside
:data:`tests.security.visible_text.ALLOWED`.

"Visible" is what a reader sees (tests/security/visible_text.py): text nodes outside
``<script>``, ``<style>`` and code-like spans, plus the attributes a browser shows; e-mail
addresses and URLs are addresses, not words. The walk reuses the access matrix's URL map
walk and log-in (tests/security/access.py).
"""

from __future__ import annotations

import pytest

from tests.helpers import EXPERTS_WIN, PRIZE_APP, VIEWERS_WIN, drain_outbox
from tests.security.access import log_in, page_urls
from tests.security.visible_text import latin_words
from webapp.accounts.models import ROLES


def test_the_checker_sees_what_a_reader_sees():
    page = (
        "<html><head><title>Очередь</title><style>body{color:red}</style></head><body>"
        '<script>var fetchNow = 1;</script><p class="big" data-x="hidden">Счёт 1:6 — '
        "answered</p><code>000_90d7c8192601ed3a.txt</code>"
        '<input type="submit" value="Save"><input name="q" value="secret">'
        '<a href="https://example.org/x" title="Открыть">lis@example.com, PDF</a></body></html>'
    )
    assert latin_words(page) == ["answered", "Save"]


@pytest.fixture
def app(make_app):
    """The prize commission's members are set (closing a game issues minutes)."""
    app = make_app(**PRIZE_APP, SOVA_SMS_SECRET="walk-secret")
    with app.app_context():
        yield app


@pytest.fixture
def drain(app):
    return lambda: drain_outbox(app, skip=("notify.",))


@pytest.fixture
def walk_data(app, api, played, drain, client):
    """Real URL arguments: a closed 2023 game (prizes, agreements rendered), a finished 2009
    game whose audience vote was held, a question in review and the staff list."""
    from tests.helpers import submission, submit
    from webapp.accounts.models import User
    from webapp.core.models import Document
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.prizes.models import Prize
    from webapp.submissions.models import Question
    from webapp.tasks.outbox import commit
    from webapp.votes.operations import close_vote, open_vote

    closed = played("qualifying", VIEWERS_WIN, name="Сезон 2023")
    r = api("post", f"/api/v1/games/{closed}/close", role="producer")
    assert r.status_code == 200, r.json
    game_2009 = played("qualifying", EXPERTS_WIN, ruleset="2009", name="Сезон 2009")
    drain()
    game = db.session.get(Game, game_2009)
    open_vote(game, None, ["Анна Лис", "Борис Кот"])
    close_vote(game, None)
    submit(client, submission(99))
    drain()
    commit()
    in_review = db.session.scalar(db.select(Question.id).where(Question.status == "in_review"))
    prize = db.session.scalar(db.select(Prize.id).order_by(Prize.id))
    document = db.session.scalar(db.select(Document.id).order_by(Document.id))
    assert in_review and prize and document
    return {
        "game_id": [closed, game_2009],
        "season_id": [db.session.get(Game, closed).season_id, game.season_id],
        "prize_id": [prize],
        "question_id": [in_review],
        "user_id": [db.session.scalar(db.select(User.id).order_by(User.id))],
        "document_id": [document],
        "position": [0],
    }


def _staff_named_in_russian() -> None:
    """Staff users' names are their own data (the test users are named after their e-mail's
    local part, «producer»): give them Russian names, as an office would."""
    from webapp.accounts.models import ROLE_LABELS, User
    from webapp.extensions import db
    from webapp.tasks.outbox import commit

    for user in db.session.scalars(db.select(User)):
        user.name = f"{ROLE_LABELS.get(user.role, 'сотрудник').capitalize()} Тестов"
    commit()


def test_every_staff_page_is_in_russian(app, walk_data, staff):
    """Each role × each page (with real and with missing objects); only HTML is read (PDF,
    CSV, JSON downloads are not pages). A local run (not the full run) reads each page as
    the first role it admits and every refusal page, not every role's copy of a page."""
    from tests.helpers import full_run

    urls = page_urls(app, walk_data)
    urls.append("/games/1/assign")  # a form's address opened in the browser: 405
    found: dict[str, set[str]] = {}
    seen = 0
    read: set[str] = set()  # pages read as an admitted role (local run: not again)
    for role in ROLES:
        staff(role)
    _staff_named_in_russian()
    for role in ROLES:
        client = app.test_client()
        log_in(client, role)
        for url in urls:
            if url in read and not full_run():
                continue
            resp = client.get(url)
            if resp.status_code not in (401, 403):
                read.add(url)
            # a redirect's body is never shown (the browser follows it); the target is walked
            if resp.mimetype != "text/html" or 300 <= resp.status_code < 400:
                continue
            seen += 1
            for word in latin_words(resp.get_data(as_text=True)):
                found.setdefault(word, set()).add(f"{url} ({role}, {resp.status_code})")
    report = [f"{w!r}: {sorted(where)[:3]}" for w, where in sorted(found.items())]
    assert report == [], "\n".join(report)
    assert seen > (200 if full_run() else 150)  # pages read
