"""The console and the broadcast overlay side by side in headless Debian Chromium: the host
plays a game (a red card, a blitz, sector 13, an early answer) and after every click the
overlay — fed by the stream, never reloaded — shows exactly the console's state; a reload
of the overlay in the middle of a round comes back to the same picture and the same
remaining minute (± 1 s). A wrong or revoked key, or a closed game, leaves the overlay and
the OGraf graphic drawing nothing (every pixel transparent)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.console_page import press

pytest.importorskip("tests.e2e.conftest")
pytestmark = pytest.mark.slow


@pytest.fixture
def onair_game(live_server):
    """A 2023 game of «Команда Анны» (blitz in 4, sector 13 in 13) whose authors all agreed
    to be named except sector 2's; the producer made a broadcast token. Returns
    ``(game id, token, {(sector, slot): author})``."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.onair.operations import create_token
    from webapp.tasks.outbox import commit

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
    """The console's own JSON state (what its parts are rendered from)."""
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


#: The overlay's names of the sector kinds (the console's ``current.kind``), by language.
KINDS = {
    "be": {
        "single": "Пытанне",
        "blitz": "Бліц",
        "superblitz": "Супербліц",
        "sector13": "13 сектар",
    },
    "ru": {"single": "Вопрос", "blitz": "Блиц", "superblitz": "Суперблиц", "sector13": "13 сектор"},
}


def _open_overlay(live_server, browser, page, game_id: int, key: str):
    """The host's console in ``page`` and, beside it, the overlay in a graphics browser (a
    fresh English one, full HD), fed by the stream only from here on."""
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_id}/console")
    graphics = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    overlay = graphics.new_page()
    overlay.set_default_timeout(15000)
    overlay.goto(f"{live_server.url}/onair/{game_id}?key={key}")
    overlay.evaluate("() => { window.__noReload = true; }")
    # transparent and full HD, whatever the browser's
    assert overlay.evaluate("() => getComputedStyle(document.body).backgroundColor") == (
        "rgba(0, 0, 0, 0)"
    )
    assert overlay.evaluate("() => [document.body.offsetWidth, document.body.offsetHeight]") == [
        1920,
        1080,
    ]
    return graphics, overlay


def _checker(page, overlay, language: str):
    """``check(author)``: the overlay shows exactly the console's state now (score, sector,
    its kind) and ``author`` as the question's author; returns what it shows."""

    def check(expected_author: str = "") -> dict:
        c = console_state(page)
        shown = overlay_shows(overlay, c["events"])
        assert shown["score"] == c["score"]
        current = c["current"]
        if current is not None:
            assert shown["sector"] == current["sector"]
            assert shown["kind"] == KINDS[language][current["kind"]]
        assert shown["author"] == expected_author
        return shown

    return check


def seconds(text: str) -> int:
    m, s = (int(x) for x in re.fullmatch(r"(\d+):(\d\d)", text).groups())
    return m * 60 + s


def _refresh_keeps_the_minute(overlay, check, author: str) -> None:
    """A refresh of the overlay mid-round (OBS does it): the same picture and the same
    remaining minute (± 1 s)."""
    before_shown = check(author)
    before = overlay.locator("#minute-left").inner_text()
    overlay.reload()
    overlay.wait_for_function("() => document.getElementById('minute-left').textContent !== ''")
    after = overlay.locator("#minute-left").inner_text()
    overlay.evaluate("() => { window.__noReload = true; }")  # from here on, the stream only
    assert abs(seconds(before) - seconds(after)) <= 1
    after_shown = check(author)
    assert {k: v for k, v in after_shown.items() if k != "minute"} == {
        k: v for k, v in before_shown.items() if k != "minute"
    }


def test_the_overlay_follows_the_console(live_server, browser, page, onair_game):
    """A whole 2023 game (Belarusian graphics): a red card, a blitz, sector 13 with its
    option, an early answer, up to the experts' sixth point."""
    game_id, key, authors = onair_game
    graphics, overlay = _open_overlay(live_server, browser, page, game_id, key)
    assert overlay.locator("#score .experts .label").inner_text().lower() == "знаўцы"
    check = _checker(page, overlay, "be")

    check()
    press(page, "Волчок", sector=1)
    check(authors[(1, 1)])
    press(page, "Минута пошла")
    shown = check(authors[(1, 1)])
    assert shown["minute"] in ("1:00", "0:59")
    page.wait_for_timeout(1500)
    _refresh_keeps_the_minute(overlay, check, authors[(1, 1)])
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
    for sector in (6, 7, 8):  # to the experts' sixth point: the game is over
        press(page, "Волчок", sector=sector)
        check(authors[(sector, 1)])
        press(page, "Верно")
        shown = check(authors[(sector, 1)])
    assert shown["score"] == "6:2"
    assert console_state(page)["finished"]
    assert overlay.evaluate("() => window.__noReload === true")  # fed by the stream
    graphics.close()


