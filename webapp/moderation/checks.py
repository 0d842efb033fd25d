"""Content pre-checks of a question: language, obscene words, the
author's own surname or city in the text, a handout referred to but missing.

Pure functions over strings (no database, no Flask): ``run_checks`` in
``webapp.moderation.operations`` feeds them the question's fields and stores each result
as ``{"name", "ok", "message"}`` in ``ModerationReport.checks``. A question's language is
read by the one reading the table fill uses too (:func:`webapp.domain.languages.text_language`);
this module names it. Everything runs offline: the Russian morphology dictionary
(OpenCorpora) ships inside ``pymorphy3-dicts-ru``; nothing is downloaded at run time. The
analyser is built once per process, on first use.

Words are taken from :func:`webapp.domain.text.matching_key` (case, ``ё``/``е``, stress
marks and Latin/Cyrillic look-alikes folded), so ``«хУй»``, ``«xуй»`` with a Latin ``x`` and
``«Гóмеле»`` are seen as the plain words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from webapp.domain.text import matching_key
from webapp.submissions.names import morph_analyzer

__all__ = [
    "LANGUAGES_OK",
    "MIN_LEAK_LETTERS",
    "author_leaks",
    "handout_reference",
    "has_handout",
    "is_obscene",
    "language_name",
    "obscene_words",
]

# --- language -----------------------------------------------------------------------------

#: Languages a question may be written in («language (Russian / Belarusian / other)»).
LANGUAGES_OK = ("ru", "be")
_LANGUAGE_NAMES = {
    "ru": "русский",
    "be": "белорусский",
    "uk": "украинский",
    "en": "английский",
}


def language_name(code: str | None) -> str:
    """Russian name of a language code of :func:`webapp.domain.languages.text_language`
    (for messages)."""
    return _LANGUAGE_NAMES.get(code or "", "не определён")


# --- obscene words --------------------------------------------------------------------------
#
# Russian мат is a closed family of words built on a handful of roots (the four of the
# Roskomnadzor guidance of 2013 — хуй, пизда, ебать, блядь — plus the usual мудак, манда,
# пидор; A. Plutser-Sarno, «Большой словарь мата»), with any prefix, suffix and ending.
# A word list cannot enumerate them, and a substring search flags «оскорблять», «рубля»,
# «страхуй», «команда». So a word counts when, after a real prefix (or none), it starts with
# one of the roots followed by a letter that continues that root; known clean words are
# further ruled out by the OpenCorpora dictionary (pymorphy3): a word the dictionary knows
# counts only when one of its analyses is marked slang/informal (Slng, Infr) or its normal
# form is itself matched (``выблядок``). Forms and derivatives the dictionary does not know
# (``заебашить``, ``распиздяй``) are matched by the roots alone.

_PREFIXES = (
    "",
    "а",
    "в",
    "въ",
    "вз",
    "взъ",
    "вы",
    "до",
    "за",
    "из",
    "изъ",
    "на",
    "наи",
    "не",
    "недо",
    "ни",
    "о",
    "об",
    "объ",
    "от",
    "отъ",
    "пере",
    "по",
    "под",
    "подъ",
    "пре",
    "при",
    "про",
    "раз",
    "разъ",
    "рас",
    "с",
    "съ",
    "у",
    "долбо",
)
# root → the letters that may follow it inside an obscene word ("" = may end the word)
_ROOTS = {
    "ху": ("й", "е", "я", "и", "ю"),  # хуй, хуевый, нахуя, хуйня, хую; not «худой», «хуже»
    "пизд": ("",),  # any continuation
    "пезд": ("",),  # the «опездол» spelling
    # еб/ёб (words arrive with ё folded to е): ебать, ебло, ебнуть, ебёт, уёбок, долбоёб
    "еб": ("а", "у", "л", "н", "о", "е", "ы", "и", "ш", "к", "ц", "ь", ""),
    "бля": ("д", "т", "ь", ""),
    "муд": ("ак", "ач", "ил", "оз", "ох", "ень", "ья"),  # мудак, мудила; not «мудрый»
    # манда: only these whole tails (not «мандарин», «мандат», «Мандельштам»)
    "манд": ("=а", "=ы", "=е", "=у", "=ой", "=ою", "=ам", "=ами", "=ах", "ав"),
    "пидор": ("",),
    "пидар": ("",),
}
# Roots that may follow no prefix at all, only start the word (манда vs «команда»)
_WHOLE_WORD_ONLY = {"манд"}
# Prefixes that would make a clean word look obscene: «себе», «себя» (с + еб),
# «подебоширить», «подебелее» (под + еб), «облять»-like (о + бля); «уебок» is kept
_NOT_BEFORE = {
    "еб": {"с", "не", "в", "о", "а", "ни", "пре", "наи", "под"},
    "бля": {"о", "с", "в", "у", "не", "пре", "а"},
}
_ENDS_FOR_ANY = ("",)
_SLANG = {"Slng", "Infr"}


def _continues(tail: str, allowed: str) -> bool:
    if allowed.startswith("="):
        return tail == allowed[1:]
    return tail.startswith(allowed) if allowed else not tail


def _root_match(word: str) -> bool:
    """True if ``word`` (lower case, ``ё`` folded to ``е``) is prefix + obscene root + a
    continuation of that root."""
    for prefix in _PREFIXES:
        if not word.startswith(prefix):
            continue
        rest = word[len(prefix) :]
        for root, nexts in _ROOTS.items():
            if not rest.startswith(root):
                continue
            if prefix and (root in _WHOLE_WORD_ONLY or prefix in _NOT_BEFORE.get(root, ())):
                continue
            tail = rest[len(root) :]
            if nexts == _ENDS_FOR_ANY or any(_continues(tail, n) for n in nexts):
                return True
    # compounds: хуесос, долбоёб, мудозвон are covered by the prefixes and roots above;
    # «-хуй», «-ебать» deep inside a compound are not looked for (Scunthorpe)
    return False


def is_obscene(word: str) -> bool:
    """Whether one word is Russian мат (any case, inflection or derivative).

    ``word``: one word; Latin look-alikes and ``ё`` are folded here too. Examples: ``хуями``,
    ``пиздец``, ``заебись``, ``блядями``, ``выблядок``, ``мудак`` → True; ``оскорблять``,
    ``рубля``, ``страхуй``, ``команда``, ``мандарин``, ``колебаться``, ``хлебало``, ``себе``,
    ``мудрый``, ``употреблять``, ``сука`` (not мат) → False.
    """
    words = matching_key(word).split()
    if len(words) != 1:
        return any(is_obscene(w) for w in words)
    w = words[0]
    if len(w) < 3 or not _root_match(w):
        return False
    morph = morph_analyzer()
    if not morph.word_is_known(w):
        return True
    # A dictionary word: obscene when one of its analyses is marked slang/informal or has
    # an obscene normal form (``выблядок``); a clean word with an unlucky spelling is not.
    return any(
        _SLANG & set(parse.tag.grammemes) or _root_match(parse.normal_form.replace("ё", "е"))
        for parse in morph.parse(w)
    )


def obscene_words(text: str) -> list[str]:
    """The obscene words of ``text`` (folded to lower case, ``ё`` → ``е``), each once, in
    the order they first occur; ``[]`` for a clean text. See :func:`is_obscene`."""
    found: list[str] = []
    for word in matching_key(text or "").split():
        if word not in found and is_obscene(word):
            found.append(word)
    return found


# --- the author's surname or city in the text --------------------------------------------

#: Words shorter than this (in letters) are never looked for: «Ли», «Ус», «Бор» would
#: match everywhere.
MIN_LEAK_LETTERS = 4
_GIVEN_NAME_TAGS = {"Name", "Patr"}


_BE_TO_RU = str.maketrans({"і": "и", "ў": "у", "ё": "е"})
_ENDINGS = "аеиоуыэюяьй"
_PLACE_ADJECTIVE = re.compile(r"ь?ск(?:ий|ая|ое|ие|ого|ой|ому|ую|им|ом|их|ими|і|ае|ую)?$")


@dataclass(frozen=True)
class _Word:
    """One word of a name or city: its pymorphy3 normal forms, and a stem for words the
    Russian dictionary cannot inflect (Belarusian «у Гомелі», unknown surnames)."""

    lemmas: frozenset[str]
    stem: str
    place: bool = False  # a city: its adjective («гомельский», «брестская») counts too

    def found_in(self, word: str, lemmas: frozenset[str]) -> bool:
        if self.lemmas & lemmas:
            return True
        folded = word.translate(_BE_TO_RU)
        if len(self.stem) < MIN_LEAK_LETTERS or not folded.startswith(self.stem):
            return False
        rest = folded[len(self.stem) :]
        return len(rest) <= 3 or (self.place and _PLACE_ADJECTIVE.match(rest) is not None)


@dataclass(frozen=True)
class _Needle:
    words: tuple[_Word, ...]  # in order


@lru_cache(maxsize=65536)
def _lemmas(word: str, only: str | None = None) -> frozenset[str]:
    """The word itself and the normal forms pymorphy3 gives it (``гомеле`` → ``гомель``);
    with ``only`` (a grammeme: ``"Geox"``, ``"Surn"``) just the analyses carrying it, so
    that the city «Николаев» is not taken for the name «Николай» (its genitive plural)."""
    parses = morph_analyzer().parse(word)
    if only is not None:
        parses = [p for p in parses if only in p.tag.grammemes]
    return frozenset({word} | {p.normal_form.replace("ё", "е") for p in parses})


def _word(word: str, place: bool = False) -> _Word:
    stem = word.translate(_BE_TO_RU)
    while len(stem) > MIN_LEAK_LETTERS and stem[-1] in _ENDINGS:
        stem = stem[:-1]
    return _Word(_lemmas(word, "Geox" if place else "Surn"), stem, place)


def _surname_words(name: str) -> list[str]:
    """The words of an author's name that may be a surname: every word of at least
    :data:`MIN_LEAK_LETTERS` letters that the dictionary does not take for a given name or
    patronymic only (``"Мария Лисовская"`` → ``["лисовская"]``)."""
    out = []
    morph = morph_analyzer()
    for word in matching_key(name).split():
        if len(word) < MIN_LEAK_LETTERS or not word.isalpha():
            continue
        parses = morph.parse(word)
        if parses and all(_GIVEN_NAME_TAGS & set(p.tag.grammemes) for p in parses[:2]):
            continue
        out.append(word)
    return out


def _needles(authors: Iterable[tuple[str | None, str | None]]) -> list[tuple[str, _Needle]]:
    needles: list[tuple[str, _Needle]] = []
    for name, city in authors:
        for word in _surname_words(name or ""):
            needles.append(("фамилия", _Needle((_word(word),))))
        city_words = [w for w in matching_key(city or "").split() if w.isalpha()]
        if city_words and sum(len(w) for w in city_words) >= MIN_LEAK_LETTERS:
            needles.append(("город", _Needle(tuple(_word(w, place=True) for w in city_words))))
    return needles


def author_leaks(
    fields: dict[str, str | None], authors: Iterable[tuple[str | None, str | None]]
) -> list[tuple[str, str]]:
    """Where an author's own surname or city occurs in the question's texts.

    ``fields``: field label → text (``{"вопрос": …, "комментарий": …, "раздатка": …}``);
    ``authors``: ``(name, city)`` pairs (``Author.name``, ``Author.city``). Matching is
    inflection-aware (pymorphy3 normal forms: city «Гомель» is found in «в Гомеле», surname
    «Лисовская» in «Лисовской»); a multi-word city (``Ростов-на-Дону``) must occur as the
    same sequence of words; name words shorter than :data:`MIN_LEAK_LETTERS` letters and
    words the dictionary takes for given names or patronymics only are not looked for.

    Returns ``[(field label, "фамилия" | "город")]``, each pair once, in field order; the
    matched word itself is not returned (blind moderation: the message must not tell the
    editor who the author is).
    """
    needles = _needles(authors)
    if not needles:
        return []
    starts = {
        x.translate(_BE_TO_RU)[:2]
        for _, needle in needles
        for word in needle.words
        for x in (*word.lemmas, word.stem)
    }
    found: list[tuple[str, str]] = []
    for label, text in fields.items():
        words = [w for w in matching_key(text or "").split() if w.isalpha()]
        # Only words that begin like some name or city word are analysed (pymorphy3 takes
        # about a millisecond a word here); inflection keeps the first two letters.
        lemmas = [
            _lemmas(w) if w.translate(_BE_TO_RU)[:2] in starts else frozenset({w}) for w in words
        ]
        for kind, needle in needles:
            n = len(needle.words)
            hit = any(
                all(needle.words[j].found_in(words[i + j], lemmas[i + j]) for j in range(n))
                for i in range(len(lemmas) - n + 1)
            )
            if hit and (label, kind) not in found:
                found.append((label, kind))
    return found


# --- handout referenced but missing -------------------------------------------------------

_HANDOUT_WORDS = re.compile(
    r"раздаточн\w*\s+материал\w*|\bраздатк\w*|"
    r"\bперед\s+вами\b|\bу\s+вас\s+(?:на\s+столе|в\s+руках)\b|"
    r"\bна\s+(?:этом\s+|этой\s+|данном\s+|данной\s+|нашем\s+|нашей\s+)?"
    r"(?:фото|рисунк(?:е|ах)|изображени(?:и|ях)|снимк(?:е|ах)|схем(?:е|ах)|раздатк\w*)\b|"
    # Belarusian: «раздатачны матэрыял», «раздатка», «перад вамі», «на фота/малюнку»
    r"раздатачн\w*\s+матэрыял\w*|\bперад\s+вам[іi]\b|"
    r"\bна\s+(?:гэтым\s+|гэтай\s+)?(?:фота|малюнк(?:у|ах)|здымк(?:у|ах)|выяв(?:е|ах))\b",
    re.IGNORECASE,
)
_INLINE_HANDOUT = re.compile(
    r"\[\s*Раздаточный материал\s*:|<раздатка>|\(img\b|\(pic:|"
    # a «Раздаточный материал[:]» line with the handout on the next lines (4s and db texts
    # written by hand, as in ../shared/data/chgk/)
    r"^[ \t]*(?:Раздаточный материал|Раздатачны матэрыял)[ \t]*:?[ \t]*\n\s*\S",
    re.IGNORECASE | re.MULTILINE,
)


def handout_reference(text: str) -> str | None:
    """The words of ``text`` that first refer to a handout, as written (spaces collapsed),
    or None: «раздаточный материал», «раздатка», «перед вами», «у вас на столе»,
    «на фото / рисунке / изображении / снимке / схеме» (not «на картине» or «на фотографии»:
    questions describe paintings and photographs in words all the time), and Belarusian
    «раздатачны матэрыял», «перад вамі», «на фота / малюнку / здымку / выяве»."""
    m = _HANDOUT_WORDS.search(text or "")
    return " ".join(m.group(0).split()) if m else None


def has_handout(
    handout: str | None, handout_image: str | None, texts: Sequence[str | None]
) -> bool:
    """Whether the question carries its handout: handout text, an uploaded image, or an
    inline handout in one of ``texts`` — the importer's ``[Раздаточный материал: …]``
    block (4s; db ``<раздатка>`` is turned into it), an ``(img …)`` or ``(pic: …)``
    reference (``webapp.domain.packets``)."""
    if (handout or "").strip() or handout_image:
        return True
    return any(_INLINE_HANDOUT.search(t or "") for t in texts)
