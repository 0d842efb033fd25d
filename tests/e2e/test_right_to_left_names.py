"""A name typed in a right-to-left script, in headless Debian Chromium: the game's label
draws it whole and the game's number after it, where a reader looks for it."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


def test_a_right_to_left_season_name_leaves_the_game_number_after_it(live_server, page):
    """«…, сезон «Сезон 2023 🦉 שלום», № 1»: the number is drawn right of the season's name
    (unisolated, the Hebrew run carries «», № 1» to its left: «…🦉 1 № ,«שלום»)."""
    from tests.webapp.games import helpers as h
    from webapp.games.season.operations import create_season
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        season = create_season("Сезон 2023 🦉 שלום", "2023")
        game_id = h.game(season, 5, status="draft").id
        commit()
    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/{game_id}")
    # where each part of the heading is drawn, left to right, on one line
    drawn = page.evaluate("""() => {
        const h1 = document.querySelector('main h1');
        h1.style.whiteSpace = 'nowrap';
        const text = h1.firstChild;
        const at = (s) => {
            const range = document.createRange();
            const i = text.data.indexOf(s);
            range.setStart(text, i);
            range.setEnd(text, i + s.length);
            return range.getBoundingClientRect().left;
        };
        return {shalom: at('שלום'), owl: at('🦉'), number: at('№'), close: at('»,')};
    }""")
    assert drawn["owl"] < drawn["shalom"] < drawn["close"] < drawn["number"], drawn