@pytest.fixture
def onair_game_2009(live_server):
    """A 2009 game of «Команда Анны» (blitz in 4, superblitz in 9, sector 13 in 13: drawn at
    the spin from the questions sent during the game, §1.4.1) whose authors all agreed to be
    named except sector 2's; the producer made a broadcast token. Returns ``(game id, token,
    {(sector, slot): author})``."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.onair.operations import create_token
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season("2009"),
            table={"blitz": 4, "superblitz": 9, "sector13": 13},
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


def _a_viewer_sends_a_live_question(live_server) -> str:
    """A question sent during the game, approved, its author consenting: the one candidate
    of sector 13's draw (2009 §1.3, §1.4.1). Returns its author's name."""
    from tests.webapp.games import helpers as h
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        (q,) = h.approved_questions_more(1, channel="live")
        q.consent_on_air = True
        name = q.author_list[0].name
        commit()
    return name


def test_the_overlay_follows_a_2009_game(live_server, browser, page, onair_game_2009):
    """A whole 2009 game (Russian graphics): a red card, a blitz, sector 13 drawn at the
    spin, an early answer, up to the experts' sixth point; a refresh mid-round."""
    game_id, key, authors = onair_game_2009
    graphics, overlay = _open_overlay(live_server, browser, page, game_id, key)
    assert overlay.locator("#score .experts .label").inner_text().lower() == "знатоки"
    check = _checker(page, overlay, "ru")

    check()
    press(page, "Волчок", sector=1)
    check(authors[(1, 1)])
    press(page, "Неверно")
    assert check(authors[(1, 1)])["result"] == "Очко телезрителям"

    press(page, "Волчок", sector=2)  # its author gave no consent: never named
    check("")
    press(page, "Красная карточка")
    assert check("")["score"] == "0:2"

    press(page, "Волчок", sector=4)  # the blitz
    for slot in (1, 2, 3):
        check(authors[(4, slot)])
        press(page, "Верно")
    check(authors[(4, 3)])

    drawn = _a_viewer_sends_a_live_question(live_server)
    press(page, "Волчок", sector=13)  # the draw at the spin takes the live question
    check(drawn)
    press(page, "Минута пошла")
    assert check(drawn)["minute"] in ("1:00", "0:59")
    page.wait_for_timeout(1500)
    _refresh_keeps_the_minute(overlay, check, drawn)
    press(page, "Верно")
    check(drawn)

    press(page, "Волчок", sector=5)
    press(page, "Верно", early=True)
    shown = check(authors[(5, 1)])
    assert shown["result"] == "Очко знатокам"
    assert shown["score"] == "3:2"
    for sector in (6, 7, 8):
        press(page, "Волчок", sector=sector)
        check(authors[(sector, 1)])
        press(page, "Верно")
        shown = check(authors[(sector, 1)])
    assert shown["score"] == "6:2"
    assert console_state(page)["finished"]
    assert overlay.evaluate("() => window.__noReload === true")  # fed by the stream
    graphics.close()


def _play(live_server, game_id: int, *events: dict, status: str | None = None) -> None:
    """Record ``events`` on the game as the console does (and set its ``status``)."""
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.games.operations.play import record_event
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        game = db.session.get(Game, game_id)
        for event in events:
            record_event(game, event, None)
        if status:
            game.status = status
        commit()


