"""2009 sector 13: the computer's draw among live questions (002_e025d5ded135c1c4.txt §1.4.1)."""

from __future__ import annotations

import html
import io
import json
import random
import re
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pypdf
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.forms import page_forms
from tests.helpers import disposition, examples
from tests.webapp.games import helpers as h
from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.games.console import console_payload
from webapp.games.models import Game, GameEvent, GameEventAudit, Sector13Draw
from webapp.games.operations import (
    air_day_start,
    assign_envelopes,
    check_table,
    draw_sector13,
    record_event,
    repeat_draw,
    undo_last_event,
)
from webapp.games.queries import live_candidates, printed_copies
from webapp.moderation.models import QuestionSignoff
from webapp.submissions.models import Question

TABLE = {"blitz": 4, "superblitz": None, "sector13": 13}


def test_repeat_draw_is_the_seeded_uniform_choice():
    assert repeat_draw("abc", [3, 1, 2]) == random.Random("abc").choice([1, 2, 3])
    assert repeat_draw("abc", []) is None
    counts = Counter(repeat_draw(f"seed-{n}", [10, 20, 30]) for n in range(3000))
    assert set(counts) == {10, 20, 30}
    assert all(900 < c < 1100 for c in counts.values())


@given(
    st.lists(st.integers(1, 10_000), min_size=1, max_size=30, unique=True),
    st.text(min_size=1, max_size=40),
)
@settings(max_examples=examples(200))
def test_the_draw_only_ever_picks_a_candidate(candidates, seed):
    assert repeat_draw(seed, candidates) in candidates
    assert repeat_draw(seed, candidates) == repeat_draw(seed, list(reversed(candidates)))


def _game_2009():
    h.approved_questions(15)
    g = h.game(h.season("2009"), table=TABLE, status="draft")
    assign_envelopes(g)
    h.startable(g)
    return g


def test_spin_on_sector13_draws_among_earlier_live_questions(app):
    g = _game_2009()
    before = h.approved_questions(3, channel="live")
    rejected = h.approved_questions(1, channel="live")[0]
    rejected.status = "rejected"
    in_lane = h.approved_questions(1, channel="live")[0]
    in_lane.status = "in_review"  # still in the fast lane: not a candidate
    unsigned = h.approved_questions(1, channel="live")[0]
    db.session.execute(
        db.delete(QuestionSignoff).where(QuestionSignoff.question_id == unsigned.id)
    )  # approved, sources not signed off
    late = h.approved_questions(1, channel="live")[0]
    late.created_at = utcnow() + timedelta(minutes=5)  # arrives after the spin
    start = _begin(g)
    for k, q in enumerate(before + [rejected, in_lane, unsigned]):
        q.created_at = start + timedelta(microseconds=k + 1)  # sent during the game
    db.session.flush()
    record_event(g, {"type": "spin", "sector": 13}, None)
    draw = db.session.scalar(db.select(Sector13Draw))
    assert draw.candidates == sorted(q.id for q in before)
    assert draw.question_id == repeat_draw(draw.seed, draw.candidates)
    assert len(draw.seed) == 32 and draw.spun_at.tzinfo is not None
    drawn = db.session.get(type(before[0]), draw.question_id)
    env13 = next(e for e in g.envelopes if e.sector == 13)
    assert [eq.question_id for eq in env13.questions] == [drawn.id]
    assert (drawn.status, drawn.history[-1].reason) == (
        "assigned",
        f"жеребьёвка 13 сектора, игра {g.id}",
    )
    card = db.session.scalars(db.select(Document)).one()
    assert (card.kind, card.status, card.key) == (
        "sector13_card",
        "pending",
        f"sector13_card:game:{g.id}:draw:{draw.id}",
    )
    assert [c.serial for c in printed_copies(card.id)] == [f"{g.id}-D{draw.id}"]
    current = console_payload(g)["current"]
    assert (current["sector"], current["text"]) == (13, drawn.text)
    assert current["draw"] == {
        "seed": draw.seed,
        "candidates": 3,
        "candidates_text": "3 вопроса",
        "question_id": drawn.id,
        "card": {"document_id": card.id, "status": "pending"},
    }


