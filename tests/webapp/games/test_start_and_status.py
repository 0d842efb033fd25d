"""Game-day pages below the browser: the table-fill refusal and the error pages in
Russian, the console's start check and the producer's audited confirmation, the game page's
documents JSON (role checks), the closed game's outcomes in Russian."""

from __future__ import annotations

from tests.helpers import VIEWERS_WIN
from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.models import GameEventAudit
from webapp.games.operations import start_refusal

JSON = {"Accept": "application/json"}


def test_table_fill_refusal_is_russian(login):
    h.approved_questions(5)
    g = h.game(h.season(), status="draft")  # blitz 4, superblitz 9, sector 13: 17 questions
    h.commit()
    client = login("producer")
    r = client.post(f"/games/{g.id}/assign", follow_redirects=True)
    assert (
        "Не удалось заполнить стол: одобренных вопросов разных авторов — 5, а столу нужно 17: "
        "одобрите ещё вопросы или уменьшите план"
    ) in r.get_data(as_text=True)


def test_error_pages_are_russian(login):
    client = login("editor")
    r = client.get("/admin/users")
    assert r.status_code == 403
    text = r.get_data(as_text=True)
    assert "Доступ запрещён (403)" in text
    assert "Этой страницы нет среди доступных вашей роли." in text
    assert "permission" not in text
    r = client.get("/games/1/assign")
    assert r.status_code == 405
    assert "Этот адрес открывается только отправкой формы." in r.get_data(as_text=True)


def test_closed_game_shows_outcomes_in_russian(login, api, played):
    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    text = login("producer").get(f"/games/{game}").get_data(as_text=True)
    assert text.count("— <strong>не взят</strong>") == 6
    assert text.count("— <strong>не задан</strong>") == 13 - 6
    for code in ("answered", "unanswered", "unasked"):
        assert f"<strong>{code}</strong>" not in text


def test_start_needs_a_locked_printed_table_or_the_producers_confirmation(login):
    g = h.filled_game()
    host = login("host")
    r = host.post(f"/games/{g.id}/console", data={"type": "spin", "sector": "1"}, headers=JSON)
    assert r.status_code == 409
    assert r.json["error"]["text"].startswith(
        "Игру нельзя начать: стол не заблокирован и конверты не напечатаны."
    )
    assert r.json["console"]["actions"] == [] and g.events == []
    producer = login("producer")
    # no reason: refused, nothing audited
    r = producer.post(f"/games/{g.id}/allow-start", data={"confirm": "y"}, follow_redirects=True)
    assert "Не разрешено: укажите причину" in r.get_data(as_text=True)
    assert db.session.scalar(db.select(db.func.count()).select_from(GameEventAudit)) == 0
    r = producer.post(
        f"/games/{g.id}/allow-start",
        data={"confirm": "y", "reason": "репетиция"},
        follow_redirects=True,
    )
    assert "Ведущий может начать игру без напечатанных конвертов." in r.get_data(as_text=True)
    assert start_refusal(g) is None
    host = login("host")
    r = host.post(f"/games/{g.id}/console", data={"type": "spin", "sector": "1"}, headers=JSON)
    assert r.status_code == 200 and r.json["console"]["score"] == "0:0"


def test_a_locked_table_without_rendered_envelopes_is_refused_and_nothing_to_confirm_after(
    login, drain
):
    from webapp.games.operations import GameConflict, allow_start, request_envelopes

    g = h.filled_game(locked=True)
    assert start_refusal(g) == (
        "Игру нельзя начать: конверты ещё не напечатаны (их PDF не готов). Продюсер блокирует "
        "стол и печатает конверты на странице игры — или там же разрешает начать без них."
    )
    request_envelopes(g)
    h.commit()
    drain()
    assert start_refusal(g) is None
    try:
        allow_start(g, None, "лишнее")
    except GameConflict as exc:
        assert str(exc).startswith("подтверждать нечего")
    else:
        raise AssertionError("confirmed a game that needs no confirmation")


def test_documents_json_for_the_game_page(login, drain):
    from webapp.games.operations import request_envelopes

    g = h.filled_game(locked=True)
    request_envelopes(g)
    h.commit()
    client = login("host")
    body = client.get(f"/games/{g.id}/documents.json").json
    assert body["pending"] is True
    assert [(d["label"], d["status"], d["url"]) for d in body["documents"]] == [
        ("Конверты", "pending", None),
        ("Карточки ведущего", "pending", None),
    ]
    drain()
    body = client.get(f"/games/{g.id}/documents.json").json
    assert body["pending"] is False
    assert [d["url"] for d in body["documents"]] == [
        f"/games/documents/{d['id']}" for d in body["documents"]
    ]
    assert login("accountant").get(f"/games/{g.id}/documents.json").status_code == 403
