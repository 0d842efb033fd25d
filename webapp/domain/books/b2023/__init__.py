"""The 2023 rule book (``000_90d7c8192601ed3a.txt``, the Belarusian edition) as one
:class:`~webapp.domain.books.base.Book`: its game (:mod:`.rules`), its season (:mod:`.season`),
its prizes, donor, languages and names."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from ..base import Book
from .prizes import AWARDS
from .rules import RULESET_2023
from .season import Book2023

BOOK = Book(
    name="2023",
    file=RULESET_2023.file,
    rules=RULESET_2023,
    season=Book2023,
    # neither book names a language: the Belarusian edition's viewers write either
    game_languages=("be", "ru"),
    donor_rule=f"{RULESET_2023.file} §4.11.1",  # «Вещательная компания выплачивает»
    default_donor=None,  # the broadcaster: the caller's settings
    unanswered_rule=f"{RULESET_2023.file} §4.11.1",
    unanswered_prize=Decimal("300.00"),
    awards=MappingProxyType(AWARDS),
    names=MappingProxyType(
        {
            "ru": "Правил сезона 2023 г.",
            "be": "Правілаў сезона 2023 г.",
            "en": "of the 2023 season rules",
        }
    ),
    title_ru="Положения о телевизионном проекте (правила сезона 2023 года)",
)
