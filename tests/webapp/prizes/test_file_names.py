"""Downloaded files are named for what they are (RFC 6266 ``filename*``): the prize papers
through the links the prize page renders and through the API."""

from __future__ import annotations

from tests.helpers import VIEWERS_WIN, disposition, give_details, scan_pdf
from tests.webapp.moderation import pages
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.models import Prize
from webapp.prizes.operations import mark_signed
from webapp.tasks.outbox import commit


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
    assert (
        f'filename="Dogovor dareniia {number} - priz {prize.id} - igra {game_id} - {day}.pdf"'
        in (resp.headers["Content-Disposition"])
    )
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


def test_ascii_fallback_reads_well(app, login):
    """The plain ``filename=`` is the name in Latin letters, never a run of spaces."""
    from webapp.core.filenames import ascii_name
    from webapp.core.filenames import disposition as sent

    assert ascii_name("Конверты — игра 12 — 2026-12-05.pdf") == (
        "Konverty - igra 12 - 2026-12-05.pdf"
    )
    assert ascii_name("Очередь вопросов — на рассмотрении — 2026-12-02.csv") == (
        "Ochered voprosov - na rassmotrenii - 2026-12-02.csv"
    )
    assert ascii_name("Шчыльнасць «Ўсё» — 1.pdf") == "Shchylnasts Wse - 1.pdf"
    assert ascii_name("№ 1.pdf") == "No 1.pdf" and ascii_name("—.pdf") == "file.pdf"
    assert sent("Конверты — игра 12 — 2026-12-05.pdf", attachment=True) == (
        'attachment; filename="Konverty - igra 12 - 2026-12-05.pdf"; '
        "filename*=UTF-8''%D0%9A%D0%BE%D0%BD%D0%B2%D0%B5%D1%80%D1%82%D1%8B%20%E2%80%94%20"
        "%D0%B8%D0%B3%D1%80%D0%B0%2012%20%E2%80%94%202026-12-05.pdf"
    )
    # the queue export, downloaded from the page
    from tests.webapp.moderation.editing_data import make

    make(1)
    from webapp.tasks.outbox import commit as _commit

    _commit()
    resp = login("editor").get("/editor/export.csv?status=in_review")
    header = resp.headers["Content-Disposition"]
    assert 'attachment; filename="Ochered voprosov - na rassmotrenii - ' in header
