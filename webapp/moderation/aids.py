"""Editors' aids of the pre-check: the answer's words leaked into the question
(``answer_leak``).

Pure functions over strings (no database, no Flask), like ``webapp.moderation.checks``:
``run_checks`` in ``webapp.moderation.operations`` feeds them a question's fields and stores
each result in ``ModerationReport.checks``. Offline: the Russian morphology dictionary ships
inside ``pymorphy3-dicts-ru``, the Snowball stemmer (``snowballstemmer``) is pure Python.

Words are compared by :func:`webapp.domain.text.matching_key` (case, ``ё``/``е`` and stress
marks folded), so a stress mark an editor adds never hides or makes a hit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from webapp.domain.text import matching_key
from webapp.submissions.names import morph_analyzer

__all__ = [
    "EDITORIAL_WORDS",
    "LeakHit",
    "answer_leaks",
    "answer_words",
    "highlight",
    "word_key",
]

#: A word as written: letters, with stress marks (U+0301) inside it; a hyphenated compound
#: (``рыба-молот``, ``Хуан-Фернандес``) is one word.
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|\u0301|-(?=[^\W\d_]))*")
# innermost brackets: removed again until none is left («[слово, где th [ти эйч] …]»)
_BRACKETED = re.compile(r"\[[^\[\]]*\]|\([^()]*\)")

#: Editorial words of an answer («[любое] слово по смыслу», «засчитывается …»): never
#: taken for the answer's own words.
EDITORIAL_WORDS = frozenset(
    """
    слово слова словом любой любая любое любые любого любую смысл смыслу смысла ответ ответы
    ответа засчитывается засчитываются засчитывать принимается принимаются принимать зачет
    незачет упоминание упоминанием синоним синонимы формулировка формулировки вариант
    варианты точный точного точное прямой прямого прямое подобное подобные аналогичный
    аналогичные т п др тп и или либо etc
    слова слоў любы любая любое любыя сэнсе сэнсу адказ залічваецца прымаецца
    """.split()
)

# Function words of Russian and Belarusian that never count as a leak, beside what the
# dictionary tags as a preposition, conjunction, particle, interjection, pronoun or
# predicative (``_STOP_POS``): the pronoun-adjectives and the commonest verbs and nouns of a
# question's frame («этот», «быть», «год»), and Belarusian, which the Russian dictionary
# does not know.
STOP_WORDS = frozenset(
    """
    этот эта это эти этого этой этом этим этих тот та то те того той тем тех весь вся все
    всё всего всей всем всех свой своя свое свои такой такая такое такие который которая
    которое которые один одна одно одни быть был была было были есть будет стать является
    мочь может можно нужно нельзя очень также тоже еще уже даже только лишь год года году
    годы лет раз время самый самая самое самые сам сама само сами какой какая какое какие
    наш наша наше наши ваш ваша ваше ваши его ее их каждый каждая каждое каждые другой
    другая другое другие иной иная иное иные всякий некоторый никакой
    гэты гэта гэтае гэтыя гэтага той тая тое тыя увесь уся усё усе свой свая сваё свае
    такі такая такое такія які якая якое якія адзін адна адно быць быў была было былі ёсць
    будзе можа трэба таксама яшчэ ужо нават толькі год года годзе гадоў раз час самы сама
    і й у ў ды а але ці не ні на ў з са да ад па пра пры для каля праз над пад перад пасля
    без што хто як дзе калі чаму ён яна яно яны мы вы я ты яго яе іх ім нам вам
    """.split()
)
_STOP_POS = {"PREP", "CONJ", "PRCL", "INTJ", "NPRO", "PRED", "NUMR"}
#: Words shorter than this (in letters) are not looked for: «ум», «ад» match by chance.
MIN_LETTERS = 3
#: A Snowball stem shorter than this is not compared at all («пол» of «поло» and «поля»):
#: such a word matches only by its forms.
MIN_STEM = 4
#: A Snowball stem this long or longer matches the start of any longer stem (a derived
#: word: ``пушкин`` → ``пушкинск``); a shorter one (of three letters or more) only
#: when what follows it is one of :data:`DERIVING_SUFFIXES` (``цар`` → ``царск``, not
#: ``цар`` → ``царапин``).
MIN_DERIVED_STEM = 5
#: The Russian derivational suffixes a Snowball stem of a derived word adds to its root's
#: stem (adjectives ``-ск-``, ``-ов-``, ``-ин-``, ``-н-``; nouns ``-ник``, ``-ость``,
#: ``-ство``, ``-ист``, ``-изм``, ``-ец``, diminutives ``-к-``, ``-ик``).
DERIVING_SUFFIXES = frozenset(
    "ск еск овск ов ев ин н нн енн ник чик щик ост ств тв ист изм ец к ик ок ек очк ечк".split()
)
_BE_TO_RU = str.maketrans({"і": "и", "ў": "у"})


@cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("russian")


def word_key(word: str) -> str:
    """The folded form of one word (``"Му́ррена"`` → ``"муррена"``, ``"Рыба-молот"`` →
    ``"рыба-молот"``): lower case, ``ё`` → ``е``, stress marks and Latin look-alikes folded
    (:func:`matching_key`), a compound's hyphens kept."""
    return "-".join(matching_key(part).replace(" ", "") for part in word.split("-"))


