"""The 2009 rule book (``002_e025d5ded135c1c4.txt``, the Russian edition) as one
:class:`~webapp.domain.books.base.Book`: its game (:mod:`.rules`), its season (:mod:`.season`),
its prizes, donor, languages and names."""

from __future__ import annotations

from types import MappingProxyType

from webapp.domain.donor import DONOR_RULE, NEUTRAL_2009
from webapp.domain.languages import GAME_LANGUAGES
from webapp.domain.prizes.book import (
    DEFAULT_SERIES_FINAL_PRIZE,
    DEFAULT_SPECIAL_GAME_PRIZE,
    DEFAULT_UNANSWERED_PRIZE,
    DEFAULT_YEAR_FINAL_PRIZE,
    UNANSWERED_RULE,
)

from ..base import Book
from .rules import RULESET_2009
from .season import Book2009

BOOK = Book(
    name="2009",
    file=RULESET_2009.file,
    rules=RULESET_2009,
    season=Book2009,
    game_languages=GAME_LANGUAGES["2009"],
    donor_rule=DONOR_RULE["2009"],
    default_donor=NEUTRAL_2009,
    unanswered_rule=UNANSWERED_RULE["2009"],
    default_prizes=MappingProxyType(
        {
            "unanswered": DEFAULT_UNANSWERED_PRIZE["2009"],
            "series_final": DEFAULT_SERIES_FINAL_PRIZE["2009"],
            "year_final": DEFAULT_YEAR_FINAL_PRIZE["2009"],
            "special_game": DEFAULT_SPECIAL_GAME_PRIZE["2009"],
        }
    ),
    names=MappingProxyType(
        {
            "ru": "Правил сезона 2009 г.",
            "be": "Правілаў сезона 2009 г.",
            "en": "of the 2009 season rules",
        }
    ),
    title_ru="Правил игры «Что? Где? Когда?» 2009 года",
)
