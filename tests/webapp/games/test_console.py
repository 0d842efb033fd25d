"""The host console page: forms without JavaScript, the parts and state as JSON for
console.js, undo audited."""

from __future__ import annotations

import re

import pytest

from tests.forms import page_forms
from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.console import refusal_ru
from webapp.games.models import GameEventAudit
from webapp.games.operations import assign_envelopes
from webapp.games.views.host_console import PARTS

JSON = {"Accept": "application/json"}


@pytest.fixture
def ready_game(app):
    """A 2023 game, blitz in sector 4, sector 13 in 13, envelopes filled; returns its id."""
    h.approved_questions(15)
    g = h.game(h.season(), table={"blitz": 4, "superblitz": None, "sector13": 13}, status="draft")
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    return g.id


def post(client, game_id, **data):
    return client.post(f"/games/{game_id}/console", data=data, headers=JSON)


def test_refusal_ru_shows_the_rule_books_sentence_as_it_is():
    """A refusal by the rules already reads as the person's sentence with its clause
    (``webapp.domain.rules.refusal_text``, put in ``message`` by ``operations.play``): the
    console shows it as it is, and any other refusal as its own sentence."""
    sentence = "Помощь клуба — один раз за игру. (п. 3.7 Правил сезона 2023 г.)"
    assert refusal_ru({"rule": "000_90d7c8192601ed3a.txt §3.7", "message": sentence}) == sentence
    assert refusal_ru({"rule": None, "message": "spin.sector must be int"}) == (
        "Spin.sector must be int"
    )


def _action(html: str, event_type: str, **match: str):
    """The console's form of ``event_type`` (and ``match`` among its fields) as a browser
    sends it untouched (``tests.forms``)."""
    forms = [
        f
        for f in page_forms(html)
        if f.fields.get("type") == event_type
        and all(f.fields.get(k) == v for k, v in match.items())
    ]
    assert len(forms) == 1, [f.fields for f in page_forms(html)]
    return forms[0]


def test_console_shows_the_rule_books_words_for_real_refusals(login, ready_game):
    """An event the rules refuse, sent without the console's count of events (as a page
    from before the count, or a tool, sends it: a press from a page the game has moved past
    is refused as stale first), is refused in the rule book's Russian words with the clause
    (``webapp.domain.rules.refusals``), never the engine's English; nothing is recorded. A
    second tablet's press without JavaScript: the flash says why not."""
    client = login("host")
    url = f"/games/{ready_game}/console"

    def page() -> str:
        return client.get(url).get_data(as_text=True)

    def send(form, **typed):
        fields = {k: v for k, v in form.fields.items() if k != "after"}
        return client.post(form.action, data={**fields, **typed}, headers=JSON)

    assert send(_action(page(), "spin"), sector="1").status_code == 200
    assert send(_action(page(), "answer", correct="false")).status_code == 200  # 0:1
    assert send(_action(page(), "spin"), sector="2").status_code == 200
    club_help = _action(page(), "club_help")
    assert send(club_help).status_code == 200
    again = send(club_help)  # the same button tapped twice
    assert (again.status_code, again.json["error"]["text"]) == (
        409,
        "Помощь клуба — один раз за игру. (п. 3.7 Правил сезона 2023 г.)",
    )
    right = _action(page(), "answer", correct="true")
    assert send(right).json["console"]["score"] == "1:1"
    late = send(right)  # the answer sent again once the round is over
    assert late.json["error"]["text"] == (
        "Вопрос ещё не выбран: сначала волчок. (п. 3.4 Правил сезона 2023 г.)"
    )
    between_rounds = page()
    assert send(_action(between_rounds, "spin"), sector="4").status_code == 200  # the blitz
    # a second tablet still shows the spin: without JavaScript the flash says why not
    stale = _action(between_rounds, "spin")
    refused = client.post(stale.action, data={**stale.fields, "sector": "5"})
    assert refused.status_code == 302
    shown = page()
    assert (
        "Отказано: На другом устройстве уже записано событие — пульт показывает игру заново: "
        "проверьте её и нажмите ещё раз, если нужно"
    ) in shown
    assert "in play" not in shown and ".txt" not in shown
    state = client.get(url, headers=JSON).json["console"]
    assert (state["events"], state["score"]) == (6, "1:1")