@lru_cache(maxsize=65536)
def _analysis(key: str) -> tuple[frozenset[str], str, bool]:
    """``(normal forms, Snowball stem, is a function word)`` of one folded word; Belarusian
    letters are read as their Russian counterparts (``і`` → ``и``, ``ў`` → ``у``)."""
    folded = key.translate(_BE_TO_RU)
    parses = morph_analyzer().parse(folded)
    lemmas = frozenset({folded} | {p.normal_form.replace("ё", "е") for p in parses})
    first = parses[0] if parses else None
    stop = (
        key in STOP_WORDS
        or folded in STOP_WORDS
        or first is not None
        and (
            first.tag.POS in _STOP_POS
            or "Apro" in first.tag
            or first.normal_form.replace("ё", "е") in STOP_WORDS
        )
    )
    return lemmas, _stemmer().stemWord(folded), stop


def answer_words(answer: str) -> list[str]:
    """The words of a main answer that are looked for, folded, each once, in order: its
    first line only (a packet's later lines are a stray comment or source), bracketed
    parts (``[…]``, ``(…)``) left out, then :data:`EDITORIAL_WORDS`, function
    words (:data:`STOP_WORDS` and the dictionary's prepositions, conjunctions, particles,
    pronouns) and words under :data:`MIN_LETTERS` letters; and the noun right after an
    adjective (``«Полярная звезда»``: ``звезда``), which names the kind of thing asked
    («эта звезда») and is not looked for alone, its adjective is.
    ``"[Любое] слово со смыслом «кошка» (Мурка)"`` → ``["кошка"]``;
    ``"Большое Солёное озеро"`` → ``["большое", "соленое"]``."""
    out: list[str] = []
    first_line = (answer or "").strip().split("\n", 1)[0]
    after_adjective = False
    while _BRACKETED.search(first_line):
        first_line = _BRACKETED.sub(" ", first_line)
    for m in WORD.finditer(first_line):
        key = word_key(m.group(0))
        was_after, after_adjective = after_adjective, _is_adjective(key)
        if len(key) < MIN_LETTERS or key in out:
            continue
        lemmas, _stem, stop = _analysis(key)
        if (
            stop
            or key in EDITORIAL_WORDS
            or lemmas & EDITORIAL_WORDS
            or was_after
            and _is_noun(key)
        ):
            continue
        out.append(key)
    return out


def _first_tag(key: str):
    parses = morph_analyzer().parse(key.translate(_BE_TO_RU))
    return parses[0].tag if parses else None


def _is_adjective(key: str) -> bool:
    tag = _first_tag(key)
    return tag is not None and tag.POS in {"ADJF", "PRTF"} and "Apro" not in tag


def _is_noun(key: str) -> bool:
    tag = _first_tag(key)
    return tag is not None and tag.POS == "NOUN"


