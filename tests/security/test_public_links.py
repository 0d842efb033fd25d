"""Absolute links Sova hands out are built on ``SOVA_PUBLIC_URL``, never on the request's
``Host`` header (``webapp.core.links``); the shipped nginx answers only the configured name."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

ATOM = "{http://www.w3.org/2005/Atom}"
PUBLIC = "https://sova.example.org"
FORGED = {"Host": "evil.example"}


def test_the_feed_and_the_status_url_name_the_public_url_whatever_the_host(make_app):
    from tests.webapp.archive.rows import closed_game
    from webapp.extensions import db
    from webapp.games.models import Game, Season

    app = make_app(WTF_CSRF_ENABLED=False, SOVA_PUBLIC_URL=PUBLIC + "/")
    client = app.test_client()
    with app.app_context():
        season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
        db.session.add(season)
        closed_game(season, datetime(2023, 3, 4, 18, tzinfo=UTC), ["Вопрос"])
        db.session.commit()
        game_id = db.session.scalar(db.select(Game.id))
    root = ET.fromstring(client.get("/archive/feed.atom", headers=FORGED).data)
    assert root.find(f"{ATOM}id").text == f"{PUBLIC}/archive/feed.atom"
    assert [link.get("href") for link in root.findall(f"{ATOM}link")] == [
        f"{PUBLIC}/archive/feed.atom",
        f"{PUBLIC}/archive",
    ]
    (entry,) = root.iter(f"{ATOM}entry")
    assert entry.find(f"{ATOM}id").text == f"{PUBLIC}/archive/games/{game_id}"
    assert entry.find(f"{ATOM}link").get("href") == f"{PUBLIC}/archive/games/{game_id}"

    resp = client.post(
        "/api/v1/submissions",
        headers=FORGED,
        json={
            "question": "Какой город называют северной столицей России? Назовите его.",
            "answer": "Санкт-Петербург",
            "email": "host@example.com",
            "consent": True,
            "authors": [{"name": "Пётр Иванов"}],
        },
    )
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert body["status_url"] == f"{PUBLIC}/status/{body['token']}"


def test_the_shipped_nginx_answers_only_the_configured_name():
    """Every name but ``server_name`` meets the catch-all (no TLS handshake, 444); the app
    gets the configured name as ``Host``, never the visitor's."""
    conf = (Path(__file__).parents[2] / "deploy" / "nginx.conf").read_text()
    code = re.sub(r"#[^\n]*", "", conf)
    assert "$host" not in code and "$http_host" not in code
    assert "proxy_set_header Host $server_name;" in code
    assert "proxy_set_header X-Forwarded-Host $server_name;" in code
    catch_all = re.search(r"server \{([^{}]*default_server[^{}]*)\}", code).group(1)
    assert "listen 443 ssl default_server;" in catch_all
    assert "listen 80 default_server;" in catch_all
    assert "ssl_reject_handshake on;" in catch_all and "return 444;" in catch_all