def test_console_without_javascript(login, ready_game):
    client = login("host")
    page = client.get(f"/games/{ready_game}/console").get_data(as_text=True)
    assert page.count('data-sector="') == 13
    # the score line names both sides already: no second «Знатоки : Телезрители.» legend
    assert "Знатоки : Телезрители" not in page
    assert 'src="/static/console.js"' in page and "<script>" not in page
    assert re.findall(r'data-type="(\w+)"', page) == ["spin"]
    assert "Вопрос номер" not in page  # nothing to read before the spin
    resp = client.post(f"/games/{ready_game}/console", data={"type": "spin", "sector": "4"})
    assert resp.status_code == 302
    page = client.get(f"/games/{ready_game}/console").get_data(as_text=True)
    assert "Сектор 4: Блиц, вопрос 1 из 3" in page
    assert page.count('class="question-text"') == 1  # only the current sub-question
    assert re.findall(r'data-type="(\w+)"', page) == [
        "answer",
        "answer",
        "minute",
        "minute",
        "red_card",
    ]
    assert "Отменить: Волчок: сектор 4" in page
    # a refused event: Russian text and its clause, nothing recorded
    resp = client.post(
        f"/games/{ready_game}/console", data={"type": "club_help"}, follow_redirects=True
    )
    text = resp.get_data(as_text=True)
    assert "Отказано: " in text and "(п. 3.7.1 Правил сезона 2023 г.)" in text
    assert "000_90d7c8192601ed3a.txt" not in text  # the rule book's file name is internal


def test_console_json_plays_a_blitz_and_shows_sub_questions(login, ready_game):
    client = login("host")
    c = client.get(f"/games/{ready_game}/console", headers=JSON).json["console"]
    assert (c["score"], c["allowed"], c["current"], c["events"]) == ("0:0", ["spin"], None, 0)
    assert [s["kind"] for s in c["sectors"]] == ["single"] * 3 + ["blitz"] + ["single"] * 8 + [
        "sector13"
    ]
    r = post(client, ready_game, type="spin", sector="4")
    assert r.status_code == 200 and r.json["ok"]
    c = r.json["console"]
    first = c["current"]
    assert (first["sector"], first["kind"], first["slot"], first["slots"]) == (4, "blitz", 1, 3)
    assert c["sectors"][3]["current"] and c["sectors"][3]["played"]
    r = post(client, ready_game, type="answer", correct="true")
    c = r.json["console"]
    assert (c["current"]["slot"], c["score"]) == (2, "0:0")
    assert c["current"]["text"] != first["text"]
    post(client, ready_game, type="answer", correct="true")
    c = post(client, ready_game, type="answer", correct="true").json["console"]
    assert (c["score"], c["current"], c["allowed"]) == ("1:0", None, ["spin"])
    assert c["last_event"] == {"seq": 4, "type": "answer", "label": "Ответ: верно"}