def test_a_question_after_the_spin_is_never_drawn(app):
    g = _game_2009()
    early = h.approved_questions(1, channel="live")[0]
    early.created_at = _begin(g) + timedelta(microseconds=1)
    lates = h.approved_questions(5, channel="live")
    for q in lates:
        q.created_at = utcnow() + timedelta(seconds=30)
    db.session.flush()
    for _ in range(20):  # spin, undo, spin again: a fresh seed each time, same single candidate
        record_event(g, {"type": "spin", "sector": 13}, None)
        draw = db.session.scalar(db.select(Sector13Draw).where(Sector13Draw.cancelled_at.is_(None)))
        assert (draw.candidates, draw.question_id) == ([early.id], early.id)
        undo_last_event(g)
    assert early.status == "approved"  # back in the pool after the undo
    rows = db.session.scalars(db.select(Sector13Draw)).all()
    assert len(rows) == 20 and all(r.cancelled_at is not None for r in rows)
    assert len({r.seed for r in rows}) == 20
    # each cancelled draw dropped its host card before it was rendered
    assert db.session.scalar(db.select(db.func.count()).select_from(Document)) == 0
    assert live_candidates(utcnow()) == [early.id]


def _begin(g) -> datetime:
    """Start the game (a first round on sector 1); returns when its first event was
    recorded."""
    record_event(g, {"type": "spin", "sector": 1}, None)
    record_event(g, {"type": "answer", "correct": True}, None)
    db.session.flush()
    return db.session.scalar(
        db.select(db.func.min(GameEventAudit.at)).where(
            GameEventAudit.game_id == g.id, GameEventAudit.action == "record"
        )
    )


def test_a_question_sent_before_the_game_is_not_drawn(app):
    """§1.3: sector 13 plays questions «поступившие по Интернету во время игры»: one sent
    before the game began (its first recorded event) — even on the air date — is left over,
    not a candidate; the old bound, midnight of the air date, would have taken it."""
    g = _game_2009()
    leftover, during, after = h.approved_questions(3, channel="live")
    start = _begin(g)
    g.air_date = start.astimezone(ZoneInfo(g.season.timezone)).date()
    leftover.created_at = start - timedelta(microseconds=1)
    during.created_at = start + timedelta(microseconds=1)
    spin = utcnow() + timedelta(minutes=1)
    after.created_at = spin  # the spin's own instant
    db.session.flush()
    if leftover.created_at >= air_day_start(g):
        assert live_candidates(spin, since=air_day_start(g)) == [leftover.id, during.id]
    assert live_candidates(spin) == [leftover.id, during.id]  # without a bound
    draw = draw_sector13(g, 5, spin, None, seed="s")
    assert (draw.candidates, draw.question_id) == ([during.id], during.id)
    assert (leftover.status, during.status) == ("approved", "assigned")


def test_spin_elsewhere_draws_nothing(app):
    g = _game_2009()
    h.approved_questions(2, channel="live")
    record_event(g, {"type": "spin", "sector": 1}, None)
    assert db.session.scalar(db.select(db.func.count()).select_from(Sector13Draw)) == 0


