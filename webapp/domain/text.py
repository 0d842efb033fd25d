"""Text normalisation for question texts (pure: standard library only).

Two different jobs live here and must not be confused:

* :func:`normalise` cleans text that we *store* (viewer submissions, parsed
  packets). It is conservative: it never changes letters, quotes or stress
  marks, because those are part of what gets printed.
* :func:`matching_key` builds a throw-away key for duplicate search. It folds
  aggressively (case, ё/е, stress, quotes, punctuation, Latin/Cyrillic look-alikes)
  and its result is never shown or stored in place of the original.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable

__all__ = [
    "COMBINING_ACUTE",
    "FSI",
    "PDI",
    "fold_stress",
    "has_control_chars",
    "isolate",
    "matching_key",
    "normalise",
    "plural",
    "quantity",
    "ru_plural",
    "stress_caps_to_acute",
    "team_phrase",
]

COMBINING_ACUTE = "\u0301"

# Zero-width and bidi formatting characters removed by normalise().
_FORMAT_CHARS = (
    [chr(c) for c in range(0x200B, 0x2010)]  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    + ["\u2060", "\ufeff"]  # word joiner, BOM / ZWNBSP
    + [chr(c) for c in range(0x202A, 0x202F)]  # LRE, RLE, PDF, LRO, RLO
    + [chr(c) for c in range(0x2066, 0x206A)]  # LRI, RLI, FSI, PDI
)
_FORMAT_RE = re.compile("[" + "".join(_FORMAT_CHARS) + "]")
_TRAILING_SPACES = re.compile(r"[ \t]+$", re.MULTILINE)


#: FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (Unicode Bidirectional Algorithm,
#: UAX #9 §2.7): what :func:`isolate` puts around a name.
FSI = "\u2068"
PDI = "\u2069"

# The bidi classes that reorder their neighbours in a left-to-right line: right-to-left
# letters (R: Hebrew, and the RLM mark; AL: Arabic, Syriac, Thaana) and Arabic digits (AN).
_RTL_CLASSES = frozenset({"R", "AL", "AN"})


def isolate(name: str) -> str:
    """``name``, typed by a person, set off from the sentence it is put in by FSI … PDI
    (:data:`FSI`, :data:`PDI`), for text that cannot carry markup (a label built in Python,
    a ``<title>``, a printed header; an HTML page puts ``<bdi>`` around what it interpolates).
    Without it a right-to-left name draws the punctuation and the number after it into its
    own run: «сезон «Сезон 2023 🦉 שלום», № 1» is shown as «сезон «Сезон 2023 🦉 1 № ,«שלום».

    Only a name holding a right-to-left character (bidi class R, AL or AN) is wrapped: one
    without cannot move its neighbours in a left-to-right line whose right-to-left names are
    all isolated, so a Cyrillic or Latin name stays exactly as typed, with nothing invisible
    in what is copied from the page or compared. ``""`` stays ``""``."""
    if name.isascii() or not any(unicodedata.bidirectional(c) in _RTL_CLASSES for c in name):
        return name
    return f"{FSI}{name}{PDI}"


def ru_plural(n: int, forms: tuple[str, str, str]) -> str:
    """Russian plural form for ``n`` of the forms (one, few, many): 1 рубль, 2 рубля,
    5 рублей, 11 рублей, 21 рубль; ``ru_plural(4, ("игра", "игры", "игр"))`` → ``"игры"``."""
    if n % 10 == 1 and n % 100 != 11:
        return forms[0]
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return forms[1]
    return forms[2]


def plural(n: int, forms: tuple[str, ...]) -> str:
    """The form of a noun for ``n`` — the one plural helper of every page, PDF and message.
    Three forms (one, few, many) are Russian or Belarusian (CLDR's rule for both, as
    :func:`ru_plural`): ``plural(21, ("вопрос", "вопроса", "вопросов"))`` → ``"вопрос"``,
    ``plural(3, ("дзень", "дні", "дзён"))`` → ``"дні"``; two forms (one, other) are English:
    ``plural(1, ("day", "days"))`` → ``"day"``, 0 and 2 → ``"days"``. ``ValueError`` for
    another number of forms."""
    if len(forms) == 2:
        return forms[0] if n == 1 else forms[1]
    if len(forms) == 3:
        return ru_plural(n, (forms[0], forms[1], forms[2]))
    raise ValueError(f"plural: 2 (English) or 3 (Russian, Belarusian) forms, not {len(forms)}")


def quantity(n: int, forms: tuple[str, ...]) -> str:
    """``n`` and its noun (:func:`plural`): ``quantity(1, ("вопрос", "вопроса", "вопросов"))``
    → ``"1 вопрос"``, 20 → ``"20 вопросов"``; ``quantity(2, ("hour", "hours"))`` →
    ``"2 hours"``."""
    return f"{n} {plural(n, forms)}"


def team_phrase(name: str, *, capital: bool = False, quotes: bool = True) -> str:
    """A team named in a sentence: ``"Королёва"`` → ``"команда «Королёва»"`` (``capital``:
    ``"Команда «Королёва»"``; ``quotes=False``: ``"команда Королёва"``); a name that already
    says it is a team (starts with «команда», any case) is not prefixed again:
    ``"Команда Евгения Стихина"`` → ``"Команда Евгения Стихина"`` (never «команда Команда …»).
    An empty name gives ``""``."""
    name = (name or "").strip()
    if not name:
        return ""
    if name.casefold().startswith("команда"):
        return name
    word = "Команда" if capital else "команда"
    return f"{word} «{name}»" if quotes else f"{word} {name}"


def normalise(s: str) -> str:
    """Return ``s`` cleaned for storage.

    Steps: CRLF and lone CR become LF; Unicode NFC; zero-width and bidi format
    characters (U+200B–U+200F, U+2060, U+FEFF, U+202A–U+202E, U+2066–U+2069)
    are removed; spaces and tabs at the end of every line are stripped.
    Letters, quotes, dashes and stress marks (U+0301) are left alone.
    Idempotent. Never raises for a ``str`` argument.
    """
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = unicodedata.normalize("NFC", s)
    s = _FORMAT_RE.sub("", s)
    return _TRAILING_SPACES.sub("", s)


def has_control_chars(s: str) -> bool:
    """True if ``s`` contains a C0/C1 control character other than ``\\n`` and ``\\t``, or
    a lone surrogate (U+D800–U+DFFF: only a JSON escape can make one; no database stores it).

    (``\\r`` counts as a control character: call :func:`normalise` first if CRLF
    line ends are acceptable.)
    """
    return _CONTROL.search(s) is not None


# Category Cc (C0 and C1 controls, DEL) but "\n" and "\t", and Cs (lone surrogates): one
# regular expression instead of a category look-up per character (the parser checks every
# packet's whole text). Equal to the category rule on every code point (tested).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def fold_stress(s: str) -> str:
    """Remove combining acute accents (U+0301, stress marks): ``"Свентови́т"`` → ``"Свентовит"``.

    For matching only; stored text keeps its stress marks.
    """
    return s.replace(COMBINING_ACUTE, "")


_CYR_LOWER = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
_CYR_UPPER = _CYR_LOWER.upper()
#: A run of Russian letters: the unit a capital-vowel stress mark is read in.
CYR_WORD = re.compile(f"[{_CYR_LOWER}{_CYR_UPPER}]+")
_STRESSABLE = set("АОУЫЭЯЕЮИ")
# "МакАртур", "О'Нил": a capital after these prefixes is a name, not stress.
_NOT_STRESS_PREFIXES = {"Мак", "мак", "О'", "о’", "О’", "о'"}


def stress_word(word: str) -> str:
    """``word`` with each capital vowel inside it (the way viewers mark stress, «вОдка»)
    made a lower-case vowel with a combining acute; names such as «МакАртур» and all-caps
    words are left as they are."""
    if len(word) < 2 or word.upper() == word:
        return word  # one letter or an all-caps word ("ИКС", "ОН"): not stress
    out: list[str] = [word[0]]
    n = len(word)
    for i in range(1, n):
        c = word[i]
        if (
            c in _STRESSABLE
            and word[:i] not in _NOT_STRESS_PREFIXES
            and (i == 1 or not word[i - 1].isupper())
            and (i + 1 == n or not word[i + 1].isupper())
        ):
            out.append(c.lower() + COMBINING_ACUTE)
        else:
            out.append(c)
    return "".join(out)


def stress_caps_to_acute(s: str) -> str:
    """Turn db.chgk.info capital-vowel stress into U+0301 acute accents.

    In db.chgk.info texts a capital Russian vowel inside an otherwise
    lower-case word marks the stress: ``"СвентовИт"`` → ``"Свентови́т"``,
    ``"Та-СЕти"`` → ``"Та-Се́ти"``. Words are maximal runs of Cyrillic
    letters. All-caps words (``"ИКС"``, ``"ОН"``), one-letter words,
    capitals next to another capital (``"ДНКа"``) and ``Мак…`` names are
    left alone. Same rule chgksuite applies when it converts the db format.
    """
    if not _CAPITAL_INSIDE.search(s):
        return s  # no capital vowel after a Cyrillic letter: no word would change
    return CYR_WORD.sub(lambda m: stress_word(m.group(0)), s)


# Where a word can change (:func:`stress_word`): a lower-case letter then a capital
# vowel, or a word's first letter then a capital vowel not followed by another capital.
# Texts with neither (most, all-caps words like «ЭТИ» included) are returned at once.
_VOWELS = "".join(sorted(_STRESSABLE))
_CAPITAL_INSIDE = re.compile(
    f"[{_CYR_LOWER}][{_VOWELS}]"
    f"|(?<![{_CYR_LOWER}{_CYR_UPPER}])[{_CYR_LOWER}{_CYR_UPPER}][{_VOWELS}](?![{_CYR_UPPER}])"
)


# --- matching key -----------------------------------------------------------

# Latin letters that look like Cyrillic ones (lower case: applied after casefold).
_LATIN_TO_CYRILLIC = str.maketrans(
    {
        "a": "а",
        "b": "в",
        "c": "с",
        "e": "е",
        "h": "н",
        "i": "і",  # Belarusian/Ukrainian "і"
        "k": "к",
        "m": "м",
        "o": "о",
        "p": "р",
        "t": "т",
        "x": "х",
        "y": "у",
    }
)
# The same pairs the other way, for Cyrillic look-alikes inside mostly-Latin words
# ("Сlosed" typed with a Cyrillic "С"); "і", "ј", "ѕ" (Belarusian/Ukrainian, Serbian)
# have exact Latin twins too.
_CYRILLIC_TO_LATIN = str.maketrans(
    {
        **{cyr: lat for lat, cyr in zip("abcehkmoptxy", "авсенкмортху", strict=True)},
        "і": "i",
        "ј": "j",
        "ѕ": "s",
    }
)
#: A run of letters of any script: the unit homoglyphs are folded in.
WORD = re.compile(r"[^\W\d_]+")
#: A Markdown backslash escape of a punctuation character.
MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
#: The combining accents a stress mark is typed with.
STRESS_MARKS = {"\u0300", "\u0301", "\u0341"}
_KEEP_SYMBOL_CATEGORIES = {"Sc"}  # currency signs carry meaning: keep them


def _is_cyrillic(c: str) -> bool:
    return "\u0400" <= c <= "\u04ff"


def fold_homoglyphs(word: str) -> str:
    """Fold look-alikes in a word mixing Cyrillic and Latin letters (lower case) into the
    word's majority script: Latin ones into a mostly-Cyrillic word (ties go to Cyrillic),
    Cyrillic ones into a mostly-Latin word. A single-script word is returned as is."""
    cyr = sum(1 for c in word if _is_cyrillic(c))
    lat = sum(1 for c in word if "a" <= c <= "z")
    if not (cyr and lat):
        return word
    if cyr >= lat:
        return word.translate(_LATIN_TO_CYRILLIC)
    return word.translate(_CYRILLIC_TO_LATIN)


def drop_char(c: str) -> bool:
    """Whether a matching key drops ``c``: punctuation and symbols, except currency signs."""
    cat = unicodedata.category(c)
    if cat[0] == "P":
        return True
    return cat[0] == "S" and cat not in _KEEP_SYMBOL_CATEGORIES


class _CharMap(dict[str, str]):
    """What a per-character rule of :func:`matching_key` makes of each character,
    computed on the character's first use, then remembered."""

    def __init__(self, rule: Callable[[str], str]) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, c: str) -> str:
        value: str = self.rule(c)
        self[c] = value
        return value

    def apply(self, s: str) -> str:
        """``s`` with every character replaced by the rule's string: one look-up per
        distinct character and one ``str.replace`` per character that changes, instead
        of a Python step per character of every text."""
        for c in set(s):
            new = self[c]
            if new != c:
                s = s.replace(c, new)
        return s


