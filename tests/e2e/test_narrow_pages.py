"""Staff pages on a phone's screen (375 px, headless Debian Chromium): a wide table scrolls
in its own box and the page never scrolls sideways; on a desktop the tables fill the page's
column as before."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow

PHONE = {"width": 375, "height": 800}


@pytest.fixture
def closed_game(live_server):
    """A 2023 game of «Команда Анны» closed 0:6 (the viewers won: six prizes for the
    unanswered questions), and a second game of the season with its table filled, not
    locked: ``{"season", "closed", "filled", "prize"}`` ids."""
    from tests.helpers import VIEWERS_WIN
    from tests.webapp.games import helpers as h
    from webapp.extensions import db
    from webapp.games.close import close_game
    from webapp.games.operations import assign_envelopes, lock_table, record_event
    from webapp.prizes.models import Prize
    from webapp.prizes.operations import owed_on_close
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(40)
        season = h.season()
        closed = h.game(
            season,
            5,
            team_=h.team(),
            table={"blitz": None, "superblitz": None, "sector13": None},
            status="draft",
        )
        assign_envelopes(closed)
        lock_table(closed, None)
        h.startable(closed)
        for event in VIEWERS_WIN:
            record_event(closed, dict(event), None)
        close_game(closed, None, owed_on_close)
        filled = h.game(
            season, 12, table={"blitz": 4, "superblitz": 9, "sector13": None}, status="draft"
        )
        assign_envelopes(filled)
        commit()
        prize = db.session.scalar(db.select(Prize.id).filter_by(game_id=closed.id))
        return {"season": season.id, "closed": closed.id, "filled": filled.id, "prize": prize}


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, locale="ru-RU")
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def widths(page) -> dict:
    """The page's width and its viewport's, and each table's: its own width and the width
    of the box it sits in."""
    return page.evaluate("""() => ({
        page: document.documentElement.scrollWidth,
        viewport: document.documentElement.clientWidth,
        tables: Array.from(document.querySelectorAll('main table'))
            .map(t => [t.id, t.offsetWidth, t.parentElement.clientWidth]),
    })""")


def test_staff_pages_fit_a_phone_and_their_tables_scroll_in_place(live_server, phone, closed_game):
    ids = closed_game
    pages = {
        "producer": [
            "/games/",
            f"/games/{ids['closed']}",
            f"/games/{ids['closed']}/table",
            f"/games/{ids['filled']}/table",
            f"/games/seasons/{ids['season']}",
        ],
        "accountant": ["/prizes/", f"/prizes/{ids['prize']}"],
    }
    too_wide = {}
    scrolled = 0
    for role, paths in pages.items():
        live_server.login(phone, role)
        for path in paths:
            phone.goto(f"{live_server.url}{path}")
            assert phone.locator("main table").count() > 0, path
            seen = widths(phone)
            if seen["page"] > PHONE["width"]:
                too_wide[path] = seen
            # a table wider than the screen is still all there: its box scrolls
            for _id, table, box in seen["tables"]:
                if table > box:
                    scrolled += 1
                    assert box <= PHONE["width"], (path, seen)
    assert too_wide == {}
    assert scrolled  # the phone's screen is narrower than these tables


def test_the_same_pages_keep_their_desktop_layout(live_server, page, closed_game):
    """On a desktop screen the tables fill the page's column as before, with nothing to
    scroll."""
    ids = closed_game
    live_server.login(page, "producer")
    for path in ("/games/", f"/games/{ids['closed']}", f"/games/{ids['closed']}/table"):
        page.goto(f"{live_server.url}{path}")
        seen = widths(page)
        assert seen["page"] == seen["viewport"], path
        main = page.locator("main")
        column = main.evaluate(
            "m => m.clientWidth - 2 * parseFloat(getComputedStyle(m).paddingLeft)"
        )
        for _id, table, box in seen["tables"]:
            assert table == box == pytest.approx(column, abs=1), (path, seen)


def test_a_long_name_without_spaces_wraps_on_a_phone(live_server, phone):
    """A season, title and team typed as one long word wrap in headings and sentences
    (a table holding them scrolls in its box): the page still fits the screen."""
    from tests.webapp.games import helpers as h
    from webapp.games.season.operations import create_season
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        season = create_season("Сезон2023" + "Ж" * 90, "2023")
        game = h.game(season, 3, team_=h.team("Щ" * 80), status="draft")
        game.title = "Ы" * 100
        commit()
        ids = {"season": season.id, "game": game.id}
    live_server.login(phone, "producer")
    for path in ("/games/", f"/games/{ids['game']}", f"/games/seasons/{ids['season']}"):
        phone.goto(f"{live_server.url}{path}")
        assert widths(phone)["page"] <= PHONE["width"], path