def test_live_question_from_the_form_to_the_authors_prize(app, client, api, drain):
    """The whole path of a 2009 sector-13 question: sent on /live during the game → the fast
    lane (pre-check, an editor approves, a second editor signs the sources off) → the spin
    lands on 13 → the draw puts it in the envelope and its host card is printed at once →
    the experts fail → the game ends 1:6 → closing lists it unanswered and owes its author
    the season's prize (002_e025d5ded135c1c4.txt §1.4.1, §1.2.2)."""
    game_id = h.api_game_2009(api)
    h.approved_questions(30)
    h.commit()
    assert api("post", f"/api/v1/games/{game_id}/assign", role="producer").status_code == 200

    def event(body, status=201):
        r = api("post", f"/api/v1/games/{game_id}/events", role="host", json=body)
        assert r.status_code == status, r.json
        return r.json["state"]

    event({"type": "spin", "sector": 1})
    assert event({"type": "answer", "correct": True})["score"] == "1:0"  # the game is live
    form = {
        "question": "Вопрос из интернета во время эфира: что светит ночью?",
        "answer": "Луна",
        "name": "Зритель",
        "city": "Тверь",
        "email": "tv@example.com",
        "consent": "y",
        "age_confirmed": "y",
        "consent_on_air": "y",
    }
    assert client.post("/live", data=form).status_code == 302
    live = db.session.scalars(db.select(Question).where(Question.channel == "live")).one()
    assert live.status == "received"
    drain()  # the pre-check puts it in the editors' queue
    db.session.expire_all()
    assert live.status == "in_review"
    r = api(
        "post", f"/api/v1/questions/{live.id}/decision", role="editor", json={"decision": "approve"}
    )
    assert r.json == {"id": live.id, "status": "approved"}
    r = api(
        "post",
        f"/api/v1/questions/{live.id}/decision",
        role="chief_editor",
        json={"decision": "sign_off"},
    )
    assert r.status_code == 200

    state = event({"type": "spin", "sector": 13})
    assert state["rounds"][-1]["kind"] == "sector13"
    db.session.expire_all()
    draw = db.session.scalars(db.select(Sector13Draw)).one()
    assert (draw.candidates, draw.question_id) == ([live.id], live.id)
    game = db.session.get(Game, game_id)
    env13 = next(e for e in game.envelopes if e.sector == 13)
    assert [(eq.slot, eq.question_id) for eq in env13.questions] == [(1, live.id)]
    assert live.status == "assigned"
    assert check_table(game) == {
        "complete": True,
        "problems": [],
        "warnings": ["в плане стола нет блица (п. 1.4.3 Правил сезона 2009 г.)"],
    }
    # the host card of the drawn question, printable on the spot
    drain()
    db.session.expire_all()
    card = db.session.scalars(db.select(Document).where(Document.kind == "sector13_card")).one()
    assert card.status == "ready", card.error
    docs = api("get", f"/api/v1/games/{game_id}/documents", role="host").json["items"]
    assert [(d["id"], d["kind"], d["status"]) for d in docs] == [
        (card.id, "sector13_card", "ready")
    ]
    pdf = api("get", f"/api/v1/documents/{card.id}", role="producer")
    day = db.session.get(Game, game_id).air_date.isoformat()
    assert pdf.headers["Content-Disposition"] == disposition(
        f"Карточка 13 сектора — игра {game_id} — {day}.pdf"
    )
    reader = pypdf.PdfReader(io.BytesIO(pdf.data))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert "что светит ночью?" in text and "Ответ: Луна" in text
    assert "Зритель, Тверь" in text and f"Экземпляр № {game_id}-D{draw.id}" in text
    # that envelope alone, headed «13 сектор» once (no other «Сектор N — …» page)
    assert re.findall(r"Сектор \d+ —", text) == [] and text.count("13 сектор") == 1
    # …and linked from the host console while sector 13 is being played
    host = app.test_client()
    assert (
        host.post("/login", data={"email": "host@test.local", "password": "host-pw"}).status_code
        == 302
    )
    page = host.get(f"/games/{game_id}/console").get_data(as_text=True)
    assert f'Карточка ведущего: <a href="/games/documents/{card.id}">скачать PDF</a>.' in page
    assert "Жеребьёвка: 1 вопрос до вращения, зерно" in page  # one plural helper, no «(ов)»
    assert host.get(f"/games/documents/{card.id}").data == pdf.data
    payload = host.get(f"/games/{game_id}/console", headers={"Accept": "application/json"}).json
    assert payload["console"]["current"]["draw"]["card"] == {
        "document_id": card.id,
        "status": "ready",
    }

    assert event({"type": "answer", "correct": False})["score"] == "1:1"  # the round is lost
    for sector in (2, 3, 4, 6, 7):
        event({"type": "spin", "sector": sector})
        state = event({"type": "answer", "correct": False})
    assert (state["score"], state["finished"], state["winner"]) == ("1:6", True, "viewers")
    assert {"sector": 13, "slot": 1} in [
        {"sector": u["sector"], "slot": u["slot"]} for u in state["unanswered"]
    ]

    r = api("post", f"/api/v1/games/{game_id}/close", role="producer")
    assert r.status_code == 200
    prizes = [p for p in r.json["prizes"] if p["question_id"] == live.id]
    assert [(p["kind"], p["amount"], p["currency"], p["author"]) for p in prizes] == [
        ("unanswered_question", "1000.00", "RUB", "Зритель, Тверь")
    ]
    assert len(r.json["prizes"]) == 6  # six unanswered questions, one author each
    db.session.expire_all()
    assert (live.status, live.aired_on.isoformat()) == ("unanswered", "2009-03-01")
    assert [eq.outcome for eq in env13.questions] == ["unanswered"]


