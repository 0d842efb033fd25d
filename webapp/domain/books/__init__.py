"""The rule books Sova plays: one :class:`~.base.Book` per book, found in :data:`BOOKS`.

Everything that differs between rule books lives in the book's package (``b2023/``,
``b2009/``): its game rule set and the wording of the refusals only it raises (``rules.py``),
its season rule book with its refusals in Russian, Belarusian and English (``season.py``),
its prizes, donor, languages and names (``__init__``).
The engines (``webapp.domain.rules``, ``webapp.domain.season``) are handed a book and never
import this package; nothing outside it compares a book's name.

Adding a book is one folder beside the others and one line in :data:`BOOKS`. This package
also holds what needs every book at once: a citation as a person reads it (:func:`cite`,
which book a rule-book file is) and a refusal in a person's words, of a game
(:func:`refusal_text`) or of a season (:func:`season_refusal_text`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from webapp.domain.rules.errors import ProtocolError, RuleViolation
from webapp.domain.rules.refusals import LANGUAGES, WORDING, worded
from webapp.domain.rules.rulesets import split_rule
from webapp.domain.season.engine import replay_season as _replay_season
from webapp.domain.season.state import SeasonState, SeasonViolation

from .b2009 import BOOK as BOOK_2009
from .b2023 import BOOK as BOOK_2023
from .base import Book

_BOOKS: dict[str, Book] = {"2023": BOOK_2023, "2009": BOOK_2009}

BOOKS: Mapping[str, Book] = MappingProxyType(_BOOKS)
"""Every rule book a season may be played under, by its ``ruleset`` name (the protocols'
``ruleset`` field), in the order the forms offer them. Read-only: :func:`register` adds one."""

_OWN = frozenset(_BOOKS)


def register(new: Book) -> None:
    """Add ``new`` to :data:`BOOKS`, offered after the others (``ValueError`` when its name
    is taken). Sova's own books are registered above; this is how a book defined elsewhere
    (a test's) joins them, and :func:`unregister` takes it out again."""
    if new.name in _BOOKS:
        raise ValueError(f"a rule book named {new.name!r} is already registered")
    _BOOKS[new.name] = new


def unregister(name: str) -> None:
    """Take the book ``name`` added by :func:`register` out of :data:`BOOKS` again."""
    if name in _OWN:
        raise ValueError(f"the rule book {name!r} is Sova's own")
    del _BOOKS[name]


def book(name: str) -> Book:
    """The book of ``name`` (``"2023"``); ``KeyError`` for a name no book has."""
    return BOOKS[name]


def book_of_file(file: str) -> Book | None:
    """The book whose rule-book file is ``file`` (``"000_90d7c8192601ed3a.txt"``), or None."""
    return next((b for b in BOOKS.values() if b.file == file), None)


def award_label(kind: str) -> str:
    """The Russian title of the individual prize ``kind`` of whichever book has it (``kind``
    itself when none has)."""
    return next((b.awards[kind].label for b in BOOKS.values() if kind in b.awards), kind)


def trophy_label(key: str | None) -> str:
    """The Russian label of the trophy ``key`` of whichever book hands it (``""`` for None
    or a key no book has)."""
    return next((label for b in BOOKS.values() if (label := b.trophy_label(key))), "")


_CLAUSE_WORD = MappingProxyType({"ru": "п.", "be": "п.", "en": "clause"})


def cite(rule: str | None, lang: str = "ru", style: str = "page") -> str:
    """A citation as a person reads it — the one form for every page, PDF, e-mail and
    human-readable error (the machine-readable ``rule`` fields of the JSON contracts keep the
    ``"<file> §<clause>"`` form):

    - ``"002_e025d5ded135c1c4.txt §3.1"`` → ``"п. 3.1 Правил сезона 2009 г."``;
    - ``"000_90d7c8192601ed3a.txt §4.4"`` → ``"п. 4.4 Правил сезона 2023 г."``;
    - ``lang="be"`` → ``"п. 4.4 Правілаў сезона 2023 г."``; ``lang="en"`` →
      ``"clause 4.4 of the 2023 season rules"`` (another language reads as Russian);
    - a range ``"… §4.11.2–§4.11.5"`` → ``"п. 4.11.2–4.11.5 …"``;
    - ``style="paper"`` (agreements, minutes: the book's full title, Russian) →
      ``"п. 4.11.1 Положения о телевизионном проекте (правила сезона 2023 года)"``;
      ``style="column"`` (a register's narrow column) → ``"п. 4.11.1 (2023)"``.

    The book's names come from the book (:attr:`Book.names`, :attr:`Book.title_ru`). ``None``
    or ``""`` gives ``""``; a citation of an unknown book or without a clause is returned
    unchanged (never raises)."""
    source, clause = split_rule(rule or "")
    lang = lang if lang in _CLAUSE_WORD else "ru"
    found = book_of_file(source)
    if not (clause and found):
        return rule or ""
    clause = clause.replace("§", "")
    if style == "paper":
        return f"п. {clause} {found.title_ru}"
    if style == "column":
        return f"п. {clause} ({found.name})"
    return f"{_CLAUSE_WORD[lang]} {clause} {found.names[lang]}"


def rule_reference(rule: str) -> str:
    """The Russian :func:`cite` (kept under this name for its callers)."""
    return cite(rule)


def refusal_text(violation: RuleViolation, language: str = "ru") -> str:
    """What a person reads of a game engine's refusal: the sentence of its code in
    ``language`` — the book's own wording (:attr:`RuleSet.wording`) over the shared one —
    then the clause as pages cite it (:func:`cite`): ``"Помощь клуба — только когда знатоки
    проигрывают (счёт 3:3). (п. 3.7.1 Правил сезона 2023 г.)"``; in English ``"Club help
    only while the experts are behind (score 3:3). (clause 3.7.1 of the 2023 season
    rules)"``. A violation without a worded code (raised outside the engine) reads as its
    own ``message``."""
    lang = language if language in LANGUAGES else "ru"
    found = book_of_file(split_rule(violation.rule or "")[0])
    wording = WORDING if found is None else {**WORDING, **found.rules.wording}
    sentence = worded(violation, lang, wording)
    reference = cite(violation.rule, lang)
    return f"{sentence} ({reference})" if reference else sentence


def season_refusal_text(error: SeasonViolation | ProtocolError, language: str = "ru") -> str:
    """What a person reads of a season engine's refusal: its fault in ``language``
    (``"ru"``, ``"be"``, ``"en"``; another reads as Russian) — the text the engine or the
    book raised it with (:attr:`SeasonViolation.texts`) — then the clause as pages cite it
    (:func:`cite`): ``"«Потапова» уже играла в весенней серии и отказаться от неё больше не
    может (п. 4.8.1 Правил сезона 2023 г.)"``; in Belarusian ``"«Потапова» ужо гуляла ў
    вясновай серыі і адмовіцца ад яе больш не можа (п. 4.8.1 Правілаў сезона 2023 г.)"``. A
    refusal without the language's text (raised by a book written outside Sova) reads in
    Russian, clause and all, else as its English ``message``. A malformed season event (a
    :class:`ProtocolError`, no clause) reads as its fault alone, in the same three languages
    where the season's events give them."""
    lang = language if language in LANGUAGES else "ru"
    texts = {"ru": error.ru, "be": error.be, "en": error.message}
    if not texts[lang]:
        lang = "ru" if texts["ru"] else "en"
    fault = texts[lang] or error.message
    reference = cite(getattr(error, "rule", None), lang)
    return f"{fault} ({reference})" if reference else fault


def replay_season(document: Any) -> SeasonState:
    """Replay a ``sova.season-protocol/1`` document under the book of its ``ruleset``
    (``webapp.domain.season.replay_season`` handed :data:`BOOKS`)."""
    return _replay_season(document, BOOKS)


__all__ = [
    "BOOKS",
    "Book",
    "award_label",
    "book",
    "book_of_file",
    "cite",
    "refusal_text",
    "replay_season",
    "register",
    "rule_reference",
    "season_refusal_text",
    "trophy_label",
    "unregister",
]
