"""The 2023 rule book (``000_90d7c8192601ed3a.txt``, the Belarusian edition) as one
:class:`~webapp.domain.books.base.Book`: its game (:mod:`.rules`), its season (:mod:`.season`),
its prizes, donor, languages and names."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.prizes.book import (
    DEFAULT_SERIES_FINAL_PRIZE,
    DEFAULT_SPECIAL_GAME_PRIZE,
    DEFAULT_UNANSWERED_PRIZE,
    DEFAULT_YEAR_FINAL_PRIZE,
    UNANSWERED_RULE,
)

from ..base import Book
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
    unanswered_rule=UNANSWERED_RULE["2023"],
    default_prizes=MappingProxyType(
        {
            "unanswered": DEFAULT_UNANSWERED_PRIZE["2023"],
            "series_final": DEFAULT_SERIES_FINAL_PRIZE["2023"],
            "year_final": DEFAULT_YEAR_FINAL_PRIZE["2023"],
            "special_game": DEFAULT_SPECIAL_GAME_PRIZE["2023"],
        }
    ),
    names=MappingProxyType(
        {
            "ru": "Правил сезона 2023 г.",
            "be": "Правілаў сезона 2023 г.",
            "en": "of the 2023 season rules",
        }
    ),
    title_ru="Положения о телевизионном проекте (правила сезона 2023 года)",
)
