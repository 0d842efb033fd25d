"""The host's reading time on game day: the table builder's sectors and total against the
producer's budget for the episode (the page and its form), and the host card's «Чтение ≈»
(read back from the PDF with pdftotext)."""

from __future__ import annotations

import subprocess
from decimal import Decimal
from pathlib import Path

from tests.forms import get_page, submit_form
from tests.webapp.games import helpers as h
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import assign_envelopes, lock_table, request_envelopes

# 45 syllables counted by hand (tests/domain/test_reading.py): 10.0 s at 4.5 a second
TEN_SECONDS = " ".join(["Назовите город, где родился Франциск Скорина."] * 3)


def budget(minutes: str, seconds: str) -> dict[str, str]:
    """The budget form's fields as typed (the form's prefix is ``budget-``)."""
    return {"budget-minutes": minutes, "budget-seconds": seconds}


def reading_game() -> Game:
    """A 2023 table of 13 single sectors, filled, each question 10 seconds long."""
    h.approved_questions(26)
    g = h.game(
        h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    for env in g.envelopes:
        for eq in env.questions:
            eq.question.text = TEN_SECONDS
    h.commit()
    return g


def test_the_table_builder_totals_the_reading_against_the_budget(app, login, client):
    g = reading_game()
    login("producer")
    url = f"/games/{g.id}/table"
    page = get_page(client, url)
    assert page.count('<td class="reading" data-sector="') == 13
    assert '<td class="reading" data-sector="1">10 с</td>' in page
    assert '<td id="reading-total" class="reading">2 мин 10 с</td>' in page
    assert "reading-warning" not in page
    resp = submit_form(client, page, "reading-budget", url, **budget("2", "0"))
    assert resp.status_code == 302
    page = get_page(client, url)
    assert "Бюджет на чтение: 2 мин." in page
    assert db.session.get(Game, g.id).reading_budget_seconds == 120
    assert '<td id="reading-total" class="reading bad">2 мин 10 с из 2 мин</td>' in page
    assert (
        '<p id="reading-warning" class="bad" role="alert">Время чтения вопросов (2 мин 10 с) '
        "больше бюджета выпуска (2 мин) на 10 с.</p>"
    ) in page
    # within the budget: no warning; both fields empty: no budget
    submit_form(client, page, "reading-budget", url, **budget("2", "30"))
    page = get_page(client, url)
    assert '<td id="reading-total" class="reading">2 мин 10 с из 2 мин 30 с</td>' in page
    assert "reading-warning" not in page
    submit_form(client, page, "reading-budget", url, **budget("", ""))
    assert db.session.get(Game, g.id).reading_budget_seconds is None
    # a bad value is refused with its field named, nothing changed
    page = get_page(client, url)
    submit_form(client, page, "reading-budget", url, **budget("1", "75"))
    page = get_page(client, url)
    assert "Бюджет не изменён: Секунд: от 0 до 59." in page
    submit_form(client, page, "reading-budget", url, **budget("-1", "0"))
    page = get_page(client, url)
    assert "Бюджет не изменён: Бюджет на чтение вопросов: от 0 до 120 минут." in page
    assert db.session.get(Game, g.id).reading_budget_seconds is None


def test_only_the_producer_sets_the_budget(app, login, client):
    g = reading_game()
    login("editor")
    page = get_page(client, f"/games/{g.id}/table")
    assert "2 мин 10 с" in page and 'id="reading-budget"' not in page
    assert client.post(f"/games/{g.id}/table/budget", data={}).status_code == 403


def test_the_host_card_prints_the_reading_time(app, drain):
    g = reading_game()
    lock_table(g, None)
    h.commit()
    docs = request_envelopes(g, copies=1)
    h.commit()
    drain()
    db.session.expire_all()
    host = next(db.session.get(Document, d.id) for d in docs if d.kind == "host_cards")
    assert host.status == "ready", host.error
    path = Path(app.config["SOVA_DOCUMENTS_PATH"]) / host.path
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert text.count("Чтение ≈ 10 с") == 13
    envelopes = next(db.session.get(Document, d.id) for d in docs if d.kind == "envelopes")
    env_text = subprocess.run(
        ["pdftotext", str(Path(app.config["SOVA_DOCUMENTS_PATH"]) / envelopes.path), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Чтение" not in env_text  # the players' envelope says nothing of it


def test_the_host_card_prints_the_editors_stress_marks(app, drain, staff):
    """«Деннис Муррен» marked by an editor (one click per syllable) prints «Де́ннис Му́ррен»
    on the host card and in the envelope."""
    from webapp.moderation.models import QuestionSignoff
    from webapp.moderation.operations import add_stress, precheck

    qs = h.approved_questions(13)
    q = qs[0]
    q.text = "Этот фильм в 1999 году снял Деннис Муррен. Назовите фильм."
    h.commit()
    precheck(q.id)
    editor = staff("editor")[0]
    add_stress(q, editor, "Деннис", 0)
    add_stress(q, editor, "Муррен", 0)
    # the edit dropped the sources sign-off: a second editor signs again
    db.session.add(QuestionSignoff(question_id=q.id, user_id=h.signer_id()))
    h.commit()
    g = h.game(
        h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    lock_table(g, None)
    h.commit()
    docs = request_envelopes(g, copies=1)
    h.commit()
    drain()
    db.session.expire_all()
    texts = {}
    for d in docs:
        doc = db.session.get(Document, d.id)
        assert doc.status == "ready", doc.error
        path = Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
        texts[doc.kind] = subprocess.run(
            ["pdftotext", "-raw", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout
    assert "Де\u0301ннис Му\u0301ррен" in texts["host_cards"]
    assert "Де\u0301ннис Му\u0301ррен" in texts["envelopes"]


def test_the_hosts_own_games_calibrate_the_estimate(app, login, client, drain, staff):
    """Five readings the console recorded (spin, then the minute started 9 s later, on the
    server's clock) make the host's pace 45 / 9 = 5 syllables a second: the next game they
    host is estimated at it on the table builder and the host cards."""
    from datetime import UTC, datetime, timedelta

    from webapp.games.models import GameEvent
    from webapp.games.operations import host_pace, recorded_readings

    host = staff("host")[0]
    played = reading_game()
    start = datetime(2023, 3, 1, 19, 0, tzinfo=UTC)
    events = []
    for n, sector in enumerate((1, 2, 3, 4, 5)):
        spun = start + timedelta(minutes=3 * n)
        ended = spun + timedelta(seconds=9)
        events += [
            ({"type": "spin", "sector": sector}, spun),
            ({"type": "minute", "action": "start", "at": ended.isoformat()}, ended),
            ({"type": "answer", "correct": True}, ended + timedelta(seconds=70)),
        ]
    for seq, (payload, at) in enumerate(events, start=1):
        played.events.append(GameEvent(seq=seq, payload=payload, by_user_id=host, created_at=at))
    h.commit()
    assert [(who, r.syllables, r.seconds) for who, r in recorded_readings(played)] == [
        (host, 45, Decimal("9.0"))
    ] * 5
    assert host_pace(host) == {"rate": Decimal("5.00"), "readings": 5, "calibrated": True}

    nxt = reading_game()
    login("producer")
    url = f"/games/{nxt.id}/table"
    page = get_page(client, url)
    assert "по темпу 4,5 слога в секунду: по умолчанию, ведущий выпуска не назначен." in page
    assert '<td id="reading-total" class="reading">2 мин 10 с</td>' in page  # 13 × 10 s
    submit_form(client, page, "game-host", url, **{"host-host_user_id": str(host)})
    page = get_page(client, url)
    assert "Ведущий выпуска: host." in page  # the host user's name
    assert "по темпу 5,00 слога в секунду: темп ведущего по его записанным чтениям (5)." in page
    assert '<td class="reading" data-sector="1">9 с</td>' in page
    assert '<td id="reading-total" class="reading">1 мин 57 с</td>' in page  # 13 × 9 s
    lock_table(db.session.get(Game, nxt.id), None)
    h.commit()
    docs = request_envelopes(db.session.get(Game, nxt.id), copies=1)
    h.commit()
    drain()
    db.session.expire_all()
    card = next(db.session.get(Document, d.id) for d in docs if d.kind == "host_cards")
    assert card.status == "ready", card.error
    text = subprocess.run(
        ["pdftotext", str(Path(app.config["SOVA_DOCUMENTS_PATH"]) / card.path), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert text.count("Чтение ≈ 9 с") == 13


def test_the_host_card_and_envelope_are_typeset(app, drain):
    """Every printed text goes through webapp.domain.typography.typeset: read back from the
    host card and the envelope, a quotation inside a quotation prints in „лапки“ and a
    hyphen between words as an em dash."""
    qs = h.approved_questions(13)
    q = qs[0]
    q.text = "Роман «Мастер и «Маргарита»» - в доме № 12, за 5 км от вокзала. Назовите город."
    h.commit()
    g = h.game(
        h.season(), table={"blitz": None, "superblitz": None, "sector13": None}, status="draft"
    )
    assign_envelopes(g)
    lock_table(g, None)
    h.commit()
    docs = request_envelopes(g, copies=1)
    h.commit()
    drain()
    db.session.expire_all()
    for d in docs:
        doc = db.session.get(Document, d.id)
        assert doc.status == "ready", doc.error
        path = Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
        text = subprocess.run(
            ["pdftotext", "-raw", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout
        # pdftotext reads a no-break space back as a space: the quotes and the dash are
        # what can be seen here (the no-break spaces: tests/domain/test_typography.py)
        flat = " ".join(text.replace("\u00a0", " ").split())
        assert "Роман «Мастер и „Маргарита“» — в доме № 12, за 5 км от вокзала." in flat, (
            doc.kind,
            flat,
        )
