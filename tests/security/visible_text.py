"""What a reader of a page sees, and the Latin-script words in it that a Russian page may
not show (tests/security/test_russian_pages.py walks every staff page with it).

"Visible" is what a reader sees: text nodes outside ``<script>``, ``<style>`` and code-like
spans (``<code>``, ``<kbd>``, ``<samp>``: seeds, file names and commands are shown as code on
purpose), plus the attributes a browser shows (``placeholder``, ``title``, ``alt``,
``aria-label`` and the label of ``<input type=submit>``). E-mail addresses and URLs are
addresses, not words, and are removed first."""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Latin-script words a Russian page may show, each for a reason: codes of file formats,
#: text encodings and the hash algorithm (what an upload must be, what a result is sealed
#: with), currencies (ISO 4217), the bank-account code IBAN and the SMS channel, the packet
#: format ``4s`` and the program chgksuite whose files the import reads (proper names), and
#: «Eng», the English language's own name in the language switcher (each language names
#: itself). A hyphenated word passes when its Latin parts do («SMS-голосование»).
ALLOWED = {
    "PDF",
    "ZIP",
    "XLSX",
    "CSV",
    "JSON",
    "JPEG",
    "PNG",
    "WebP",
    "UTF-8",
    "KOI8-R",
    "cp1251",
    "SHA-256",
    "BYN",
    "RUB",
    "IBAN",
    "SMS",
    "4s",
    "chgksuite",
    "Eng",
}

_SKIP = {"script", "style", "code", "kbd", "samp", "template"}
_SHOWN_ATTRS = ("placeholder", "title", "alt", "aria-label")
_ADDRESS = re.compile(r"\S+@\S+\.\w+|https?://\S+|\b[\w.-]+\.(?:org|com|info|by|ru|local)\b")
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_LATIN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ɏ]")


class VisibleText(HTMLParser):
    """The text of an HTML page as a reader sees it (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self._skip += 1
            return
        values = dict(attrs)
        self.parts.extend(values[a] or "" for a in _SHOWN_ATTRS if a in values)
        if tag == "input" and values.get("type") in ("submit", "button", "reset"):
            self.parts.append(values.get("value") or "")

    def handle_startendtag(self, tag, attrs):
        if tag not in _SKIP:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in _SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def latin_words(html: str) -> list[str]:
    """Latin-script words of ``html``'s visible text not in :data:`ALLOWED`."""
    parser = VisibleText()
    parser.feed(html)
    text = _ADDRESS.sub(" ", " ".join(parser.parts))
    return [w for w in _WORD.findall(text) if _LATIN.search(w) and not _allowed(w)]


def _allowed(word: str) -> bool:
    parts = [p for p in re.split(r"[-'’]", word) if _LATIN.search(p)]
    return word in ALLOWED or all(p in ALLOWED for p in parts)