#: Format characters (category Cf) deleted.
_NO_FORMAT = _CharMap(lambda c: "" if unicodedata.category(c) == "Cf" else c)
#: Punctuation and symbols (but currency signs) turned into spaces.
_SPACED = _CharMap(lambda c: " " if drop_char(c) else c)
_LATIN_LOWER = re.compile("[a-z]")
_CYRILLIC = re.compile("[\u0400-\u04ff]")


def matching_key(s: str) -> str:
    """Return a folded key of ``s`` for duplicate search (never store or show it).

    Folding, in order: HTML entities unescaped (repeatedly, ``&amp;quot;`` →
    ``"``); Markdown backslash escapes dropped (``\\_`` → ``_``); NFKC (NBSP →
    space, ligatures, full-width forms); format characters removed;
    capital-vowel stress (``СвентовИт``) and stress marks (U+0300/U+0301/U+0341)
    removed, also from precomposed letters (Latin ``"Хáральд"`` → ``"Харальд"``
    once the look-alike is mapped; ``"café"`` → ``"cafe"``); casefold;
    ``ё`` → ``е``; in a word mixing the two scripts, Latin look-alikes
    (a b c e h i k m o p t x y) mapped to Cyrillic when the word is mostly
    Cyrillic (ties count as Cyrillic), and Cyrillic look-alikes (а в с е н к м
    о р т х у, і ј ѕ) mapped to Latin when it is mostly Latin (``"Сlosed"``
    with a Cyrillic ``С`` → ``"closed"``); punctuation, quotes, dashes
    and symbols (except currency signs) turned into spaces; whitespace collapsed
    and stripped.

    Idempotent: ``matching_key(matching_key(s)) == matching_key(s)``.
    """
    for _ in range(5):  # "&amp;amp;quot;" needs several rounds; bounded
        unescaped = html.unescape(s)
        if unescaped == s:
            break
        s = unescaped
    s = MD_ESCAPE.sub(r"\1", s)
    s = unicodedata.normalize("NFKC", s)
    s = _NO_FORMAT.apply(s)
    s = stress_caps_to_acute(s)
    # NFD so that precomposed accented letters ("á" typed for a stressed "а")
    # lose their stress mark too; NFC afterwards recomposes "й", "ё".
    s = unicodedata.normalize("NFD", s)
    for mark in STRESS_MARKS:
        s = s.replace(mark, "")
    s = unicodedata.normalize("NFC", s)
    s = s.casefold().replace("ё", "е")
    # NFKC again: casefold can produce decomposed sequences.
    s = unicodedata.normalize("NFKC", s)
    s = _SPACED.apply(s)
    if _LATIN_LOWER.search(s) and _CYRILLIC.search(s):  # else no word mixes the scripts
        s = WORD.sub(lambda m: fold_homoglyphs(m.group(0)), s)
    return " ".join(s.split())