def test_the_draw_api_refuses_a_2023_game_a_game_not_live_and_an_empty_pool(app, api):
    """``POST /api/v1/games/{id}/draw`` (contract ``api.md``): 409 with the clause for a
    2023 game (sector 13 is the partner's, §3.3), for a 2009 game not being played, and for
    a live game none of whose live questions is approved; nothing is written then."""
    g23 = h.game(h.season("2023"), table={"blitz": 4, "superblitz": 9, "sector13": 13})
    h.commit()
    r = api("post", f"/api/v1/games/{g23.id}/draw", role="host")
    assert (r.status_code, r.json["error"]["message"]) == (
        409,
        f"игра {g23.id}: по этим правилам вопрос 13 сектора не разыгрывается среди вопросов "
        "зрителей (п. 3.3 Правил сезона 2023 г.)",
    )
    g = _game_2009()
    h.commit()
    r = api("post", f"/api/v1/games/{g.id}/draw", role="producer")
    assert (r.status_code, r.json["error"]["message"]) == (
        409,
        f"игра {g.id} — стол заполнен: жеребьёвка 13 сектора идёт только во время игры "
        "(п. 1.4.1 Правил сезона 2009 г.)",
    )
    _begin(g)
    waiting = h.approved_questions(1, channel="live")[0]
    waiting.status = "in_review"
    h.commit()
    r = api("post", f"/api/v1/games/{g.id}/draw", role="host")
    assert r.status_code == 409 and r.json["error"]["rule"] == "002_e025d5ded135c1c4.txt §1.4.1"
    assert db.session.scalar(db.select(db.func.count()).select_from(Sector13Draw)) == 0


def test_the_draw_takes_only_the_live_questions_of_its_own_game(app, api):
    """A question the /live form recorded as sent during another game (``live_game_id``)
    is not in this game's pool; the draw made through the API is the spin's draw."""
    g = _game_2009()
    other = h.game(h.season("2009"), day=2, table=TABLE, status="draft")
    start = _begin(g)
    mine, theirs = h.approved_questions(2, channel="live")
    mine.live_game_id, theirs.live_game_id = g.id, other.id
    mine.created_at = theirs.created_at = start + timedelta(microseconds=1)
    h.commit()
    r = api("post", f"/api/v1/games/{g.id}/draw", role="host")
    assert r.status_code == 200
    assert r.json["pool"] == [mine.id] and r.json["question_id"] == mine.id
    record_event(g, {"type": "spin", "sector": 13}, None)  # the spin keeps the API's draw
    rows = db.session.scalars(db.select(Sector13Draw)).all()
    assert [(d.seq, d.question_id, d.seed) for d in rows] == [(0, mine.id, r.json["seed"])]