def _part(html: str, part: str) -> str:
    """The element ``id=part`` of ``html`` (its outermost tag closed at the first closing tag
    of its own name that is not nested), CSRF token values blanked: each render signs anew."""
    start = html.index(f'id="{part}"')
    start = html.rindex("<", 0, start)
    tag = re.match(r"<(\w+)", html[start:]).group(1)
    depth, pos = 0, start
    for m in re.finditer(rf"<(/?){tag}\b", html[start:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            pos = start + m.end() + html[start + m.end() :].index(">") + 1
            break
    return re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token" value=""', html[start:pos])


def test_the_parts_answered_after_an_event_are_the_pages_own(login, ready_game):
    """One template: after an event the script is sent the HTML of the parts that changed,
    each the same as that part of the page rendered afterwards; the parts it already shows
    (named by their digests) are not sent again, and a refusal sends its message only."""
    client = login("host")
    url = f"/games/{ready_game}/console"
    page = client.get(url).get_data(as_text=True)
    shown = re.search(r'data-digests="([^"]+)"', page).group(1)
    spin = _action(page, "spin")
    headers = {**JSON, "X-Console-Parts": shown}
    r = client.post(spin.action, data={**spin.fields, "sector": "4"}, headers=headers)
    assert r.status_code == 200
    html = r.json["html"]
    assert sorted(html) == [
        "console-actions",
        "console-question",
        "console-sectors",
        "console-undo",
    ]
    after = client.get(url).get_data(as_text=True)
    for part, fragment in html.items():
        assert _part(fragment, part) == _part(after, part)
    assert "Сектор 4: Блиц, вопрос 1 из 3" in html["console-question"]
    assert '<span class="mark">в игре</span>' in _part(after, "console-sectors")

    shown = " ".join(f"{p}={d}" for p, d in r.json["digests"].items())
    assert 'data-type="club_help"' not in after  # 0:0: not offered; sent as a stale tablet
    r = client.post(url, data={"type": "club_help"}, headers={**JSON, "X-Console-Parts": shown})
    assert r.status_code == 409
    assert list(r.json["html"]) == ["console-message"]
    assert r.json["html"]["console-message"] == (
        '<div id="console-message" class="flash error" role="alert">Отказано: '
        + r.json["error"]["text"]
        + "</div>"
    )
    assert r.json["error"]["text"].endswith("(п. 3.7.1 Правил сезона 2023 г.)")
    # without the digests (an old page) every part is sent
    r = client.post(f"/games/{ready_game}/undo", headers=JSON)
    assert sorted(r.json["html"]) == sorted(PARTS)
    message = r.json["html"]["console-message"]
    assert message == '<div id="console-message" class="flash error" role="alert" hidden></div>'


def test_refusal_as_json_is_409_with_russian_text(login, ready_game):
    client = login("host")
    post(client, ready_game, type="spin", sector="1")
    r = post(client, ready_game, type="club_help")
    assert r.status_code == 409
    assert r.json["ok"] is False
    assert r.json["error"]["rule"] == "000_90d7c8192601ed3a.txt §3.7.1"
    assert r.json["error"]["event"] == 1
    assert r.json["error"]["text"].endswith("(п. 3.7.1 Правил сезона 2023 г.)")
    assert r.json["console"]["events"] == 1
    assert "club_help" not in r.json["console"]["allowed"]
    r = post(client, ready_game, type="spin")  # a spin with no sector: the host's slip (422)
    assert r.status_code == 422 and r.json["error"]["rule"] is None
    assert r.json["console"]["events"] == 1  # not stored
    r = post(client, ready_game, type="")
    assert r.status_code == 422 and r.json["console"]["events"] == 1


def test_undo_is_audited_and_the_state_is_replayed(login, staff, ready_game):
    client = login("host")
    post(client, ready_game, type="spin", sector="2")
    post(client, ready_game, type="answer", correct="false", early="y")
    r = client.post(f"/games/{ready_game}/undo", headers=JSON)
    assert r.status_code == 200
    c = r.json["console"]
    assert (c["score"], c["events"], c["current"]["sector"]) == ("0:0", 1, 2)
    host_id = staff("host")[0]
    audit = db.session.scalars(db.select(GameEventAudit).order_by(GameEventAudit.id)).all()
    assert [(a.action, a.seq, a.payload, a.by_user_id) for a in audit] == [
        (  # the fixture's start confirmation (operations.allow_start)
            "start_ok",
            0,
            {"reason": "проверка пульта без печати конвертов", "locked": False, "envelopes": False},
            None,
        ),
        ("record", 1, {"type": "spin", "sector": 2}, host_id),
        ("record", 2, {"type": "answer", "correct": False, "early": True}, host_id),
        ("undo", 2, {"type": "answer", "correct": False, "early": True}, host_id),
    ]
    assert all(a.at.tzinfo is not None for a in audit)
    client.post(f"/games/{ready_game}/undo", headers=JSON)
    r = client.post(f"/games/{ready_game}/undo", headers=JSON)
    assert r.status_code == 409 and r.json["error"]["text"] == ("Отменять нечего: событий ещё нет")
    # without JavaScript: a redirect back to the console
    assert client.post(f"/games/{ready_game}/undo").status_code == 302


def test_console_2009_asks_who_answered(login, app):
    h.approved_questions(15)
    g = h.game(
        h.season("2009"),
        table={"blitz": 4, "superblitz": None, "sector13": 13},
        team_=h.team(),
        status="draft",
    )
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    client = login("host")
    post(client, g.id, type="spin", sector="1")
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    assert 'name="expert"' in page and '<option value="Анна">' in page
    c = post(client, g.id, type="answer", correct="false", expert="Анна").json["console"]
    assert c["removed_experts"] == ["Анна"]


def test_producer_pages_for_teams_series_and_attach(login, app):
    s = h.season()
    g = h.game(s, status="draft")
    h.commit()
    client = login("producer")
    r = client.post(
        "/games/teams",
        data={"name": "Команда Бориса", "captain": "Борис", "experts": "\n".join(h.EXPERTS)},
    )
    assert r.status_code == 302
    r = client.post(
        "/games/teams",
        data={"name": "Неполная", "captain": "Борис", "experts": "Борис\nВера"},
        follow_redirects=True,
    )
    assert "Команда не создана: Знатоки: в команде 6 знатоков, а названо 2" in r.get_data(
        as_text=True
    )
    assert (
        client.post(
            "/games/series", data={"series-season_id": s.id, "series-part": "autumn"}
        ).status_code
        == 302
    )
    from webapp.games.models import Game, Series, Team

    team = db.session.scalar(db.select(Team))
    series = db.session.scalar(db.select(Series))
    assert (team.name, team.captain, series.part) == ("Команда Бориса", "Борис", "autumn")
    r = client.post(f"/games/{g.id}/attach", data={"team_id": team.id, "series_id": series.id})
    assert r.status_code == 302
    db.session.expire_all()
    game = db.session.get(Game, g.id)
    assert (game.team_id, game.series_id, game.team) == (team.id, series.id, "Команда Бориса")
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert "Осенняя серия — Сезон 2023" in page


def _answer_form(page: str) -> dict[str, str]:
    """The console's «wrong answer» form as a browser sends it without JavaScript: its
    hidden fields and the «Отвечал» select's first option; also the options offered."""
    forms = re.findall(
        r'<form method="post" action="[^"]+/console" class="action">(.*?)</form>', page, re.S
    )
    form = next(f for f in forms if 'name="correct" value="false"' in f)
    data = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form))
    options = re.findall(r'<option value="([^"]*)"( disabled)?>', form)
    return data, options


