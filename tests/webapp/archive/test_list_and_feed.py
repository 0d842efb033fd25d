"""The archive's list is paged newest first; the Atom feed is well-formed XML whatever a
game's title holds."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from tests.webapp.archive.rows import closed_game
from webapp.archive import queries
from webapp.extensions import db
from webapp.games.models import Game, Season

ATOM = "{http://www.w3.org/2005/Atom}"


def _games(n: int) -> list[int]:
    """``n`` aired games, one a day from 1 March 2023, each with one question; their ids."""
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    for day in range(1, n + 1):
        closed_game(season, datetime(2023, 3, day, 18, tzinfo=UTC), [f"Вопрос дня {day}"])
    db.session.commit()
    return list(db.session.scalars(db.select(Game.id).order_by(Game.air_at)))


def test_the_list_is_paged_newest_first(app, client, monkeypatch):
    ids = _games(3)
    monkeypatch.setattr(queries, "PAGE_SIZE", 2)
    first = client.get("/archive").get_data(as_text=True)
    second = client.get("/archive?page=2").get_data(as_text=True)
    assert first.index(f"/archive/games/{ids[2]}") < first.index(f"/archive/games/{ids[1]}")
    assert f"/archive/games/{ids[0]}" not in first and "Страница 1 из 2" in first
    assert '<a rel="next" href="/archive?page=2">' in first
    assert f"/archive/games/{ids[0]}" in second and f"/archive/games/{ids[2]}" not in second
    assert "<title>Архив вопросов — страница 2 —" in second
    # a page past the end, or not a number: the nearest page
    assert f"/archive/games/{ids[0]}" in client.get("/archive?page=9").get_data(as_text=True)
    assert f"/archive/games/{ids[2]}" in client.get("/archive?page=x").get_data(as_text=True)


def test_the_feed_escapes_what_titles_hold(app, client):
    ids = _games(2)
    game = db.session.get(Game, ids[1])
    game.title = 'Финал <b>года</b> & «"кубок"»'
    game.team = "Команда <Анны>"
    db.session.commit()
    resp = client.get("/archive/feed.atom")
    root = ET.fromstring(resp.data)
    entries = list(root.iter(f"{ATOM}entry"))
    assert [e.find(f"{ATOM}title").text for e in entries] == [
        'Финал <b>года</b> & «"кубок"»',
        "Игра 1 марта 2023\u202fг.",
    ]
    assert entries[0].find(f"{ATOM}summary").text == (
        "Команда: Команда <Анны>. Вопросов телезрителей в эфире: 1."
    )
    assert entries[0].find(f"{ATOM}updated").text == "2023-03-02T18:00:00+00:00"
    assert root.find(f"{ATOM}updated").text == "2023-03-02T18:00:00+00:00"


def test_the_feed_stays_xml_whatever_was_stored(app, client):
    """A team name stored with U+FFFE and a title with a C1 control and a right-to-left override
    (text stored before every input refused them) made the feed invalid XML for every
    reader: the writer leaves them out."""
    ids = _games(1)
    game = db.session.get(Game, ids[0])
    game.title = "Финал\x85 года\u202e"
    game.team = "Знатоки\ufffe"
    db.session.commit()
    resp = client.get("/archive/feed.atom")
    (entry,) = ET.fromstring(resp.data).iter(f"{ATOM}entry")
    assert entry.find(f"{ATOM}title").text == "Финал года"
    assert entry.find(f"{ATOM}summary").text == (
        "Команда: Знатоки. Вопросов телезрителей в эфире: 1."
    )


def test_handout_images_are_served_once_aired(app, client):
    """The handout image and an image the text names are shown and served once the game
    has aired; before, and for a name the question does not hold, ``404``."""
    from pathlib import Path

    from webapp.core.models import utcnow
    from webapp.submissions.models import QuestionImage

    uploads = Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    for name in ("hand.png", "map.png", "other.png"):
        (uploads / name).write_bytes(b"\x89PNG\r\n\x1a\n" + name.encode())
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    (q,) = closed_game(season, datetime(2023, 3, 1, 18, tzinfo=UTC), ["Что на карте? (img карта)"])
    q.handout_image = "hand.png"
    q.images.append(QuestionImage(name="карта", file="map.png"))
    db.session.commit()
    game_id = db.session.scalar(db.select(Game.id))
    page = client.get(f"/archive/games/{game_id}").get_data(as_text=True)
    for name in ("hand.png", "map.png"):
        url = f"/archive/questions/{q.id}/images/{name}"
        assert f'src="{url}"' in page
        assert client.get(url).data == b"\x89PNG\r\n\x1a\n" + name.encode()
    assert client.get(f"/archive/questions/{q.id}/images/other.png").status_code == 404
    game = db.session.get(Game, game_id)
    game.status = "finished"  # not closed: not published
    db.session.commit()
    assert client.get(f"/archive/questions/{q.id}/images/map.png").status_code == 404
    assert client.get(f"/archive/games/{game_id}").status_code == 404
    assert utcnow() > game.air_at  # aired: the 404s above are the status alone


def test_archive_responses_revalidate_so_hold_back_and_a_later_air_time_leave_caches(
    app, client, login
):
    """Every archive response a visitor without cookies gets may be kept by a shared cache
    for 60 s only (``Cache-Control: public, max-age=60``, an ETag, ``304`` to a matching
    ``If-None-Match``; the handout image was kept a day). A cache asking again after a
    question was held back, or after its game's air time moved later, gets ``404``, not
    ``304``. A staff member's preview of a game not yet aired and a page in a chosen
    language are never for a shared cache (``private, no-cache``)."""
    from datetime import timedelta
    from pathlib import Path

    from webapp.core.models import utcnow

    uploads = Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / "hand.png").write_bytes(b"\x89PNG\r\n\x1a\nhand")
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    (q,) = closed_game(season, datetime(2023, 3, 1, 18, tzinfo=UTC), ["Что на раздатке?"])
    q.handout_image = "hand.png"
    db.session.commit()
    game_id = db.session.scalar(db.select(Game.id))
    image = f"/archive/questions/{q.id}/images/hand.png"
    game_page = f"/archive/games/{game_id}"
    viewer = app.test_client()
    etags = {}
    for url in (game_page, image, "/archive", "/archive/feed.atom", "/archive/search?q=раздатке"):
        resp = viewer.get(url)
        assert resp.status_code == 200, url
        assert resp.headers["Cache-Control"] == "public, max-age=60", url
        assert "Expires" not in resp.headers
        assert {"Accept-Language", "Cookie"} <= set(resp.vary), url
        etags[url] = resp.headers["ETag"]
        again = viewer.get(url, headers={"If-None-Match": etags[url]})
        assert (again.status_code, again.data) == (304, b""), url
        assert again.headers["Cache-Control"] == "public, max-age=60"

    q = db.session.get(type(q), q.id)
    q.held_back_at = utcnow()
    q.held_back_reason = "Претензия правообладателя"
    db.session.commit()
    resp = viewer.get(image, headers={"If-None-Match": etags[image]})
    assert (resp.status_code, resp.headers["Cache-Control"]) == (404, "public, max-age=60")

    game = db.session.get(Game, game_id)
    game.air_at = utcnow() + timedelta(days=1)  # the broadcast moved to tomorrow
    db.session.commit()
    resp = viewer.get(game_page, headers={"If-None-Match": etags[game_page]})
    assert (resp.status_code, resp.headers["Cache-Control"]) == (404, "public, max-age=60")
    feed = viewer.get("/archive/feed.atom", headers={"If-None-Match": etags["/archive/feed.atom"]})
    assert feed.status_code == 200 and f"/archive/games/{game_id}" not in feed.get_data(
        as_text=True
    )

    preview = login("producer").get(game_page)  # staff see the game before its air
    assert (preview.status_code, preview.headers["Cache-Control"]) == (200, "private, no-cache")
    chosen = viewer.get("/archive?lang=en")
    assert chosen.headers["Cache-Control"] == "private, no-cache"
