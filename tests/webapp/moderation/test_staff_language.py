"""The staff interface is Russian only, so its pages offer no language switch and stay
Russian whatever language the visitor chose on the public pages; the public pages keep the
switch and their language."""

from __future__ import annotations

import pytest
from flask_babel import refresh

SWITCH = '<span class="langs"'


def _get(client, url: str) -> str:
    refresh()  # the test's app context is shared: drop the locale cached on ``g``
    return client.get(url).get_data(as_text=True)


@pytest.mark.parametrize("chosen", ["en", "be"])
def test_staff_pages_are_russian_without_a_switch(login, client, chosen):
    client = login("editor")
    client.set_cookie("sova_lang", chosen)
    for url in (
        "/editor/queue",
        "/editor/import",
        "/editor/letters/new",
        f"/editor/queue?lang={chosen}",
    ):
        page = _get(client, url)
        assert page.startswith('<!doctype html>\n<html lang="ru">'), url
        assert SWITCH not in page and ">Eng<" not in page, url
        assert "— «Что? Где? Когда?»</title>" in page, url
    page = _get(client, "/editor/import")
    assert "Как импортировать" in page and "Import as" not in page
    # the public pages keep the visitor's language and the switch
    page = _get(client, "/submit")
    assert page.startswith(f'<!doctype html>\n<html lang="{chosen}">')
    assert SWITCH in page


def test_the_login_page_keeps_the_switch(client):
    client.set_cookie("sova_lang", "en")
    page = _get(client, "/login")
    assert '<html lang="en">' in page and SWITCH in page and "<strong>Eng</strong>" in page


def test_the_translated_vote_page_keeps_the_switch(login, client):
    """The audience vote's page is translated whole: it keeps the language and the switch
    (tests/webapp/votes/test_vote_pages.py reads it in English and Belarusian)."""
    from tests.webapp.games import helpers as h

    game_id = h.game(h.season("2009"), status="finished").id
    h.commit()
    client = login("host")
    client.set_cookie("sova_lang", "en")
    page = _get(client, f"/games/{game_id}/vote")
    assert '<html lang="en">' in page and SWITCH in page and "<strong>Eng</strong>" in page
    page = _get(client, f"/games/{game_id}")  # the game page is not translated: Russian
    assert '<html lang="ru">' in page and SWITCH not in page


def test_a_staff_404_is_russian_after_the_public_switch(login, client):
    """A staff address that matches no page (a mistyped ``/editor/…``) answered its 404 in
    the language chosen with the public ``/lang/en``: it is a staff page, in Russian, for
    anyone; under a section that also has public pages (``/prizes/…``: the payee's form)
    for a signed-in staff member; a public address keeps the visitor's language."""
    _get(client, "/lang/en?next=/")
    for url in ("/editor/nope", "/editor/queue/x", "/admin/nope"):
        page = _get(client, url)
        assert page.startswith('<!doctype html>\n<html lang="ru">'), url
        assert "<h1>Страница не найдена (404)</h1>" in page and SWITCH not in page, url
    page = _get(client, "/prizes/nope")
    assert "<h1>Page not found (404)</h1>" in page  # anonymous: perhaps a payee
    client = login("editor")
    for url in ("/editor/nope", "/prizes/nope", "/games/nope"):
        page = _get(client, url)
        assert "<h1>Страница не найдена (404)</h1>" in page, url
    page = _get(client, "/archive/nope")
    assert "<h1>Page not found (404)</h1>" in page and SWITCH in page
