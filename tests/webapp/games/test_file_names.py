"""A game's documents download under names that say what they are (RFC 6266
``filename*``): «Конверты — игра 12 — 2026-12-05.pdf», through the game page's links."""

from __future__ import annotations

from tests.helpers import disposition
from tests.webapp.games import helpers as h
from tests.webapp.moderation import pages
from webapp.games.operations import request_envelopes


def test_envelopes_and_host_cards_are_named_for_the_game(login, drain):
    g = h.filled_game(locked=True)
    request_envelopes(g)
    h.commit()
    drain()
    client = login("host")
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    hrefs = [href for _t, href in pages.parse(page).links if href.startswith("/games/documents/")]
    assert len(hrefs) == 2
    day = g.air_date.isoformat()
    assert [client.get(href).headers["Content-Disposition"] for href in hrefs] == [
        disposition(f"Конверты — игра {g.id} — {day}.pdf"),
        disposition(f"Карточки ведущего — игра {g.id} — {day}.pdf"),
    ]
