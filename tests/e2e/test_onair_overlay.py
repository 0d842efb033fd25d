"""The console and the broadcast overlay side by side in headless Debian Chromium: the host
plays a game (a red card, a blitz, sector 13, an early answer) and after every click the
overlay — fed by the stream, never reloaded — shows exactly the console's state; a reload
of the overlay in the middle of a round comes back to the same picture and the same
remaining minute (± 1 s)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_console import press

pytest.importorskip("tests.e2e.conftest")
pytestmark = pytest.mark.slow


@pytest.fixture
def onair_game(live_server):
    """A 2023 game of «Команда Анны» (blitz in 4, sector 13 in 13) whose authors all agreed
    to be named except sector 2's; the producer made a broadcast token. Returns
    ``(game id, token, {(sector, slot): author})``."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.jobs import commit
    from webapp.onair.operations import create_token

    with live_server.app.app_context():
        h.approved_questions(15)
        g = h.game(
            h.season(),
            table={"blitz": 4, "superblitz": None, "sector13": 13},
            status="draft",
            team_=h.team(),
        )
        assign_envelopes(g)
        authors = {}
        for env in g.envelopes:
            for eq in env.questions:
                eq.question.consent_on_air = env.sector != 2
                authors[(env.sector, eq.slot)] = eq.question.author_list[0].name
        lock_table(g, None)
        h.startable(g)
        _token, secret = create_token(g, "титры", None)
        gid = g.id
        commit()
    return gid, secret, authors


def console_state(page) -> dict:
    """The console's own JSON state (what console.js renders)."""
    return page.evaluate("""async () => {
        const root = document.getElementById('console');
        const r = await fetch(root.dataset.url, {headers: {'Accept': 'application/json'}});
        return (await r.json()).console;
    }""")


def overlay_shows(overlay, events: int) -> dict:
    """Wait until the overlay has the row of ``events`` events, then read what it shows."""
    overlay.wait_for_function(
        f"() => document.getElementById('onair').dataset.revision === '{events}'", timeout=5000
    )
    return overlay.evaluate("""() => {
        const text = (id) => document.getElementById(id).textContent;
        const shown = (id) => !document.getElementById(id).hidden;
        return {score: text('score-experts') + ':' + text('score-viewers'),
                sector: shown('sector') ? Number(text('sector-number')) : 0,
                kind: text('sector-kind'), author: shown('author') ? text('author-name') : '',
                result: text('result'), minute: shown('minute') ? text('minute-left') : ''};
    }""")


def test_the_overlay_follows_the_console(live_server, browser, page, onair_game):
    game_id, key, authors = onair_game
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_id}/console")
    graphics = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    overlay = graphics.new_page()
    overlay.set_default_timeout(15000)
    overlay.goto(f"{live_server.url}/onair/{game_id}?key={key}")
    overlay.evaluate("() => { window.__noReload = true; }")
    # transparent, full HD, in the game's language (2023: Belarusian), whatever the browser's
    assert overlay.evaluate("() => getComputedStyle(document.body).backgroundColor") == (
        "rgba(0, 0, 0, 0)"
    )
    assert overlay.evaluate("() => [document.body.offsetWidth, document.body.offsetHeight]") == [
        1920,
        1080,
    ]
    assert overlay.locator("#score .experts .label").inner_text().lower() == "знаўцы"

    def check(expected_author: str = "") -> dict:
        c = console_state(page)
        shown = overlay_shows(overlay, c["events"])
        assert shown["score"] == c["score"]
        current = c["current"]
        if current is not None:
            assert shown["sector"] == current["sector"]
            assert (
                shown["kind"]
                == {
                    "single": "Пытанне",
                    "blitz": "Бліц",
                    "sector13": "13 сектар",
                }[current["kind"]]
            )
        assert shown["author"] == expected_author
        return shown

    check()
    press(page, "Волчок", sector=1)
    check(authors[(1, 1)])
    press(page, "Минута пошла")
    shown = check(authors[(1, 1)])
    assert shown["minute"] in ("1:00", "0:59")
    # a refresh mid-round: the same picture and the same remaining minute (± 1 s)
    page.wait_for_timeout(1500)
    before = overlay.locator("#minute-left").inner_text()
    overlay.reload()
    overlay.wait_for_function("() => document.getElementById('minute-left').textContent !== ''")
    after = overlay.locator("#minute-left").inner_text()
    overlay.evaluate("() => { window.__noReload = true; }")  # from here on, the stream only

    def seconds(text: str) -> int:
        m, s = (int(x) for x in re.fullmatch(r"(\d+):(\d\d)", text).groups())
        return m * 60 + s

    assert abs(seconds(before) - seconds(after)) <= 1
    assert check(authors[(1, 1)])["minute"] != ""
    press(page, "Неверно")
    assert check(authors[(1, 1)])["minute"] == ""

    press(page, "Волчок", sector=2)  # its author gave no consent: never named
    check("")
    press(page, "Красная карточка")
    assert check("")["result"] == "Ачко тэлегледачам"

    press(page, "Волчок", sector=4)  # the blitz, one question at a time
    for slot in (1, 2, 3):
        check(authors[(4, slot)])
        press(page, "Верно")
    check(authors[(4, 3)])

    press(page, "Волчок", sector=13)
    press(page, "Трое, 20 секунд")
    check(authors[(13, 1)])
    press(page, "Минута пошла")
    assert check(authors[(13, 1)])["minute"] in ("0:20", "0:19")  # 2023 §3.4.3
    press(page, "Верно")
    check(authors[(13, 1)])

    press(page, "Волчок", sector=5)
    press(page, "Верно", early=True)
    shown = check(authors[(5, 1)])
    assert shown["result"] == "Ачко знаўцам"
    assert shown["score"] == "3:2"
    assert overlay.evaluate("() => window.__noReload === true")  # fed by the stream
    graphics.close()
