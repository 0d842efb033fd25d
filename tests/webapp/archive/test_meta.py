"""Every public page carries a ``<meta name="description">`` in the page's language (the
base template's default, or the page's own)."""

from __future__ import annotations

import re

import pytest

_META = re.compile(r'<meta name="description" content="([^"]+)">')

DEFAULT = {
    "ru": "Сова: вопросы телезрителей для «Что? Где? Когда?» — прислать свой вопрос, узнать "
    "его судьбу, читать архив сыгранных вопросов.",
    "en": "Sova: viewers' questions for “What? Where? When?” — send your question, "
    "follow what becomes of it, read the archive of questions played.",
}


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_public_pages_have_a_description(client, lang):
    pages = {
        url: client.get(f"{url}?lang={lang}").get_data(as_text=True)
        for url in ("/", "/submit", "/my", "/privacy", "/archive", "/archive/search")
    }
    described = {url: _META.findall(html) for url, html in pages.items()}
    assert all(len(found) == 1 for found in described.values()), described
    for url in ("/", "/submit", "/my", "/privacy"):
        assert described[url] == [DEFAULT[lang]]
    assert described["/archive"][0].startswith(
        {"ru": "Архив вопросов телезрителей", "en": "The archive of viewers"}[lang]
    )
