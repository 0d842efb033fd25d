"""The archive's pages speak the viewer's language: Russian by default with no Latin-script
word (``tests/security/visible_text.latin_words``), Belarusian and English with no
Russian phrase of the interface where the catalogs translate it (the questions themselves
stay as their authors wrote them)."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from tests.security.visible_text import VisibleText, latin_words
from tests.webapp.archive.aired import aired_game, my_questions
from webapp.extensions import db
from webapp.resources import package_dir

_PLACEHOLDER = re.compile(r"%\(\w+\)s")


def visible(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def russian_phrases(lang: str) -> list[str]:
    """The Russian interface phrases the ``lang`` catalog translates differently: whole
    msgids, and the fixed parts (of 6 characters or more) of those with placeholders."""
    path = package_dir() / "translations" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        catalog = read_po(f)
    out = []
    for m in catalog:
        if not m.id or not isinstance(m.id, str) or not m.string or m.string == m.id:
            continue
        out.extend(p.strip() for p in _PLACEHOLDER.split(m.id) if len(p.strip()) >= 6)
    return out


def pages(client, game_id: int, author_id: int) -> dict[str, str]:
    """The archive's pages as ``client`` sees them; in an app context of their own (Flask-Babel
    keeps the language of the first request in the context, which the test's would share)."""
    db.session.commit()  # end the test's read transaction: SQLite locks while it is open
    with client.application.app_context():
        return _pages(client, game_id, author_id)


def _pages(client, game_id: int, author_id: int) -> dict[str, str]:
    return {
        url: client.get(url).get_data(as_text=True)
        for url in (
            "/archive",
            f"/archive/games/{game_id}",
            "/archive/search?q=фестиваль",
            f"/archive/authors/{author_id}",
        )
    }


def test_a_russian_archive_page_has_no_english_word(app, api, played, client):  # noqa: F811
    game_id, asked = aired_game(api, played)
    shown = pages(client, game_id, asked[0].authors[0].author_id)
    for url, html in shown.items():
        assert latin_words(html) == [], url
    assert latin_words(my_questions(app, asked[1], asked[1].authors[0].author_id)) == []


@pytest.mark.parametrize("lang", ["be", "en"])
def test_belarusian_and_english_pages_have_no_russian_interface(app, api, played, lang):  # noqa: F811
    game_id, asked = aired_game(api, played)
    author_id = asked[0].authors[0].author_id
    ru = {u: visible(h) for u, h in pages(app.test_client(), game_id, author_id).items()}
    client = app.test_client()
    assert client.get(f"/lang/{lang}?next=/archive").status_code == 302  # the switch
    other = {u: visible(h) for u, h in pages(client, game_id, author_id).items()}
    # «Соавтор 1» is a co-author's name in the played game (content, not interface)
    phrases = [p for p in russian_phrases(lang) if p != "Соавтор"]
    checked = 0
    for url, text in other.items():
        shown_in_russian = [p for p in phrases if p in ru[url]]
        checked += len(shown_in_russian)
        assert [p for p in shown_in_russian if p in text] == [], url
    assert checked >= 8  # the pages do show the interface in Russian by default
    game = other[f"/archive/games/{game_id}"]
    answer = {"be": "Паказаць адказ", "en": "Show the answer"}[lang]
    assert game.count(answer) == 6