def _host(app, login):
    """A browser of its own for the host (the API's bearer calls share ``login``'s client
    and would end its session)."""
    login("host")
    host = app.test_client()
    r = host.post("/login", data={"email": "host@test.local", "password": "host-pw"})
    assert r.status_code == 302
    return host


def _console_form(page: str, button: str):
    """The console's form holding the big button ``button`` (as the page renders it)."""
    return next(
        f
        for f in page_forms(page)
        if f.fields.get("type") == {"Волчок": "spin"}.get(button, "answer")
        and (
            button == "Волчок" or f.fields.get("correct") == {"Верно": "true"}.get(button, "false")
        )
    )


EMPTY_13_NOTICE = (
    "13 сектор пуст: к моменту вращения ни один вопрос зрителей не одобрен редакторами с "
    "проверенными источниками — компьютеру не из чего выбирать. 13 сектор выпал и больше в "
    "этой игре не играет; вопрос задаётся из следующего по часовой стрелке сектора 2 "
    "(п. 1.4.1 Правил сезона 2009 г.; п. 1.4 Правил сезона 2009 г.)."
)


def test_a_spin_on_an_empty_sector13_plays_the_next_sector(app, login, api):
    """§1.4.1 with §1.4 («Readings» 13): the host's spin on 13 while no live question has
    passed the fast lane (one still in review) passes over sector 13 to the next unplayed
    sector clockwise; the console says why, with both clauses, and asks that sector's real
    question; «Неверно» scores the viewers' point for it, never for sector 13; the draw API
    answers 409 with the clause; sector 13 does not fall again."""
    g = _game_2009()
    _begin(g)  # sector 1 played, 1:0
    waiting = h.approved_questions(1, channel="live")[0]
    waiting.status = "in_review"
    sector2 = next(e for e in g.envelopes if e.sector == 2).questions[0].question
    h.commit()
    client = _host(app, login)
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    spin = _console_form(page, "Волчок")
    r = client.post(spin.action, data={**spin.fields, "sector": "13"})
    assert r.status_code == 302
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    assert "Сектор 2: Вопрос" in page and EMPTY_13_NOTICE in page
    assert sector2.text in page and "(в конверте нет вопроса)" not in page
    assert re.search(r"<strong>13</strong> 13 сектор <span class=\"mark\">пуст</span>", page)
    db.session.expire_all()
    game = db.session.get(Game, g.id)
    assert game.events[-1].payload == {"type": "spin", "sector": 13, "sector13_empty": True}
    draw = db.session.scalars(db.select(Sector13Draw)).one()
    assert (draw.candidates, draw.question_id, draw.cancelled_at) == ([], None, None)
    wrong = _console_form(page, "Неверно")
    r = client.post(wrong.action, data=wrong.fields, follow_redirects=True)
    assert r.request.path == f"/games/{g.id}/console" and "Отказано" not in r.get_data(as_text=True)
    db.session.expire_all()
    state = api("get", f"/api/v1/games/{g.id}", role="producer").json["state"]
    assert state["score"] == "1:1"
    assert state["unanswered"] == [{"sector": 2, "slot": 1}]
    # sector 13 fell once: a later arrow on it passes on to sector 3, a real question
    r = api(
        "post", f"/api/v1/games/{g.id}/events", role="host", json={"type": "spin", "sector": 13}
    )
    assert r.status_code == 201, r.json
    assert [(x["arrow"], x["sector"], x["kind"]) for x in r.json["state"]["rounds"][-2:]] == [
        (13, 2, "single"),
        (13, 3, "single"),
    ]
    # the draw API gives the same answer, citing the clause
    r = api("post", f"/api/v1/games/{g.id}/draw", role="producer")
    assert (r.status_code, r.json["error"]["rule"], r.json["error"]["message"]) == (
        409,
        "002_e025d5ded135c1c4.txt §1.4.1",
        f"игра {g.id}: 13 сектор уже выпал, и жеребьёвке не из чего было выбирать — он "
        "пропущен, играл следующий по часовой стрелке сектор; 13 сектор выпадает не более 1 "
        "раза за игру (п. 1.4.1 Правил сезона 2009 г.)",
    )
    assert db.session.scalar(db.select(db.func.count()).select_from(Sector13Draw)) == 1


