"""The 2023 rule book (``000_90d7c8192601ed3a.txt``, the Belarusian edition) as one
:class:`~webapp.domain.books.base.Book`: its game (:mod:`.rules`), its season (:mod:`.season`),
its prizes, donor, languages and names."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.donor import DONOR_RULE
from webapp.domain.languages import GAME_LANGUAGES
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
    game_languages=GAME_LANGUAGES["2023"],
    donor_rule=DONOR_RULE["2023"],
    default_donor=None,
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
