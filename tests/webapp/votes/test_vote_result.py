"""The signed result document of a closed vote (PDF text asserted), the §3.1 award and the
beat purge task; and exact counting under concurrency on PostgreSQL."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pypdf
import pytest

from tests.helpers import disposition
from tests.webapp.votes.helpers import SECRET, close_vote, open_vote, pdf_text, sign, sms_body


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_result_pdf_text(app, api, sms, finished_game, drain, login):
    import hashlib

    from webapp.core.models import Document
    from webapp.extensions import db

    gid = finished_game()
    open_vote(api, gid, ["Ровшан Аскеров", "Инна <b>Друзь</b>"])
    sms("a", "+79160000001", "1")
    sms("b", "+79160000002", "аскёров")
    sms("c", "+79160000002", "2")  # repeat
    sms("d", "+79160000003", "инна")  # counted for candidate 2
    vote = close_vote(api, gid).json["vote"]
    sms("e", "+79160000004", "1")  # late, after closing
    assert drain() == ["votes.render_result"]
    text = pdf_text(app, vote["document"]["id"])
    assert "ИТОГИ SMS-ГОЛОСОВАНИЯ за лучшего игрока игры" in text
    assert "1 Ровшан Аскеров 2" in text
    assert "2 Инна <b>Друзь</b> 1" in text  # escaped, printed literally
    assert "Засчитано голосов: 3." in text
    assert "Повторные сообщения с того же номера (не засчитаны): 1." in text
    assert "Недействительные сообщения (нет кандидата или имя подходит двум): 0." in text
    assert "Опоздавшие сообщения (вне времени голосования): 0." in text
    assert "Лучший игрок по итогам голосования: Ровшан Аскеров." in text
    # the team named once («Команда 2009», not «команда Команда 2009»), the clause as people
    # read it (no rule book file name, also in the running footer)
    assert "Сезон 2009, Команда 2009." in text and "команда Команда" not in text
    assert "Основание: п. 3.1 Правил сезона 2009 г." in text and "г.." not in text
    # an untitled game: its date, not «Игра «Игра 01.03.2023»»
    assert "Игра «Игра" not in text and "Игра 1 марта 2023 г., Сезон 2009" in text
    assert "Голосование № 1 п. 3.1 Правил сезона 2009 г." in text
    assert ".txt" not in text and "e025d5ded135c1c4" not in text
    # the 64 hex digits may wrap at the line end
    flat = text.replace(" ", "")
    assert f"SHA-256журналаголосования:{vote['log_sha256']}Контрольный" in flat
    assert "(Europe/Moscow)" in text and "Представитель Генерального спонсора" in text
    # the donor is the season's (the neutral 2009 default here), never «Sova»
    assert "Печать Sova" not in text and "Sova" not in text
    assert "Приз лучшему игроку вручает Генеральный спонсор: Генеральный спонсор сезона" in text
    assert "М. П. Генеральный спонсор сезона" in text
    doc = db.session.get(Document, vote["document"]["id"])
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    # producer and host download it from the vote page; an editor may not
    client = login("host")
    resp = client.get(f"/games/{gid}/vote/result.pdf")
    assert resp.status_code == 200 and resp.mimetype == "application/pdf"
    from webapp.games.models import Game

    day = db.session.get(Game, gid).air_date.isoformat()
    assert resp.headers["Content-Disposition"] == disposition(
        f"Итоги голосования — игра {gid} — {day}.pdf"
    )
    assert hashlib.sha256(resp.data).hexdigest() == doc.sha256
    assert login("editor").get(f"/games/{gid}/vote/result.pdf").status_code == 403
    # the page and the API show the late message after closing
    assert api("get", f"/api/v1/games/{gid}/vote", role="host").json["vote"]["late"] == 1


def pdftotext_pages(app, doc_id: int) -> list[str]:
    """Each page's text as poppler's pdftotext reads it (U+200B break points and no-break
    spaces removed, whitespace collapsed)."""
    import subprocess

    from webapp.core.models import Document
    from webapp.extensions import db

    doc = db.session.get(Document, doc_id)
    path = Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    out = subprocess.run(["pdftotext", str(path), "-"], check=True, capture_output=True, text=True)
    pages = out.stdout.split("\f")[:-1]  # pdftotext ends every page with a form feed
    return [" ".join(p.replace("\u200b", "").replace("\u00a0", " ").split()) for p in pages]


#: Fourteen candidates: the table of votes pushes the totals and signatures to a 2nd page.
MANY = [f"Знаток {name}" for name in (
    "Аскеров", "Друзь", "Поташев", "Новиков", "Блинов", "Ким", "Козлов", "Макаров",
    "Мерзляков", "Седых", "Бурда", "Алешин", "Евдокимов", "Семушин",
)]  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_every_page_of_a_two_page_result_names_game_totals_and_control_code(
    app, api, sms, finished_game, drain
):
    gid = finished_game()
    open_vote(api, gid, MANY)
    sms("a", "+79160000001", "3")
    sms("b", "+79160000002", "3")
    sms("c", "+79160000002", "1")  # repeat
    sms("d", "+79160000003", "никто")  # invalid
    vote = close_vote(api, gid).json["vote"]
    assert drain() == ["votes.render_result"]
    from webapp.extensions import db
    from webapp.votes.models import Vote
    from webapp.votes.queries import result_context

    seal = result_context(db.session.get(Vote, vote["id"]))["seal"]
    pages = pdftotext_pages(app, vote["document"]["id"])
    assert len(pages) == 2
    head = (
        f"Итоги голосования № {vote['id']}. Игра 1 марта 2023 г., Сезон 2009. Засчитано "
        "голосов: 2, повторных: 1, недействительных: 1, опоздавших: 0. Лучший игрок: "
        f"Знаток Поташев. Контрольный код: {seal}"
    )
    for n, page in enumerate(pages, 1):
        # the seal's 64 hex digits may wrap at the line end: compared without spaces
        assert head.replace(" ", "") in page.replace(" ", ""), n
        assert f"Стр. {n} из 2" in page and f"Голосование № {vote['id']}" in page
    assert "Знаток Семушин 0" in pages[0] and "Подписи" not in pages[0]
    # the signatures print with the totals, the control code and the clause, never alone
    signed = pages[1]
    for line in (
        "Засчитано голосов: 2.",
        "Повторные сообщения с того же номера (не засчитаны): 1.",
        "Недействительные сообщения (нет кандидата или имя подходит двум): 1.",
        "Лучший игрок по итогам голосования: Знаток Поташев.",
        "Основание: п. 3.1 Правил сезона 2009 г. Подписи Ведущий Продюсер",
    ):
        assert line in signed, line
    assert f"Контрольныйкодитогов:{seal}" in signed.replace(" ", "")
    # plain A4 (210×297 mm): no bleed or crop marks for an office printer to shrink or crop
    from webapp.core.models import Document

    doc = db.session.get(Document, vote["document"]["id"])
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    assert {
        (round(float(p.mediabox.width) * 25.4 / 72), round(float(p.mediabox.height) * 25.4 / 72))
        for p in pypdf.PdfReader(io.BytesIO(data)).pages
    } == {(210, 297)}


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_award_prefilled_with_winner_and_override_needs_reason(app, api, sms, finished_game):
    from webapp.extensions import db
    from webapp.prizes.models import Prize
    from webapp.tasks.outbox import commit
    from webapp.votes.models import Vote
    from webapp.votes.operations import VoteError, record_award

    gid = finished_game()
    open_vote(api, gid)
    sms("a", "+79160000001", "3")
    vote = db.session.get(Vote, close_vote(api, gid).json["vote"]["id"])
    with pytest.raises(VoteError, match="основание"):
        record_award(vote, "Инна Друзь", "", None)
    row = record_award(vote, "Инна Друзь", "Аскеров отказался от приза", None)
    commit()
    assert (row.winner_name, row.chosen_name, row.overridden, row.reason) == (
        "Ровшан Аскеров",
        "Инна Друзь",
        True,
        "Аскеров отказался от приза",
    )
    prize = db.session.get(Prize, row.prize_id)
    assert (prize.kind, prize.recipient_name, prize.amount) == (
        "best_player_of_game",
        "Инна Друзь",
        None,
    )
    assert prize.rule == "002_e025d5ded135c1c4.txt §3.1"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_purge_task(app, api, sms, finished_game):
    from datetime import timedelta

    from webapp.extensions import db
    from webapp.votes.models import Vote, VoteMessage
    from workers.votes import purge_numbers

    gid = finished_game()
    open_vote(api, gid)
    sms("a", "+79160000001", "3")
    vote = db.session.get(Vote, close_vote(api, gid).json["vote"]["id"])
    vote.purge_after = vote.purge_after - timedelta(days=31)
    db.session.commit()
    assert purge_numbers.run() == 1
    assert db.session.scalar(db.select(VoteMessage.msisdn_hash)) is None
    assert app.extensions["celery"].conf.beat_schedule["votes-purge-numbers"]["task"] == (
        "votes.purge_numbers"
    )


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_concurrent_same_number_and_same_message_exactly_one_counted(app, api, finished_game):
    """32 threads at once on PostgreSQL: the same number with 16 message ids and one
    message id sent 16 times — exactly one counted vote each."""
    from webapp.extensions import db
    from webapp.votes.models import VoteMessage

    gid = finished_game()
    open_vote(api, gid)
    bodies = [sms_body(f"n{i}", "+79160000001", "3") for i in range(16)] + [
        sms_body("same", "+79160000002", "2")
    ] * 16
    barrier = threading.Barrier(len(bodies))
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def post(i, body):
        client = app.test_client()
        barrier.wait()
        resp = client.post(
            "/api/v1/votes/sms",
            data=body,
            content_type="application/json",
            headers={"X-Sova-Signature": sign(body, SECRET)},
        )
        with lock:
            answers.append((i, resp.status_code, resp.json["result"]))

    threads = [threading.Thread(target=post, args=(i, b)) for i, b in enumerate(bodies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(code == 200 for _i, code, _r in answers)
    # answered as they settle: "counted" while a message is the first so far
    assert {r for i, _c, r in answers if i < 16} <= {"counted", "repeat"}
    same = {r for i, _c, r in answers if i >= 16}
    assert same == {"counted"}
    db.session.rollback()
    rows = db.session.execute(db.select(VoteMessage.message_id, VoteMessage.result)).all()
    assert len(rows) == 17
    assert sorted(r.result for r in rows) == ["counted", "counted"] + ["repeat"] * 15
    # of the number's 16, the gateway's first (n0 was received first) holds the vote
    assert {r.message_id for r in rows if r.result == "counted"} == {"n0", "same"}
    vote = api("get", f"/api/v1/games/{gid}/vote", role="host").json["vote"]
    assert (vote["counted"], vote["repeats"], vote["invalid"]) == (2, 15, 0)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_result_document_on_the_game_page_for_producer_and_host(
    app, api, sms, finished_game, drain, login
):
    import hashlib

    from webapp.core.models import Document
    from webapp.extensions import db

    gid = finished_game()
    open_vote(api, gid)
    sms("a", "+79160000001", "3")
    vote = close_vote(api, gid).json["vote"]
    assert drain() == ["votes.render_result"]
    doc = db.session.get(Document, vote["document"]["id"])
    assert (doc.kind, doc.game_id) == ("vote_result", gid)
    link = f'<a href="/games/documents/{doc.id}">скачать PDF</a>'
    for role in ("producer", "host"):
        client = login(role)
        page = client.get(f"/games/{gid}").get_data(as_text=True)
        assert (
            'data-status="ready">Итог зрительского голосования за лучшего игрока'
            " (для спонсора):\n  " + link
        ) in page
        resp = client.get(f"/games/documents/{doc.id}")
        assert resp.status_code == 200 and resp.mimetype == "application/pdf"
        assert hashlib.sha256(resp.data).hexdigest() == doc.sha256
    for role in ("accountant", "editor"):
        assert login(role).get(f"/games/documents/{doc.id}").status_code == 403


def _award_page(client, gid, **form):
    return client.post(f"/prizes/games/{gid}/award", data=form, follow_redirects=True)


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_prizes_award_page_follows_the_vote(app, api, sms, finished_game, login):
    """/prizes/games/<id>/award cannot bypass the vote (2009 §3.1): pre-filled with the
    winner; another player only with the sponsor's representative's reason, audited."""
    from webapp.extensions import db
    from webapp.prizes.models import Prize, PrizeStatusChange
    from webapp.votes.models import VoteAward

    gid = finished_game()
    open_vote(api, gid)
    client = login("producer")
    page = client.get(f"/prizes/games/{gid}/award").get_data(as_text=True)
    assert "идёт зрительское голосование — приз присуждается после его закрытия." in page
    resp = _award_page(client, gid, kind="best_player_of_game", recipient="Инна Друзь", reason="x")
    assert resp.status_code == 409
    assert (
        "Приз не присуждён: идёт зрительское голосование: лучшего игрока определяют его итоги"
        " — сначала закройте голосование (п. 3.1 Правил сезона 2009 г.)"
    ) in resp.get_data(as_text=True)
    sms("a", "+79160000001", "3")
    sms("b", "+79160000002", "аскеров")
    sms("c", "+79160000003", "2")
    close_vote(api, gid)
    client = login("producer")  # the API call above left the app context's user anonymous
    page = client.get(f"/prizes/games/{gid}/award").get_data(as_text=True)
    assert "победитель зрительского голосования — <strong>Ровшан Аскеров</strong>." in page
    assert 'value="Ровшан Аскеров"' in page  # the recipient field, pre-filled
    assert '<option selected value="best_player_of_game">' in page
    assert "Александр Друзь\nИнна Друзь\nРовшан Аскеров" in page  # the team: the candidates
    resp = _award_page(client, gid, kind="best_player_of_game", recipient="Инна Друзь")
    assert resp.status_code == 409
    assert (
        "Приз не присуждён: лучшего игрока не по итогам голосования определяет представитель "
        "Генерального спонсора: укажите основание (п. 3.1 Правил сезона 2009 г.)"
    ) in resp.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)) == 0
    resp = _award_page(
        client,
        gid,
        kind="best_player_of_game",
        recipient="инна друзь",
        reason="Аскеров отказался от приза",
    )
    assert "Присуждено призов: 1." in resp.get_data(as_text=True)
    prize = db.session.scalars(db.select(Prize)).one()
    assert (prize.kind, prize.recipient_name, prize.amount) == (
        "best_player_of_game",
        "Инна Друзь",
        None,
    )
    row = db.session.scalars(db.select(VoteAward)).one()
    assert (row.game_id, row.prize_id, row.winner_name, row.chosen_name) == (
        gid,
        prize.id,
        "Ровшан Аскеров",
        "Инна Друзь",
    )
    assert (row.overridden, row.reason, row.vote_id is not None) == (
        True,
        "Аскеров отказался от приза",
        True,
    )
    note = db.session.scalar(
        db.select(PrizeStatusChange.note).where(PrizeStatusChange.prize_id == prize.id)
    )
    assert note == (
        "присуждён: Лучший игрок игры (приз спонсора); решение представителя Генерального спонсора: "
        "Аскеров отказался от приза"
    )
    # the vote page shows the decision, whichever page made it
    page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    assert "<td>Ровшан Аскеров</td><td>Инна Друзь</td><td>да</td>" in page


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_best_player_without_a_vote_needs_the_reason(app, api, finished_game, login):
    from webapp.extensions import db
    from webapp.votes.models import VoteAward

    gid = finished_game()
    client = login("producer")
    page = client.get(f"/prizes/games/{gid}/award").get_data(as_text=True)
    assert (
        "зрительского голосования по этой игре не было — лучшего игрока определяет "
        "представитель Генерального спонсора, укажите основание."
    ) in page
    r = api(
        "post",
        f"/api/v1/games/{gid}/prizes",
        role="producer",
        json={"kind": "best_player_of_game", "recipient": "Инна Друзь", "team": ["Инна Друзь"]},
    )
    assert r.status_code == 409
    assert r.json["error"] == {
        "message": "зрительского голосования по этой игре не было: лучшего игрока определяет "
        "представитель Генерального спонсора — укажите основание",
        "rule": "002_e025d5ded135c1c4.txt §3.1",
    }
    client = login("producer")  # the API call above left the app context's user anonymous
    resp = _award_page(
        client,
        gid,
        kind="best_player_of_game",
        recipient="Инна Друзь",
        team="Инна Друзь\nРовшан Аскеров",
        reason="SMS-голосование не проводилось: сбой у оператора",
    )
    assert "Присуждено призов: 1." in resp.get_data(as_text=True)
    row = db.session.scalars(db.select(VoteAward)).one()
    assert (row.vote_id, row.game_id, row.winner_name, row.chosen_name, row.overridden) == (
        None,
        gid,
        None,
        "Инна Друзь",
        True,
    )
    assert row.reason == "SMS-голосование не проводилось: сбой у оператора"
