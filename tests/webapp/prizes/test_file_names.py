"""Downloaded files are named for what they are (RFC 6266 ``filename*``): the prize papers
through the links the prize page renders and through the API."""

from __future__ import annotations

from urllib.parse import quote

from tests.helpers import VIEWERS_WIN, give_details, scan_pdf
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.games.models import Game
from webapp.jobs import commit
from webapp.prizes.models import Prize
from webapp.prizes.operations import mark_signed


def disposition(name: str, kind: str = "inline") -> str:
    """The exact header Flask writes for a non-ASCII ``name`` (ASCII letters kept in the
    plain ``filename`` fallback, the whole name in ``filename*``)."""
    import unicodedata

    simple = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    quoted = quote(name, safe="!#$&+-.^_`|~")
    return f"{kind}; filename=\"{simple}\"; filename*=UTF-8''{quoted}"


def test_prize_papers_are_named_for_what_they_are(app, api, played, drain, login):
    game_id = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game_id}/close", role="producer")
    drain()
    game = db.session.get(Game, game_id)
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    give_details(prize, drain)
    db.session.expire_all()
    prize = db.session.get(Prize, prize.id)
    number = prize.agreement.number
    mark_signed(prize, scan_pdf(), "скан.pdf", None)
    commit()
    day = game.air_date.isoformat()
    client = login("accountant")
    page = client.get(f"/prizes/{prize.id}").get_data(as_text=True)
    links = [href for text, href in pages.parse(page).links if text == "открыть"]
    assert len(links) == 3  # the agreement, its version with the details, the scan
    names = [parse(client.get(href).headers["Content-Disposition"]) for href in links]
    assert names == [
        f"Договор дарения {number} — приз {prize.id} — игра {game_id} — {day}.pdf",
        f"Договор дарения {number} (версия 2) — приз {prize.id} — игра {game_id} — {day}.pdf",
        f"Подписанный договор {number} — приз {prize.id} — игра {game_id} — {day}.pdf",
    ]
    resp = client.get(links[0])
    assert resp.headers["Content-Disposition"] == disposition(names[0])
    # the prize lists name the game so that another of the same day is not mistaken for it
    label = f"Игра {game.air_date.strftime('%d.%m.%Y')} — отборочная, "
    assert game.label.startswith(label) and game.label.endswith(f", № {game_id}")
    for url in ("/prizes/", "/prizes/dashboard", f"/prizes/{prize.id}"):
        assert game.label in client.get(url).get_data(as_text=True), url
    author_page = (
        login("chief_editor").get(f"/editor/authors/{prize.author_id}").get_data(as_text=True)
    )
    assert f"<li>№ {prize.id}, {game.label}</li>" in author_page  # its prizes
    assert f'<ul class="games"><li>{game.label}</li></ul>' in author_page  # its games
    client = login("accountant")
    doc_id = int(links[0].rsplit("/", 1)[1])
    resp = api("get", f"/api/v1/documents/{doc_id}", role="accountant")
    assert resp.status_code == 200
    assert resp.headers["Content-Disposition"] == disposition(names[0])


def parse(header: str) -> str:
    from werkzeug.http import parse_options_header

    return parse_options_header(header)[1]["filename"]
