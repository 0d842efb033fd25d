"""Russian personal names: the case of a credit phrase → the nominative (pymorphy3).

Packets credit co-authors in the genitive («при активном участии Евгения Миротина») or,
after «в соавторстве с», in the instrumental («в соавторстве с Ольгой Ким»);
the author stored (printed on the envelope, named on a gift agreement) is the person,
in the nominative («Евгений Миротин»). The domain parser
(:func:`webapp.domain.packets.parse_authors`) keeps the name as written and marks the
author with ``credit``; :func:`nominative_authors` inflects those names here, outside the
stdlib-only domain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from webapp.domain.packets import AuthorRef

__all__ = [
    "credit_case",
    "morph_analyzer",
    "name_gender",
    "nominative_authors",
    "nominative_name",
]

_WORD = re.compile(r"[А-Яа-яЁё]+")


@lru_cache(maxsize=1)
def morph_analyzer():
    """The process's one pymorphy3 analyser of Russian, made at the first use rather than
    at import (loading its dictionaries is work a process that parses no word should not
    do); the names here, moderation's checks and the editors' aids all read it, so the
    dictionaries are loaded once per process."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


_INSTRUMENTAL = re.compile(r"в\s+соавторстве\s+со?\s", re.IGNORECASE)


def credit_case(credit: str) -> str:
    """The grammatical case (pymorphy3 grammeme) a credit phrase puts the name in:
    ``"ablt"`` (instrumental) after «в соавторстве с», else ``"gent"`` (genitive: «при
    участии», «при помощи» …)."""
    return "ablt" if _INSTRUMENTAL.match(credit) else "gent"


def _gender(words: list[str], case: str) -> str | None:
    """The gender of the person from the first word that pymorphy3 knows as a given name
    (tag ``Name``) in ``case``, singular; None when no word is one (then the phrase is
    not a name in that case and is left alone)."""
    morph = morph_analyzer()
    for word in words:
        for p in morph.parse(word):
            if {"Name", case, "sing"} <= p.tag.grammemes and p.tag.gender in ("masc", "femn"):
                return p.tag.gender
    return None


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _nominative_word(word: str, gender: str, case: str) -> str:
    """One word of a name in ``case`` put in the nominative, or unchanged when pymorphy3
    has no singular reading of it in that case for that gender (an indeclinable «Бойко»)."""
    candidates = [
        p
        for p in morph_analyzer().parse(word)
        if {case, "sing", "NOUN"} <= p.tag.grammemes and ({gender, "ms-f"} & p.tag.grammemes)
    ]
    if not candidates:
        return word
    # prefer the readings as a person's name: given name, surname, patronymic
    candidates.sort(key=lambda p: -len({"Name", "Surn", "Patr"} & p.tag.grammemes))
    best = candidates[0]
    if "Fixd" in best.tag.grammemes:
        return word
    form = best.inflect({"nomn"})
    return _match_case(word, form.word) if form else word


def nominative_name(name: str, case: str = "gent") -> str:
    """``"Евгения Миротина"`` → ``"Евгений Миротин"``; ``"Марии Сидоровой"`` →
    ``"Мария Сидорова"``; ``"Анны Бойко"`` → ``"Анна Бойко"``; with ``case="ablt"``
    ``"Ольгой Ким"`` → ``"Ольга Ким"``.

    ``case``: the pymorphy3 case grammeme the name is written in (``"gent"``,
    ``"ablt"``). The person's gender comes from the given name (the first word pymorphy3
    reads as a given name in that case); each word (each part of a hyphenated surname) is
    then put in the nominative of that gender. A name with no given name in that case
    (already in the nominative, Latin letters, a team's name) is returned unchanged.
    Never raises.
    """
    words = _WORD.findall(name)
    gender = _gender(words, case)
    if gender is None:
        return name
    return _WORD.sub(lambda m: _nominative_word(m.group(0), gender, case), name)


def nominative_authors(authors: Sequence[AuthorRef]) -> list[AuthorRef]:
    """The authors with each credited co-author's name (``credit`` set: written in the
    case its phrase governs, :func:`credit_case`) in the nominative; the others
    unchanged."""
    return [
        replace(a, name=nominative_name(a.name, credit_case(a.credit))) if a.credit else a
        for a in authors
    ]


#: Letters of Belarusian (and Ukrainian) that Russian does not write, and the apostrophe
#: inside a word («Мар'я»): a name spelt with them is not Russian.
_NOT_RUSSIAN = re.compile(r"[іІїЇўЎєЄґҐ]|\w['ʼ’]\w")
#: Given names that the show's two languages give to people of either gender: Belarusian
#: «Янка» is a man (Иван; Янка Купала), Russian «Янка» a woman (Яна). pymorphy3 knows only
#: the Russian reading.
_EITHER_GENDER_ACROSS_LANGUAGES = frozenset({"янка"})


def name_gender(name: str | None) -> str | None:
    """The grammatical gender of a person named ``name`` (in the nominative, as stored):
    ``"femn"`` for «Анна Лысенко», ``"masc"`` for «Иван Сапего»; None when the first given
    name is of either gender («Женя Пак») or there is none («A. Smith», a team, None).
    Pages and documents then agree with the person («нет её согласия», «именуемая») or use
    neutral wording. Never raises.

    The reading is pymorphy3's Russian dictionary (the only one Sova has; there is none
    for Belarusian), so it is not asked where it would guess: a name spelt in Belarusian
    (і, ў, an apostrophe: «Мікола Лынькоў») and a given name whose gender differs between
    Belarusian and Russian («Янка») give None — neutral wording until the payee's
    identification number tells (``webapp.prizes.payee.by_personal_number_gender``)."""
    if not name or _NOT_RUSSIAN.search(name):
        return None
    morph = morph_analyzer()
    for word in _WORD.findall(name):
        if word.lower().replace("ё", "е") in _EITHER_GENDER_ACROSS_LANGUAGES:
            return None
        genders = {
            p.tag.gender
            for p in morph.parse(word)
            if {"Name", "nomn", "sing"} <= p.tag.grammemes and p.tag.gender in ("masc", "femn")
        }
        if genders:  # the first given name decides; «Саша», «Женя» (both) stay unknown
            return str(genders.pop()) if len(genders) == 1 else None
    return None
