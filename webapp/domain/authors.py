"""One author per person: matching authors across spellings, and the rule
"no author twice in one game" on the person behind the author rows. Pure: standard library.

A packet may write one man «Дмитрий Шахлов (Рига)» on one question and «Дмитрий Шахлов» on
the next; the intake makes one author row per name and city (or per e-mail address), so
he becomes two rows. :func:`match` says whether two rows are *likely* one person; an editor
decides (the merge is an explicit, audited action: ``webapp.authors.operations``). A merged
row keeps pointing at the surviving one (``author.merged_into_id``), so the rule of the
game (:func:`repeated_authors`) counts persons, not rows.

Reading of "e-mail when present" (an address typed into a form proves nothing):
only a *confirmed* address counts — one whose owner followed the e-mailed confirmation link
(or an editor confirmed the author on a question). Two rows never share an address (the
intake finds the author by it), so a confirmed address is a veto, not a match: two rows
with two different confirmed addresses are two people who each proved their own address,
and are not suggested. An unconfirmed address is ignored: it neither suggests nor vetoes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "AuthorKey",
    "Match",
    "Repeat",
    "fold_name",
    "match",
    "payee_may_be_author",
    "person",
    "repeated_authors",
    "suggest",
    "translit_key",
]

_SPACE = re.compile(r"\s+")
_PUNCT = re.compile(r"[\s.,;:()«»\"'’‘`-]+")


def fold_name(text: str | None) -> str:
    """A name or a city folded for comparison: NFC, case folded, ``ё`` → ``е``, stress
    marks dropped, punctuation and runs of spaces made one space, trimmed.

    ``"Дмитрий  ШАХЛОВ"`` → ``"дмитрий шахлов"``; ``"Пётр Ёлкин"`` → ``"петр елкин"``;
    ``None`` → ``""``. Never raises."""
    if not text:
        return ""
    decomposed = unicodedata.normalize("NFD", text)
    # drop combining stress marks (U+0301, U+0300) but keep the breve of й and the diaeresis
    # of ё, which NFC recomposes; ё itself is folded to е below
    kept = "".join(c for c in decomposed if c not in "\u0301\u0300")
    folded = unicodedata.normalize("NFC", kept).casefold().replace("ё", "е")
    return _SPACE.sub(" ", _PUNCT.sub(" ", folded)).strip()


_APOSTROPHES = re.compile("['ʼ’`]")

# One key per sound for the letters the Cyrillic alphabets of the authors (Russian,
# Belarusian, Ukrainian) and their Latin spellings write differently: «Дзмітрый» and
# «Дзмитрый», «Алеў» and «Алеу», «Yanka» and «Янка» fold alike. Letters that are the same
# in every alphabet map to themselves' Latin reading.
_TRANSLIT = str.maketrans(
    {
        **dict(zip("абгдзклмнопрстф", "abgdzklmnoprstf", strict=True)),
        **{c: "i" for c in "иіїйыjy"},
        # Belarusian ў stands for Russian у and в alike (Дзмітрыеў/Дмитриев, Аўсянік/Авсяник)
        **{c: "u" for c in "уўвwv"},
        **{c: "e" for c in "еэєё"},
        **{c: "" for c in "ъь'ʼ’"},
        "ґ": "g",
        "h": "g",
        "ж": "zh",
        "х": "kh",
        "ц": "ts",
        "ч": "ch",
        "ш": "sh",
        "щ": "shch",
        "ю": "iu",
        "я": "ia",
        "x": "ks",
        "c": "ts",
        "q": "k",
    }
)


def translit_key(word: str) -> str:
    """A folded word (:func:`fold_name`) as one key for its Russian, Belarusian, Ukrainian
    and Latin spellings: ``"дзмітрыеў"`` and ``"дзмитриев"`` → ``"dzmitrieu"``;
    ``"янка"`` and ``"yanka"`` → ``"ianka"``. Never raises."""
    return word.translate(_TRANSLIT)


#: What a person's declared full name may hold besides letters (and their combining
#: marks), digits (an author named as the question gave it, «Автор 1») and spaces: a hyphen (Римский-Корсаков), an apostrophe (Д'Артаньян, Мар'ян), a
#: full stop (an initial).
NAME_MARKS = frozenset("-'’.")


def payee_may_be_author(author_name: str | None, declared_full_name: str | None) -> bool:
    """Whether the full name a payee declared with their details can be the author's name
    as the question gave it (a warning for the accountant before the agreement is signed,
    not a refusal: the agreement names the payee as declared).

    Every word of the folded author name (:func:`fold_name`) must be a word of the declared
    name, each matching a declared word of its own; a one-letter word of the author name (an
    initial) matches a declared word starting with it. The declared name may put the surname
    first and add **one** word, the patronymic — a second added word is another name
    («Иванов Пётр Анна Победитель» is not «Пётр Иванов»). Words compare on their
    transliteration key (:func:`translit_key`), so a Belarusian spelling (і/и, ў/у, ы/и,
    the apostrophe) or a Latin one matches the Russian. The declared name holds only
    letters, digits, spaces and :data:`NAME_MARKS`: anything else (``=``, ``(``, ``@``,
    ``"``, a spreadsheet formula) is no name. Nothing declared yet (empty) → True.
    ``("Максим Соколов", "Соколов Максим Петрович")`` → True; ``("М. Соколов", "Соколов
    Максим")`` → True; ``("Максим Соколов", "Максим Мерзляков")`` → False;
    ``("Пётр Ёлкин", "ЕЛКИН ПЕТР")`` → True; ``("Пётр Иванов", "Иванов Пётр Анна
    Победитель")`` → False; ``("Пётр Иванов", '=HYPERLINK("http://x";"Иванов Пётр")')`` →
    False."""
    if not declared_full_name or not declared_full_name.strip():
        return True
    if any(
        not (c.isalnum() or c.isspace() or c in NAME_MARKS or unicodedata.category(c)[0] == "M")
        for c in declared_full_name
    ):
        return False

    def keys(name: str | None) -> list[str]:
        # the apostrophe is a letter's mark inside a word («Мар'я»), not a break
        return [translit_key(w) for w in fold_name(_APOSTROPHES.sub("", name or "")).split()]

    declared = keys(declared_full_name)
    unmatched = list(range(len(declared)))
    for word in keys(author_name):
        fits = [
            i
            for i in unmatched
            if (declared[i].startswith(word) if len(word) == 1 else declared[i] == word)
        ]
        if not fits:
            return False
        unmatched.remove(fits[0])
    return len(unmatched) <= 1


@dataclass(frozen=True)
class AuthorKey:
    """What matching sees of one author row: ``id``, ``name`` and ``city`` as first given,
    ``email`` — the keyed hash of the address when it is *confirmed*, else None (an
    unconfirmed address counts for nothing, module doc)."""

    id: int
    name: str
    city: str | None = None
    email: str | None = None


@dataclass(frozen=True)
class Match:
    """A likely pair: ``a`` and ``b`` (``a.id < b.id``) and ``reason``:
    ``"name_city"`` (same folded name and city) or ``"name_no_city"`` (same folded name,
    one of them without a city)."""

    a: AuthorKey
    b: AuthorKey
    reason: str


REASONS_RU = {
    "name_city": "то же имя и город",
    "name_no_city": "то же имя, у одного город не указан",
}
"""The Russian phrase of each :attr:`Match.reason` for the editor's page."""


def match(a: AuthorKey, b: AuthorKey) -> str | None:
    """Whether ``a`` and ``b`` are likely one person: the :attr:`Match.reason`, or None.

    Same folded name (:func:`fold_name`: case, ``ё``, stress, punctuation) and — the city
    optional when the name is the same — the same folded city or one of the two without a
    city. Never a match: the same row, an empty name, two different cities, or two
    different confirmed addresses (two people who each proved their own, module doc)."""
    if a.id == b.id:
        return None
    name = fold_name(a.name)
    if not name or name != fold_name(b.name):
        return None
    if a.email and b.email and a.email != b.email:
        return None
    city_a, city_b = fold_name(a.city), fold_name(b.city)
    if city_a and city_b:
        return "name_city" if city_a == city_b else None
    return "name_no_city"


def suggest(authors: Iterable[AuthorKey]) -> list[Match]:
    """Every likely pair among ``authors`` (:func:`match`), grouped by folded name: pairs
    ordered by the folded name, then by ``(a.id, b.id)``. O(n) grouping plus the pairs
    within a name."""
    by_name: dict[str, list[AuthorKey]] = {}
    for author in authors:
        key = fold_name(author.name)
        if key:
            by_name.setdefault(key, []).append(author)
    out: list[Match] = []
    for key in sorted(by_name):
        group = sorted(by_name[key], key=lambda x: x.id)
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                reason = match(a, b)
                if reason is not None:
                    out.append(Match(a, b, reason))
    return out


def person(author_id: int, merged_into: Mapping[int, int]) -> int:
    """The person behind author row ``author_id``: the row it was merged into (followed to
    the end; ``merged_into``: ``{row id: row it was merged into}``), else itself."""
    seen = {author_id}
    while author_id in merged_into:
        author_id = merged_into[author_id]
        if author_id in seen:  # a cycle cannot be made by a merge; stop rather than loop
            break
        seen.add(author_id)
    return author_id


@dataclass(frozen=True)
class Repeat:
    """A person a second time in one game: ``where`` (the later place), ``first`` (the
    place the person already has), ``person`` (the surviving author id), ``author_id``
    (the author row of the later place) and ``display`` (its byline as printed)."""

    where: str
    first: str
    person: int
    author_id: int
    display: str


def repeated_authors(
    placed: Sequence[tuple[str, Sequence[tuple[int, str]]]], merged_into: Mapping[int, int]
) -> list[Repeat]:
    """The rule "no author twice in one game" (its clause: a book's ``one_author_rule``) on persons.

    ``placed``: the game's questions in table order, each ``(where, [(author id, byline),
    …])`` — ``where`` a label such as ``"сектор 3, вопрос 1"``; ``merged_into`` as for
    :func:`person`. Returns each later place of a person already placed (empty when the
    rule holds), so two rows merged into one count as one author."""
    seen: dict[int, str] = {}
    out: list[Repeat] = []
    for where, authors in placed:
        here: set[int] = set()
        for author_id, display in authors:
            who = person(author_id, merged_into)
            if who in seen and who not in here:
                out.append(Repeat(where, seen[who], who, author_id, display))
            else:
                seen.setdefault(who, where)
            here.add(who)
    return out
