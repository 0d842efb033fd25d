"""The language of a question and the languages a game is played in (pure: standard library
only).

Neither rule book names a language; the editions do. Reading chosen (docs/rules.md): the 2009
book is the Russian edition (prizes in roubles, 002_e025d5ded135c1c4.txt §3.2; the season's
currency RUB and time zone Europe/Moscow), so its games are in Russian; the 2023 book is the
Belarusian edition (prizes in roubles of the broadcaster in Minsk,
000_90d7c8192601ed3a.txt §4.11.1; currency BYN), whose viewers write in Belarusian or
Russian, so both fit. A question in another language (a Belarusian question
in a 2009 game) is not placed on the table by the automatic fill (the producer may still put
it there by hand).

The language of a text is read from the letters only one of the two Cyrillic alphabets has:
Belarusian «і», «ў» (and no «и», «щ», «ъ»); Russian «и», «щ», «ъ» (and no «і», «ў»). A
Russian text quoting a Belarusian word stays Russian (the letters are counted). Ukrainian is
told by its own letters «ї», «є», «ґ» with none of the letters it lacks («ы», «э», «ъ», «ё»,
«ў»); a text with no Cyrillic letter but Latin ones is English, and a text with neither sign
is unknown. This one reading serves both the moderation pre-check (its «language» check and
the queue's language filter) and the table fill.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from types import MappingProxyType

#: Letters of one Cyrillic alphabet and not the other.
BELARUSIAN_ONLY = frozenset("іўІЎ")
RUSSIAN_ONLY = frozenset("иъщИЪЩ")
#: Letters of Ukrainian alone, and the Cyrillic letters Ukrainian lacks.
UKRAINIAN_ONLY = frozenset("їєґЇЄҐ")
NOT_UKRAINIAN = frozenset("ыэъёўЫЭЪЁЎ")

#: Short words of one language and not the other (lower case), counted like the letters.
RUSSIAN_WORDS = frozenset(
    "что это как его её если когда где он она они был или только этот эта эти чтобы от "
    "также ещё уже можно в".split()
)
BELARUSIAN_WORDS = frozenset(
    "што гэта як яго яе калі дзе ён яна яны быў або толькі гэты гэтая гэтыя каб ад "
    "таксама яшчэ ўжо можна".split()
)

#: Russian names of the languages, in the prepositional case («на русском»).
LANGUAGE_NAMES_RU: Mapping[str, str] = MappingProxyType(
    {"ru": "русском", "be": "белорусском", "uk": "украинском", "en": "английском"}
)


def text_language(*texts: str | None) -> str | None:
    """``"be"``, ``"ru"``, ``"uk"``, ``"en"`` or None (unknown) for the texts together:
    ``"uk"`` when a letter of Ukrainian alone (:data:`UKRAINIAN_ONLY`) appears and none it
    lacks (:data:`NOT_UKRAINIAN`); else the language whose own letters and short words
    (:data:`RUSSIAN_WORDS`, :data:`BELARUSIAN_WORDS`) are more frequent; ``"en"`` when there
    is no Cyrillic letter but a Latin one; None when neither tells (no letters, or as many
    of each)."""
    be = ru = cyrillic = latin = 0
    ukrainian = not_ukrainian = False
    for text in texts:
        for word in re.findall(r"[^\W\d_]+", (text or "").lower()):
            be += word in BELARUSIAN_WORDS
            ru += word in RUSSIAN_WORDS
        for char in text or "":
            if char in BELARUSIAN_ONLY:
                be += 1
            elif char in RUSSIAN_ONLY:
                ru += 1
            ukrainian = ukrainian or char in UKRAINIAN_ONLY
            not_ukrainian = not_ukrainian or char in NOT_UKRAINIAN
            if "\u0400" <= char <= "\u04ff":
                cyrillic += 1
            elif char.isascii() and char.isalpha():
                latin += 1
    if ukrainian and not not_ukrainian:
        return "uk"
    if be > ru:
        return "be"
    if ru > be:
        return "ru"
    if not cyrillic and latin:
        return "en"
    return None


def fits_game(language: str | None, game_languages: Collection[str]) -> bool:
    """True when a question in ``language`` (None: unknown) may be placed by the automatic
    fill of a game whose book plays in ``game_languages`` (``Book.game_languages``: the
    reading above); an unknown language fits."""
    return language is None or language in game_languages