def _matches(needle: str, key: str) -> bool:
    """Whether the text's word ``key`` is a form or a derivative of the answer's word
    ``needle`` (both folded): the same word, a shared normal form (``кошки`` / ``кошка``),
    the same Snowball stem of at least :data:`MIN_STEM` letters, or a derived word whose
    stem starts with the needle's: any continuation of a stem of at least
    :data:`MIN_DERIVED_STEM` letters (``пушкинский`` ← ``Пушкин``), one of
    :data:`DERIVING_SUFFIXES` after a shorter one (``царский`` ← ``царь``)."""
    if key == needle:
        return True
    if len(key) < MIN_LETTERS:
        return False
    n_lemmas, n_stem, _ = _analysis(needle)
    k_lemmas, k_stem, k_stop = _analysis(key)
    if k_stop:
        return False
    if n_lemmas & k_lemmas:
        return True
    if len(n_stem) >= MIN_STEM and n_stem == k_stem:
        return True
    # The stem, and the roots of the normal forms: Snowball takes «-ом», «-ан» of a
    # foreign word for an ending (``альбом`` → ``альб``), the root keeps them (``альбом``).
    if len(n_stem) >= MIN_DERIVED_STEM and k_stem.startswith(n_stem):
        return True
    for base in {n_stem} | {_root(lemma) for lemma in n_lemmas}:
        if len(base) >= MIN_LETTERS and k_stem.startswith(base):
            rest = k_stem[len(base) :]
            if rest in DERIVING_SUFFIXES or not rest and len(base) >= MIN_STEM:
                return True
    return False


def _root(lemma: str) -> str:
    """A normal form without its final vowels, ``ь`` and ``й`` (``открыть`` → ``открыт``,
    ``банан`` → ``банан``)."""
    return lemma.rstrip("аяоеьйыиуюэ")


@dataclass(frozen=True)
class LeakHit:
    """One leak: the answer's ``word`` (folded), the text's word ``found`` as written
    (stress marks kept) and ``where`` (the field's Russian label)."""

    word: str
    found: str
    where: str

    def as_dict(self) -> dict[str, str]:
        return {"word": self.word, "found": self.found, "where": self.where}


def answer_leaks(answer: str, fields: dict[str, str | None]) -> list[LeakHit]:
    """The answer's words found in the question's texts.

    ``answer``: the main answer (not the accepted or rejected ones); ``fields``: the
    field's Russian label → its text (``{"вопрос": …, "раздаточный материал": …}``).
    Each answer word of :func:`answer_words` is matched against each word of the texts by
    :func:`_matches`, except words written in capitals (of two letters or more): by the
    game's convention they stand for what the answer replaces («налёт на ЭТИ ОСТРОВА» for
    «Гавайские острова»), so the answer's generic word echoed there is the question's
    form, not a leak. Returns the hits in field order and text order, each (word, field,
    found) once: answer «Пушкин», question «…пушкинский музей…» →
    ``[LeakHit("пушкин", "пушкинский", "вопрос")]``."""
    needles = answer_words(answer)
    if not needles:
        return []
    hits: list[LeakHit] = []
    for where, text in fields.items():
        for m in WORD.finditer(text or ""):
            if _placeholder(m.group(0)):
                continue
            key = word_key(m.group(0))
            for needle in needles:
                if _matches(needle, key):
                    hit = LeakHit(needle, m.group(0), where)
                    if hit not in hits:
                        hits.append(hit)
    return hits


def _placeholder(word: str) -> bool:
    """A word in capitals of two letters or more (``ЭТИ``, ``ОСТРОВА``; not ``Я``)."""
    letters = word.replace("\u0301", "")
    return len(letters) >= 2 and letters.isupper()


