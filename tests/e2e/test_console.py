"""The host plays a full game on the console in headless Debian Chromium: a blitz, club help,
an action the rules refuse that the console does not offer — to 6, without a page reload
(console.js puts in place the parts the server renders after each action)."""

from __future__ import annotations

import pytest

from tests.e2e.console_page import press

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures


@pytest.fixture
def game_id(live_server):
    """A 2023 game of «Команда Анны» (blitz in sector 4), its table filled and locked; the
    producer let the console start it without printing the envelopes."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season(),
            table={"blitz": 4, "superblitz": None, "sector13": None},
            status="draft",
            team_=h.team(),
        )
        assign_envelopes(g)
        lock_table(g, None)
        h.startable(g)
        gid = g.id
        commit()
    return gid


def buttons(page) -> list[str]:
    return page.locator("#console-actions button").all_inner_texts()


def score(page) -> str:
    return page.locator("#console-score").inner_text()


def early_boxes(page) -> int:
    return page.locator("#console-actions input[name=early]").count()


def test_host_plays_a_full_game_on_the_console(live_server, page, game_id):
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_id}/console")
    page.evaluate("() => { window.__noReload = true; }")
    assert page.locator("#console-sectors li").count() == 13
    # each sector numbered once: by its own label, not by the list's marker too
    first = page.locator("#console-sectors li").first
    assert first.evaluate("li => getComputedStyle(li).listStyleType") == "none"
    assert first.inner_text() == "1 Вопрос"
    assert "Знатоки : Телезрители" not in page.locator("#console").inner_text()
    assert buttons(page) == ["Волчок"]
    assert page.locator(".score").inner_text() == "Команда Анны 0:0 Телезрители"

    press(page, "Волчок", sector=1)
    assert "Сектор 1: Вопрос" in page.locator("#console-question h2").inner_text()
    assert "Помощь клуба" not in buttons(page)  # 0:0, not behind: not offered
    press(page, "Неверно")
    assert score(page) == "0:1"

    press(page, "Волчок", sector=2)
    assert "Помощь клуба" in buttons(page)  # behind: offered
    assert early_boxes(page) == 2  # «досрочно» on both answer buttons
    press(page, "Помощь клуба")
    assert "Помощь клуба" not in buttons(page)
    # after club help an early answer is refused (§3.5): the boxes are gone, not refused later
    assert early_boxes(page) == 0
    assert buttons(page)[:2] == ["Верно", "Неверно"]
    press(page, "Верно")
    assert score(page) == "1:1"

    # club help is used: not offered again, and refused if sent anyway (Russian + clause)
    press(page, "Волчок", sector=3)
    assert "Помощь клуба" not in buttons(page)
    refused = page.evaluate("""async () => {
        const root = document.getElementById('console');
        const body = new FormData();
        body.append('csrf_token', root.dataset.csrf);
        body.append('type', 'club_help');
        const r = await fetch(root.dataset.url, {method: 'POST', body,
                                                 headers: {'Accept': 'application/json'}});
        return [r.status, (await r.json()).error];
    }""")
    assert refused[0] == 409
    assert refused[1]["rule"] == "000_90d7c8192601ed3a.txt §3.7"
    assert refused[1]["text"] == ("Помощь клуба — один раз за игру. (п. 3.7 Правил сезона 2023 г.)")
    press(page, "Верно")
    assert score(page) == "2:1"

    # the blitz: three sub-questions, one at a time; «досрочно» ticked for the first one
    # only (the next question's forms are fresh: nothing ticked is sent again)
    press(page, "Волчок", sector=4)
    for n in (1, 2, 3):
        assert f"Блиц, вопрос {n} из 3" in page.locator("#console-question h2").inner_text()
        assert page.locator("#console-question blockquote").count() == 1
        assert page.locator("#console-actions input[name=early]:checked").count() == 0
        press(page, "Верно", early=n == 1)
    assert score(page) == "3:1"
    protocol = page.request.get(f"{live_server.url}/games/{game_id}/protocol.json").json()
    blitz = [e for e in protocol["events"] if e["type"] == "answer"][-3:]
    assert [e.get("early", False) for e in blitz] == [True, False, False]

    # an early right answer earns an extra minute; undo it and answer again
    press(page, "Волчок", sector=5)
    press(page, "Верно", early=True)
    assert score(page) == "4:1"
    assert page.locator("#console-extras").inner_text().startswith("Доп. минут: 1")
    page.locator("#console-undo button").click()
    page.wait_for_function("() => document.getElementById('console-score').textContent === '3:1'")
    press(page, "Верно", early=True)
    for sector in (6, 7):
        press(page, "Волчок", sector=sector)
        press(page, "Верно")
    assert score(page) == "6:1"
    assert page.locator("#console-status").inner_text() == "Игра окончена: победили знатоки."
    assert buttons(page) == []
    played = page.locator("#console-sectors li.played").count()
    assert played == 7
    assert page.evaluate("() => window.__noReload === true")  # never reloaded


@pytest.fixture
def game_2009(live_server):
    """A 2009 game (superblitz in 5, sector 13 in 13), table locked, and one live question
    sent during it, approved and signed off: the only candidate of the sector-13 draw."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table, record_event
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season("2009"), table={"blitz": None, "superblitz": 5, "sector13": 13}, status="draft"
        )
        assign_envelopes(g)
        lock_table(g, None)
        # the game begins (its first console event), then the live question comes in:
        # the draw takes only questions sent during the game (2009 §1.3)
        record_event(g, {"type": "spin", "sector": 1}, None)
        record_event(g, {"type": "answer", "correct": True}, None)
        commit()
        h.approved_questions(1, channel="live")
        gid = g.id
        commit()
    return gid


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_console_links_the_drawn_questions_host_card(live_server, page, game_2009):
    """2009: the spin lands on 13, the draw fills the envelope and queues its host card; the
    console (its parts put in place by console.js) says the card is being prepared, and once the
    worker has rendered it, links the PDF."""
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_2009}/console")
    page.evaluate("() => { window.__noReload = true; }")
    press(page, "Волчок", sector=13)
    draw = page.locator("#console-question p.draw")
    assert draw.inner_text().endswith("Карточка ведущего: готовится.")
    assert live_server.drain() == ["games.render_envelopes"]
    page.reload()
    link = page.locator("#console-question p.draw").get_by_role("link", name="скачать PDF")
    response = page.request.get(f"{live_server.url}{link.get_attribute('href')}")
    assert response.status == 200 and response.body().startswith(b"%PDF")


