"""The 2009 rule book (``002_e025d5ded135c1c4.txt``) as one :class:`~.base.Book`."""

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
from webapp.domain.rules.rulesets import BOOK_NAMES, BOOK_TITLES_RU, RULESET_2009
from webapp.domain.season.book2009 import Book2009

from .base import Book

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
    names=MappingProxyType({lang: names[RULESET_2009.file] for lang, names in BOOK_NAMES.items()}),
    title_ru=BOOK_TITLES_RU[RULESET_2009.file],
)