def test_console_2009_offers_the_teams_experts_and_refuses_anyone_else(login, app):
    """2009 §1.6 removes the player who answered: the console offers the team's experts
    (a removed one shown but not selectable) and refuses an answer naming someone outside
    the team, in Russian with the clause; nothing is recorded. The API refuses it too."""
    h.approved_questions(15)
    g = h.game(
        h.season("2009"),
        table={"blitz": 4, "superblitz": None, "sector13": 13},
        team_=h.team(),
        status="draft",
    )
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    client = login("host")
    post(client, g.id, type="spin", sector="1")
    data, options = _answer_form(client.get(f"/games/{g.id}/console").get_data(as_text=True))
    assert options == [("", "")] + [(name, "") for name in h.EXPERTS]
    refused = client.post(
        f"/games/{g.id}/console", data={**data, "expert": "Вася Пупкин"}, headers=JSON
    )
    assert refused.status_code == 409
    assert refused.json["error"]["text"] == (
        "«Вася Пупкин» — не знаток этой команды (знатоки: Анна, Борис, Вера, Глеб, Дина, "
        "Ефим). По правилу удаления уходит из-за стола игрок команды, который отвечал: "
        "выберите его из списка. (п. 1.6 Правил сезона 2009 г.)"
    )
    assert ".txt" not in refused.json["error"]["text"]
    assert refused.json["console"]["events"] == 1  # nothing recorded
    # without JavaScript: the flash on the console page says the same
    client.post(f"/games/{g.id}/console", data={**data, "expert": "Вася Пупкин"})
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    assert "Отказано: «Вася Пупкин» — не знаток этой команды" in page
    assert "(п. 1.6 Правил сезона 2009 г.)" in page and ".txt" not in page
    # a team expert, as the select sends it: recorded, and then shown as removed
    ok = client.post(f"/games/{g.id}/console", data={**data, "expert": "Вера"}, headers=JSON)
    assert ok.status_code == 200 and ok.json["console"]["removed_experts"] == ["Вера"]
    post(client, g.id, type="spin", sector="2")
    _data, options = _answer_form(client.get(f"/games/{g.id}/console").get_data(as_text=True))
    assert ("Вера", " disabled") in options