def test_the_api_spin_on_an_empty_sector13_and_its_undo(app, api):
    """``POST /api/v1/games/{id}/events``: the server marks the spin itself; the host's undo
    cancels the empty draw, so a spin once a question has passed the lane draws it; a spin
    claiming an empty sector 13 while the draw finds a question is refused (409, §1.4.1) and
    leaves nothing written."""
    g = _game_2009()
    start = _begin(g)
    h.commit()

    def event(body):
        return api("post", f"/api/v1/games/{g.id}/events", role="host", json=body)

    r = event({"type": "spin", "sector": 13})
    assert r.status_code == 201, r.json
    last = r.json["state"]["rounds"][-1]
    assert (last["arrow"], last["sector"], last["sector13_empty"]) == (13, 2, True)
    db.session.expire_all()
    undo_last_event(db.session.get(Game, g.id))  # the host's «Отменить»
    live = h.approved_questions(1, channel="live")[0]
    live.created_at = start + timedelta(microseconds=1)
    h.commit()
    r = event({"type": "spin", "sector": 13, "sector13_empty": True})
    assert r.status_code == 409
    assert r.json["error"] == {
        "event": 2,
        "rule": "002_e025d5ded135c1c4.txt §1.4.1",
        "message": "13 сектор не пуст: жеребьёвка выбрала вопрос зрителей, его и играют "
        "(п. 1.4.1 Правил сезона 2009 г.)",
    }
    db.session.expire_all()
    assert (
        db.session.scalar(
            db.select(db.func.count())
            .select_from(Sector13Draw)
            .where(Sector13Draw.cancelled_at.is_(None))
        )
        == 0
    )
    assert db.session.get(Question, live.id).status == "approved"
    r = event({"type": "spin", "sector": 13})
    assert r.status_code == 201
    last = r.json["state"]["rounds"][-1]
    assert (last["sector"], last["kind"], "sector13_empty" in last) == (13, "sector13", False)
    assert db.session.get(Question, live.id).status == "assigned"


def test_the_protocol_of_an_empty_sector13_replays_the_same_in_sova_game_replay(app, api, tmp_path):
    """The game's exported protocol carries the mark, so ``sova game replay`` derives the
    same state as the server (the same round in sector 2, the same score)."""
    g = _game_2009()
    _begin(g)
    h.commit()
    api("post", f"/api/v1/games/{g.id}/events", role="host", json={"type": "spin", "sector": 13})
    r = api(
        "post",
        f"/api/v1/games/{g.id}/events",
        role="host",
        json={"type": "answer", "correct": False},
    )
    server = r.json["state"]
    body = api("get", f"/api/v1/games/{g.id}", role="host").json
    assert body["protocol"]["events"][2] == {"type": "spin", "sector": 13, "sector13_empty": True}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(body["protocol"]), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", "game", "replay", str(path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == server
    assert (server["score"], server["unanswered"]) == ("1:1", [{"sector": 2, "slot": 1}])
    assert server["rounds"][-1]["sector13_empty"] is True