def highlight(text: str, found: Iterable[str]) -> list[tuple[str, bool]]:
    """``text`` cut into ``(piece, is a hit)`` pieces, the hits being the words whose
    folded form is that of one of ``found`` (:attr:`LeakHit.found`); joined back, the
    pieces are ``text``. ``highlight("Кот и кошки", ["кошки"])`` →
    ``[("Кот и ", False), ("кошки", True)]``."""
    keys = {word_key(f) for f in found}
    pieces: list[tuple[str, bool]] = []
    last = 0
    for m in WORD.finditer(text or ""):
        if word_key(m.group(0)) in keys:
            if m.start() > last:
                pieces.append((text[last : m.start()], False))
            pieces.append((m.group(0), True))
            last = m.end()
    if last < len(text or ""):
        pieces.append((text[last:], False))
    return pieces


# --- names to stress ----------------------------------------------------------------------

STRESS_MARK = "\u0301"
#: Known Russian homographs, as written without a stress mark: the host must be told
#: which one is meant (за́мок / замо́к, му́ка / мука́, а́тлас / атла́с…).
HOMOGRAPHS = frozenset(
    """
    замок замка замке замку замки замков мука муки муку мукой атлас атласа атласе атласом
    орган органа органе органы органов хлопок хлопка кирка кирки кирку ирис ириса ирисы
    полки белки стрелки стрелками духи духов парить пропасть ворона вороны сорока сороки
    трусы угольный уже потом занятой
    """.split()
)
_NAME_TAGS = {"Name", "Surn", "Patr", "Geox", "Orgn"}
_SENTENCE_END = re.compile(r"[.!?…]\s*$")
_VOWEL = re.compile(r"[аеёиоуыэюяі]", re.IGNORECASE)


def vowels(word: str) -> list[int]:
    """The indexes in ``word`` of its Cyrillic vowel letters (one per syllable):
    ``vowels("Муррен")`` → ``[1, 4]``."""
    return [m.start() for m in _VOWEL.finditer(word)]


def with_stress(word: str, vowel: int) -> str:
    """``word`` with a stress mark after its ``vowel``-th vowel (0-based):
    ``with_stress("Муррен", 0)`` → ``"Му́ррен"``. ``IndexError`` past its last vowel."""
    at = vowels(word)[vowel] + 1
    return word[:at] + STRESS_MARK + word[at:]


def stress_vowel(marked: str) -> int | None:
    """Which vowel (0-based) of ``marked`` carries its stress mark, or None:
    ``stress_vowel("Му́ррен")`` → 0."""
    at = marked.find(STRESS_MARK)
    if at <= 0:
        return None
    found = [i for i, v in enumerate(vowels(marked)) if v == at - 1]
    return found[0] if found else None


def names_to_stress(text: str) -> list[str]:
    """The words of ``text`` the host may stress wrongly, as written, each once, in order:
    words of two syllables or more, in Cyrillic, without a stress mark, that are

    * proper names: capitalised (not in capitals) and either known to the Russian
      dictionary as a name, surname, patronymic, place or organisation (pymorphy3's tags
      Name, Surn, Patr, Geox, Orgn), or unknown to it and not the first word of a
      sentence (a foreign or rare name: «Муррен»; the first word of a sentence cannot be
      told from an ordinary word by its capital, Belarusian ones included);
    * known homographs (:data:`HOMOGRAPHS`: «замок», «мука», «атлас»).

    ``"Фильм снял Деннис Муррен в замке."`` → ``["Деннис", "Муррен", ...]``."""
    out: list[str] = []
    text = text or ""
    for m in WORD.finditer(text):
        word = m.group(0)
        if STRESS_MARK in word or word in out or len(vowels(word)) < 2:
            continue
        key = word_key(word)
        if key in HOMOGRAPHS:
            out.append(word)
            continue
        if not (word[0].isupper() and not word.isupper()) or "-" in word:
            continue
        folded = key.translate(_BE_TO_RU)
        morph = morph_analyzer()
        if morph.word_is_known(folded):
            if _NAME_TAGS & set(morph.parse(folded)[0].tag.grammemes):
                out.append(word)
        elif not _sentence_start(text, m.start()):
            out.append(word)
    return out


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t«\"'(—–-")
    return not before or before.endswith("\n") or _SENTENCE_END.search(before) is not None