@pytest.fixture
def game_2009_empty(live_server):
    """A 2009 game (superblitz in 5, sector 13 in 13), table locked, its first round played
    (1:0), and one live question sent during it still in the editors' review: the sector-13
    pool is empty. Returns ``(game id, the text of sector 2's question)``."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table, record_event
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season("2009"), table={"blitz": None, "superblitz": 5, "sector13": 13}, status="draft"
        )
        assign_envelopes(g)
        lock_table(g, None)
        record_event(g, {"type": "spin", "sector": 1}, None)
        record_event(g, {"type": "answer", "correct": True}, None)
        commit()
        h.approved_questions(1, channel="live")[0].status = "in_review"
        sector2 = next(e for e in g.envelopes if e.sector == 2).questions[0].question.text
        gid = g.id
        commit()
    return gid, sector2


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_console_passes_over_an_empty_sector13(live_server, page, game_2009_empty):
    """2009 §1.4.1 with §1.4: the arrow on sector 13 while no live question has passed the
    fast lane; the console shows the round in sector 2 with its real question and the
    reading cited, sector 13 «пуст», never «(в конверте нет вопроса)»; «Неверно» gives the
    viewers their point for sector 2's question. A sector-13 round recorded without a
    question (an old, unmarked spin) offers no «Верно»/«Неверно» at all."""
    game_id, sector2 = game_2009_empty
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_id}/console")
    page.evaluate("() => { window.__noReload = true; }")
    press(page, "Волчок", sector=13)
    assert page.locator("#console-question h2").inner_text() == "Сектор 2: Вопрос"
    assert page.locator("#console-question p.sector13-notice").inner_text() == (
        "13 сектор пуст: к моменту вращения ни один вопрос зрителей не одобрен редакторами с "
        "проверенными источниками — компьютеру не из чего выбирать. 13 сектор выпал и больше в "
        "этой игре не играет; вопрос задаётся из следующего по часовой стрелке сектора 2 "
        "(п. 1.4.1 Правил сезона 2009 г.; п. 1.4 Правил сезона 2009 г.)."
    )
    assert page.locator("#console-question blockquote").inner_text() == sector2
    assert "нет вопроса" not in page.locator("#console-question").inner_text()
    assert page.locator('#console-sectors li[data-sector="13"] .mark').inner_text() == "пуст"
    assert page.locator("#console-message").is_hidden()
    press(page, "Неверно")
    assert score(page) == "1:1"
    assert page.locator("#console-question").inner_text() == ""
    assert page.evaluate("() => window.__noReload === true")  # no reload: parts swapped in place

    from webapp.core.models import utcnow
    from webapp.extensions import db
    from webapp.games.models import Game, GameEvent
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():  # an old game: a spin on 13 stored unmarked
        g = db.session.get(Game, game_id)
        for event in list(g.events[2:]):
            g.events.remove(event)
            db.session.delete(event)
        db.session.flush()
        g.events.append(
            GameEvent(seq=3, payload={"type": "spin", "sector": 13}, created_at=utcnow())
        )
        commit()
    page.goto(f"{live_server.url}/games/{game_id}/console")
    assert buttons(page) == []
    assert page.locator("#console-question p.sector13-notice").inner_text() == (
        "В 13 секторе нет вопроса: отмените вращение и запишите его снова — пустой 13 сектор "
        "пропускается (п. 1.4.1 Правил сезона 2009 г.)."
    )
    page.locator("#console-undo button").click()  # the host undoes it and spins again
    page.wait_for_function("() => !document.getElementById('console').hasAttribute('aria-busy')")
    press(page, "Волчок", sector=13)
    assert page.locator("#console-question h2").inner_text() == "Сектор 2: Вопрос"
    assert buttons(page)[:2] == ["Верно", "Неверно"]


@pytest.fixture
def handout_game(live_server):
    """A 2023 game whose sector-1 question is like the Kubok packet's Prague question: a
    leading handout block with an image reference, its file attached; table locked."""
    from pathlib import Path

    from tests.helpers import KUBOK_PREFIX, image_bytes
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, lock_table
    from webapp.moderation.images import attach_image
    from webapp.tasks.outbox import commit

    name = f"{KUBOK_PREFIX}001.png"
    with live_server.app.app_context():
        h.approved_questions(20)
        table = {"blitz": 4, "superblitz": None, "sector13": None}
        g = h.game(h.season(), table=table, status="draft")
        assign_envelopes(g)
        q = next(e for e in g.envelopes if e.sector == 1).questions[0].question
        q.text = f"[Раздаточный материал:\n(img {name})]\nАвтор вопроса сравнил Прагу с рыбой."
        q.handout = f"(img {name})"
        uploads = Path(live_server.app.config["SOVA_INSTANCE_PATH"]) / "uploads"
        attach_image(q, name, image_bytes(name), uploads, None)
        lock_table(g, None)
        h.startable(g)
        gid = g.id
        commit()
    return gid


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_console_shows_the_handout_once_as_an_image(live_server, page, handout_game):
    """The question part the server answers with after the spin: «Раздаточный материал» once, with
    the image (its real 60 px width loaded from /uploads), the text without the block."""
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{handout_game}/console")
    page.evaluate("() => { window.__noReload = true; }")
    press(page, "Волчок", sector=1)
    question = page.locator("#console-question")
    page.wait_for_function(
        # a function, not an expression: Playwright polls an expression with eval, which
        # the page's CSP (no 'unsafe-eval') refuses once the first check has not passed
        "() => [...document.querySelectorAll('#console-question img')].every(i => i.complete)"
    )
    widths = page.evaluate(
        "[...document.querySelectorAll('#console-question img.question-image')]"
        ".map(i => i.naturalWidth)"
    )
    assert widths == [60]
    assert question.locator(".handout img").count() == 1
    shown = question.inner_text()
    assert shown.count("Раздаточный материал") == 1
    assert "(img" not in shown and "Kubok" not in shown
    assert question.locator("blockquote").inner_text() == "Автор вопроса сравнил Прагу с рыбой."
    assert page.evaluate("() => window.__noReload === true")  # swapped in place, no reload


@pytest.fixture
def hint_games(live_server):
    """Two 2023 games of «Команда Анны» (h.EXPERTS), 1 and 8 March, tables filled and
    startable on the console; returns their ids."""
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        season, team = h.season(), h.team()
        ids = []
        for day in (1, 8):
            h.approved_questions_more(15) if ids else h.approved_questions(15)
            table = {"blitz": 4, "superblitz": None, "sector13": 13}
            g = h.game(season, day, team_=team, table=table, status="draft")
            assign_envelopes(g)
            h.startable(g)
            ids.append(g.id)
        commit()
    return ids


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_red_card_names_the_hinter_and_the_next_game_keeps_him_off(
    live_server, page, hint_games
):
    """2023 §3.7.3 in Chromium: the host names who hinted from the team's list with the
    keyboard alone; in the team's next game the console shows him off the table, citing the
    clause, and he cannot be chosen as answering until the team's right answer."""
    first, second = hint_games
    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{first}/console")
    page.evaluate("() => { window.__noReload = true; }")
    press(page, "Волчок", sector=1)
    card = page.locator(
        "#console-actions form",
        has=page.get_by_role("button", name="Красная карточка", exact=True),
    )
    pick = card.get_by_label("Подсказал")
    pick.focus()
    for _ in range(3):  # не указан → Анна → Борис → Вера
        page.keyboard.press("ArrowDown")
    assert pick.input_value() == "Вера"
    page.keyboard.press("Tab")  # to the card's button
    with page.expect_response(lambda r: "/console" in r.url and r.request.method == "POST"):
        page.keyboard.press("Enter")
    page.wait_for_function("() => !document.getElementById('console').hasAttribute('aria-busy')")
    assert score(page) == "0:1"
    assert page.locator("#console-undo button").inner_text() == (
        "Отменить: Красная карточка: подсказал Вера"
    )
    assert page.evaluate("() => window.__noReload === true")

    page.goto(f"{live_server.url}/games/{second}/console")
    page.evaluate("() => { window.__noReload = true; }")
    off = "не за столом (подсказка, п. 3.7.3 Правил сезона 2023 г.): Вера"
    assert off in page.locator("#console-extras").inner_text()
    press(page, "Волчок", sector=1)  # the answer forms now come in the spin's answer
    right = page.locator(
        "#console-actions form", has=page.get_by_role("button", name="Верно", exact=True)
    )
    who = right.get_by_label("Отвечал")
    vera = who.locator("option[value='Вера']")
    assert vera.inner_text() == "Вера (не за столом, п. 3.7.3 Правил сезона 2023 г.)"
    assert vera.is_disabled()
    who.select_option("Анна")
    press(page, "Верно")
    assert score(page) == "1:0"
    assert "не за столом" not in page.locator("#console-extras").inner_text()
    press(page, "Волчок", sector=2)
    assert page.locator("#console-actions select[name=expert]").count() == 1  # the red card's
    assert page.evaluate("() => window.__noReload === true")