def _graphics(browser):
    """A fresh English browser (as the graphics machine's) of the overlay's size."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15000)
    return context, page


def shows_nothing(overlay) -> bool:
    """Every pixel of the overlay is transparent: over the programme it draws nothing."""
    from io import BytesIO

    from PIL import Image

    picture = Image.open(BytesIO(overlay.screenshot(omit_background=True))).convert("RGBA")
    return picture.size == (1920, 1080) and picture.getchannel("A").getextrema() == (0, 0)


SHOWN = """() => ['score', 'sector', 'author', 'minute'].filter(
    (id) => !document.getElementById(id).hidden)"""


def test_a_refused_key_draws_nothing_and_a_revoked_overlay_clears(
    live_server, browser, page, onair_game
):
    """A wrong key: a 401 that is a transparent, empty page (its note only the title), not
    the site's error page over the programme. An overlay on air whose key the producer
    revokes on the game page hides every graphic instead of freezing, and a reload of it
    is the same empty page."""
    game_id, key, authors = onair_game
    graphics, overlay = _graphics(browser)
    answer = overlay.goto(f"{live_server.url}/onair/{game_id}?key=badkey")
    assert answer.status == 401
    assert overlay.title() == "Ключ эфира не действует (401): графика пуста"
    assert overlay.evaluate("() => document.body.innerText") == ""
    assert shows_nothing(overlay)

    _play(live_server, game_id, {"type": "spin", "sector": 1})
    assert overlay.goto(f"{live_server.url}/onair/{game_id}?key={key}").status == 200
    assert overlay.evaluate(SHOWN) == ["score", "sector", "author"]
    assert overlay.locator("#author-name").inner_text() == authors[(1, 1)]
    # the decimal comma of Sova's pages (the JSON row keeps the contract's point)
    assert overlay.locator("#prize").inner_text() == "300,00\u00a0BYN"
    assert not shows_nothing(overlay)

    live_server.login(page, "producer")
    page.goto(f"{live_server.url}/games/{game_id}")
    page.locator("#onair-tokens").get_by_role("button", name="Отозвать").click()
    page.wait_for_load_state("load")
    assert "отозван" in page.locator("#onair-tokens").inner_text()
    overlay.wait_for_function("() => document.getElementById('onair').dataset.refused === 'true'")
    assert overlay.evaluate(SHOWN) == []
    assert shows_nothing(overlay)

    assert overlay.reload().status == 401
    assert shows_nothing(overlay)
    graphics.close()


def test_a_closed_games_graphics_close(live_server, browser, onair_game):
    """The guide: «after the game is closed its graphics close too». The overlay, fed by the
    stream, hides the score and the author's lower third on the row that says «closed»;
    opened afterwards it shows nothing either."""
    game_id, key, authors = onair_game
    _play(live_server, game_id, {"type": "spin", "sector": 1}, {"type": "answer", "correct": True})
    graphics, overlay = _graphics(browser)
    overlay.goto(f"{live_server.url}/onair/{game_id}?key={key}")
    assert overlay.evaluate(SHOWN) == ["score", "sector", "author"]
    assert overlay.locator("#author-name").inner_text() == authors[(1, 1)]

    _play(live_server, game_id, status="closed")
    overlay_shows(overlay, 3)  # two events and the closing
    assert overlay.evaluate(SHOWN) == []
    assert shows_nothing(overlay)
    overlay.reload()
    assert overlay.evaluate(SHOWN) == []
    assert shows_nothing(overlay)
    graphics.close()


def test_the_ograf_graphic_clears_on_a_revoked_key_and_a_closed_game(
    live_server, browser, onair_game
):
    """The OGraf graphic (graphic.mjs) in a renderer's page behaves as the overlay page: the
    prize with the decimal comma; every box hidden once its key is revoked, and, on a new
    key, once the game is closed."""
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.onair.models import BroadcastToken
    from webapp.onair.operations import create_token, revoke_token
    from webapp.tasks.outbox import commit

    game_id, key, authors = onair_game
    _play(live_server, game_id, {"type": "spin", "sector": 1})
    graphics, renderer = _graphics(browser)
    renderer.goto(f"{live_server.url}/onair/{game_id}/overlay.ograf.json")
    renderer.set_content("<!doctype html><body style='margin:0;background:transparent'></body>")
    renderer.evaluate(
        """async ([server, game, key]) => {
            const { default: Graphic } = await import(`${server}/onair/${game}/graphic.mjs`);
            customElements.define("sova-onair", Graphic);
            const graphic = document.createElement("sova-onair");
            document.body.appendChild(graphic);
            await graphic.load({renderType: "realtime", data: {server, game, key}});
            await graphic.playAction();
            window.graphic = graphic;
        }""",
        [live_server.url, game_id, key],
    )
    boxes = """() => [...window.graphic.children]
        .filter((box) => box.style.display !== 'none').map((box) => box.textContent)"""
    renderer.wait_for_function("() => window.graphic.row !== null")
    score, sector, author = renderer.evaluate(boxes)
    assert score == "Знаўцы 0 : 0 Тэлегледачы"
    assert sector == "Раўнд 1 · Сектар 1 · Пытанне · 300,00\u00a0BYN"
    assert author.startswith(f"Аўтар пытання: {authors[(1, 1)]}")

    with live_server.app.app_context():
        game = db.session.get(Game, game_id)
        (token,) = db.session.scalars(db.select(BroadcastToken).filter_by(game_id=game_id))
        revoke_token(game, token.id, None)
        _token, new_key = create_token(game, "OGraf", None)
        commit()
    renderer.wait_for_function("() => window.graphic.dataset.refused === 'true'")
    assert renderer.evaluate(boxes) == []
    assert shows_nothing(renderer)

    renderer.evaluate(
        "([server, game, key]) => window.graphic.updateAction({data: {server, game, key}})",
        [live_server.url, game_id, new_key],
    )
    renderer.wait_for_function("() => window.graphic.row !== null")
    assert len(renderer.evaluate(boxes)) == 3
    _play(live_server, game_id, status="closed")
    renderer.wait_for_function("() => window.graphic.row.status === 'closed'")
    assert renderer.evaluate(boxes) == []
    assert shows_nothing(renderer)
    graphics.close()