def test_an_unmarked_spin_on_an_empty_sector13_takes_no_answer(app, login, api):
    """A sector-13 round without a question recorded before spins were marked (an old
    event): the console offers no «Верно»/«Неверно», says what to do with the clause, and an
    answer sent anyway is refused (409, §1.4.1) — no point for a question that does not
    exist."""
    g = _game_2009()
    _begin(g)
    g.events.append(GameEvent(seq=3, payload={"type": "spin", "sector": 13}, created_at=utcnow()))
    h.commit()
    client = _host(app, login)
    page = client.get(f"/games/{g.id}/console").get_data(as_text=True)
    assert "(в конверте нет вопроса)" in page
    assert re.findall(r'data-type="(\w+)"', page) == []
    assert (
        "В 13 секторе нет вопроса: отмените вращение и запишите его снова — пустой 13 сектор "
        "пропускается (п. 1.4.1 Правил сезона 2009 г.)." in page
    )
    r = client.post(  # sent anyway, as console.js would: refused in Russian, with the clause
        f"/games/{g.id}/console",
        data={
            "csrf_token": page_forms(page)[0].fields["csrf_token"],
            "type": "answer",
            "correct": "false",
        },
        headers={"Accept": "application/json"},
    )
    assert (r.status_code, r.json["error"]["text"]) == (
        409,
        "В 13 секторе нет вопроса: очко за несуществующий вопрос не начисляется — отмените "
        "вращение и запишите его снова, пустой 13 сектор пропускается (п. 1.4.1 Правил "
        "сезона 2009 г.)",
    )
    r = api(
        "post",
        f"/api/v1/games/{g.id}/events",
        role="host",
        json={"type": "answer", "correct": False},
    )
    assert (r.status_code, r.json["error"]["rule"]) == (409, "002_e025d5ded135c1c4.txt §1.4.1")
    assert r.json["error"]["message"].startswith("в 13 секторе нет вопроса: очко за ")
    assert api("get", f"/api/v1/games/{g.id}", role="host").json["state"]["score"] == "1:0"


EMPTY_POOL_WARNING = (
    "Пул 13 сектора пуст: ни один вопрос, присланный зрителями во время этой игры, ещё не "
    "одобрен редактором с проверенными вторым редактором источниками. Вопросы приходят через "
    "форму «Вопрос в 13 сектор во время игры», как только на пульте записано первое событие; "
    "редакторы разбирают их в очереди, канал «во время игры». Если волчок укажет на 13 "
    "сектор, пока пул пуст, 13 сектор пропускается и играет следующий по часовой стрелке "
    "сектор (п. 1.4.1 Правил сезона 2009 г.)."
)


def test_the_game_page_warns_while_the_sector13_pool_is_empty(app, login):
    """The producer's game page of a 2009 game: before the game (and during it, until a
    live question passes the lane) the sector-13 pool is empty — a warning that says what
    the editors do and what a spin on 13 then does (§1.4.1); with questions in the pool it
    counts them; once sector 13 has fallen, or for a 2023 game, it says nothing."""
    g = _game_2009()
    g23 = h.game(h.season("2023"), day=2)
    h.commit()
    client = login("producer")

    def pool_line(game_id):
        page = client.get(f"/games/{game_id}").get_data(as_text=True)
        found = re.findall(r'<p id="sector13-pool" class="([^"]*)">([^<]*)</p>', page)
        return [(css, html.unescape(text)) for css, text in found]

    assert pool_line(g.id) == [("flash error", EMPTY_POOL_WARNING)]  # before the game
    early = h.approved_questions(1, channel="live")[0]  # sent before the game: not its pool
    start = _begin(g)
    h.commit()
    assert pool_line(g.id) == [("flash error", EMPTY_POOL_WARNING)]
    during = h.approved_questions(2, channel="live")
    for k, q in enumerate(during):
        q.created_at = start + timedelta(microseconds=k + 1)
    early.created_at = start - timedelta(seconds=1)
    h.commit()
    assert pool_line(g.id) == [
        (
            "hint",
            "В пуле 13 сектора 2 вопроса: одобрены редакторами, источники проверены — при "
            "вращении на 13 сектор компьютер выберет один из них (п. 1.4.1 Правил сезона "
            "2009 г.).",
        )
    ]
    record_event(g, {"type": "spin", "sector": 13}, None)
    h.commit()
    assert pool_line(g.id) == []  # sector 13 has fallen
    assert pool_line(g23.id) == []
