"""A season whose name has «» of its own is named with „“ inside «…» on the envelopes, the
staff pages' game label, the season page and its flashes (webapp.domain.donor.quoted);
never «Сезон «Сезон 2009 «Весна»»»."""

from __future__ import annotations

import io

import pypdf
import pytest

NAME = "Сезон 2009 «Весна»"


def _text(data: bytes) -> str:
    pages = pypdf.PdfReader(io.BytesIO(data)).pages
    return " ".join(" ".join(p.extract_text() for p in pages).replace("\u00a0", " ").split())


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_season_name_with_quotes_prints_inner_quotes(app, finished_game, login):
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.games.queries import envelope_context
    from webapp.tasks.outbox import commit
    from workers.documents import render_pdf

    gid = finished_game()
    game = db.session.get(Game, gid)
    game.season.name = NAME
    commit()
    game = db.session.get(Game, gid)
    assert "сезон «Сезон 2009 „Весна“»" in game.label and "»»" not in game.label
    context = envelope_context(game, False, "S-1")
    context["sectors"] = [{"sector": 13, "kind": "sector13", "questions": []}]
    text = _text(render_pdf("envelope.html", context))
    assert "сезон «Сезон 2009 „Весна“»" in text
    assert "»»" not in text and "««" not in text
    page = login("producer").get(f"/games/seasons/{game.season_id}").get_data(as_text=True)
    assert "<h1>Сезон <bdi>«Сезон 2009 „Весна“»</bdi></h1>" in page


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_sector_13_of_2009_says_how_its_question_comes_and_no_empty_props_page(app, finished_game):
    """2009 sector 13 (drawn by the computer among the viewers' live questions at the spin,
    002_e025d5ded135c1c4.txt §1.4.1): the envelope and the host card say so instead of a blank
    sheet; a host card with no props needed has no «Реквизит игры» page."""
    from webapp.extensions import db
    from webapp.games.models import Envelope, Game
    from webapp.games.queries import envelope_context
    from webapp.tasks.outbox import commit
    from workers.documents import render_pdf

    gid = finished_game()
    db.session.add(Envelope(game_id=gid, sector=13, kind="sector13"))
    commit()
    game = db.session.get(Game, gid)
    note = (
        "13 сектор Вопрос 13 сектора выбирает компьютер среди вопросов, присланных "
        "телезрителями во время прямого эфира, в момент раскрутки волчка (п. 1.4.1 Правил "
        "сезона 2009 г.)."
    )
    envelope = render_pdf("envelope.html", envelope_context(game, False, "S-1"))
    assert note in _text(envelope)
    context = envelope_context(game, True, "S-2")
    assert context["props"] == []
    card = render_pdf("host_card.html", context)
    assert len(pypdf.PdfReader(io.BytesIO(card)).pages) == 1
    text = _text(card)
    assert note in text and "Реквизит" not in text