@pytest.fixture
def game_2009_at_5(live_server):
    """A 2009 game of «Команда Анны», envelopes filled, startable, the viewers at 0:5."""
    from tests.helpers import VIEWERS_WIN
    from tests.webapp.games import helpers as h
    from webapp.games.operations import assign_envelopes, record_event
    from webapp.tasks.outbox import commit

    with live_server.app.app_context():
        h.approved_questions(20)
        g = h.game(
            h.season("2009"),
            table={"blitz": None, "superblitz": 9, "sector13": 13},
            team_=h.team(),
            status="draft",
        )
        assign_envelopes(g)
        h.startable(g)
        for event in VIEWERS_WIN[:-2]:
            record_event(g, event, None)
        gid = g.id
        commit()
    return gid


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_vote_button_follows_the_game_after_an_undo(live_server, page, game_2009_at_5):
    """2009 §3.1: «Открыть голосование» is offered once the game is over; when the host
    undoes the last answer on the console (no reload), the game is live again and the
    button goes at once, and it comes back when the game ends again."""
    from playwright.sync_api import expect

    live_server.login(page, "host")
    page.goto(f"{live_server.url}/games/{game_2009_at_5}/console")
    page.evaluate("() => { window.__noReload = true; }")
    # the once-a-second poll stops after its first round: what the panel shows now follows
    # the console's events alone
    with page.expect_response(lambda r: "tally.json" in r.url):
        pass
    page.evaluate("() => { window.setTimeout = function () { return 0; }; }")
    open_vote = page.locator("#vote-controls").get_by_role("button", name="Открыть голосование")
    expect(open_vote).to_have_count(0)
    press(page, "Волчок", sector=6)
    press(page, "Неверно")
    assert score(page) == "0:6"
    expect(open_vote).to_have_count(1)
    with page.expect_response(lambda r: "/undo" in r.url):
        page.locator("#console-undo button").click()
    page.wait_for_function("() => document.getElementById('console-score').textContent === '0:5'")
    expect(open_vote).to_have_count(0)
    press(page, "Неверно")
    expect(open_vote).to_have_count(1)
    assert page.evaluate("() => window.__noReload === true")


def test_a_second_tablet_behind_the_game_is_told_and_brought_up_to_date(live_server, page, game_id):
    """Two tablets on one game: the first answers question 1 and spins again while the
    second still shows question 1. The second's «Верно» is not recorded for question 2: it
    is told why and shows the game as it is, and its next press counts."""
    live_server.login(page, "host")
    url = f"{live_server.url}/games/{game_id}/console"
    page.goto(url)
    press(page, "Волчок", sector=1)
    second = page.context.new_page()
    second.goto(url)
    assert "Сектор 1: Вопрос" in second.locator("#console-question h2").inner_text()

    press(page, "Неверно")
    press(page, "Волчок", sector=2)
    press(second, "Верно")
    assert second.locator("#console-message").inner_text() == (
        "Отказано: На другом устройстве уже записано событие — пульт показывает игру заново: "
        "проверьте её и нажмите ещё раз, если нужно"
    )
    assert "Сектор 2: Вопрос" in second.locator("#console-question h2").inner_text()
    assert score(second) == "0:1"
    press(second, "Верно")
    assert score(second) == "1:1"
    page.reload()
    assert score(page) == "1:1"