def test_api_refuses_an_answer_naming_someone_outside_the_team(api, app):
    h.approved_questions(15)
    g = h.game(
        h.season("2009"),
        table={"blitz": 4, "superblitz": None, "sector13": 13},
        team_=h.team(),
        status="draft",
    )
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    assert (
        api(
            "post", f"/api/v1/games/{g.id}/events", role="host", json={"type": "spin", "sector": 1}
        ).status_code
        == 201
    )
    r = api(
        "post",
        f"/api/v1/games/{g.id}/events",
        role="host",
        json={"type": "answer", "correct": False, "expert": "Вася Пупкин"},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "event": 1,
        "rule": "002_e025d5ded135c1c4.txt §1.6",
        "message": "«Вася Пупкин» — не знаток этой команды (знатоки: Анна, Борис, Вера, Глеб, "
        "Дина, Ефим). По правилу удаления уходит из-за стола игрок команды, который отвечал: "
        "выберите его из списка. (п. 1.6 Правил сезона 2009 г.)",
        "code": "not_team_expert",
        "params": {"expert": "Вася Пупкин", "experts": h.EXPERTS},
    }
    protocol = api("get", f"/api/v1/games/{g.id}", role="host").json["protocol"]
    assert protocol["context"]["experts"] == h.EXPERTS


def test_the_sector_in_play_is_in_play_not_played(login):
    """While its question is open the sector reads «в игре»; once answered, «✓ сыгран»."""
    from webapp.games.operations import record_event

    g = h.game(h.season(), status="ready")
    h.startable(g)
    record_event(g, {"type": "spin", "sector": 3}, None)
    h.commit()
    host = login("host")

    def mark(sector: int) -> str:
        page = host.get(f"/games/{g.id}/console").get_data(as_text=True)
        item = re.search(rf'data-sector="{sector}".*?</li>', page, re.S)
        assert item is not None, page
        found = re.search(r'<span class="mark">([^<]*)</span>', item.group(0))
        return found.group(1) if found else ""

    assert mark(3) == "в игре"
    record_event(g, {"type": "answer", "correct": True}, None)
    h.commit()
    assert mark(3) == "✓ сыгран"


def test_a_press_on_a_console_behind_the_game_is_refused_as_stale(login, ready_game):
    """Two tablets on one game: the second still shows question 1 when the first has
    answered it and spun again. Its «Верно» is refused (not recorded for question 2), and
    so is its undo of an event that is no longer the last; the reply puts the game as it
    is in place, and the press from it counts."""
    from webapp.games.models import GameEvent

    client = login("host")
    url = f"/games/{ready_game}/console"
    assert client.post(url, data={"type": "spin", "sector": "1"}).status_code == 302
    stale = client.get(url).get_data(as_text=True)  # the second tablet's page
    right = _action(stale, "answer", correct="true")
    assert right.fields["after"] == "1"  # one event recorded, none undone
    undo = next(f for f in page_forms(stale) if f.action.endswith("/undo"))
    assert undo.fields["after"] == "1"
    # the first tablet: «Неверно», then the next spin
    assert client.post(url, data={"type": "answer", "correct": "false"}).status_code == 302
    assert client.post(url, data={"type": "spin", "sector": "2"}).status_code == 302

    r = client.post(right.action, data=right.fields, headers=JSON)
    assert r.status_code == 409
    assert r.json["error"]["text"] == (
        "На другом устройстве уже записано событие — пульт показывает игру заново: проверьте "
        "её и нажмите ещё раз, если нужно"
    )
    assert r.json["console"]["events"] == 3 and r.json["console"]["score"] == "0:1"
    assert 'name="after" value="3"' in r.json["html"]["console-actions"]
    r = client.post(undo.action, data=undo.fields, headers=JSON)
    assert r.status_code == 409 and r.json["console"]["events"] == 3
    seqs = db.session.scalars(
        db.select(GameEvent.seq).where(GameEvent.game_id == ready_game).order_by(GameEvent.seq)
    ).all()
    assert seqs == [1, 2, 3]

    fresh = client.get(url).get_data(as_text=True)
    # the first tablet undoes the spin and spins again: as many events as this page shows,
    # but not the ones it shows
    assert client.post(f"/games/{ready_game}/undo", data={}).status_code == 302
    assert client.post(url, data={"type": "spin", "sector": "3"}).status_code == 302
    right = _action(fresh, "answer", correct="true")
    assert client.post(right.action, data=right.fields, headers=JSON).status_code == 409
    fresh = client.get(url).get_data(as_text=True)
    assert "Сектор 3: Вопрос" in fresh
    right = _action(fresh, "answer", correct="true")
    assert client.post(right.action, data=right.fields).status_code == 302
    assert client.get(url, headers=JSON).json["console"]["score"] == "1:1"
