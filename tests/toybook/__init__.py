"""A third rule book, defined only here: the proof that a book is one folder and one
registry line (``docs/architecture.md``, "Adding a rule book").

The toy book plays a shorter game (three points win it), words two refusals its own way, pays
its viewers 150,00 RUB per unanswered question, gives a prize of its own (the Toy Owl and
250,00 to the best expert of a series final won, :mod:`.prizes`), and airs in Yekaterinburg. Its season is the 2023 season's shape under the toy book's own name and
clauses. :func:`tests.fixtures.books.toy_book` registers it for a test's duration.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from types import MappingProxyType

from tests.toybook.prizes import AWARDS
from webapp.domain.books import Book
from webapp.domain.books.b2023.rules import RULESET_2023
from webapp.domain.books.b2023.season import Book2023

NAME = "toy"
FILE = "toy_rules.txt"  # the same file tests.toybook.prizes cites

RULES = replace(
    RULESET_2023,
    name=NAME,
    file=FILE,
    currency="RUB",
    timezone="Asia/Yekaterinburg",
    clauses=MappingProxyType(
        {topic: f"§7.{n}" for n, topic in enumerate(RULESET_2023.clauses, start=1)}
    ),
    points_to_win=3,
    credit_minute=False,
    wording=MappingProxyType(
        {
            **RULESET_2023.wording,
            "club_help_not_behind": MappingProxyType(
                {
                    "ru": "Клуб подсказывает лишь отстающим, а сейчас {score}",
                    "be": "Клуб падказвае толькі тым, хто адстае, а зараз {score}",
                    "en": "The club prompts only the side behind, and it is {score}",
                }
            ),
            "game_over": MappingProxyType(
                {
                    "ru": "Игрушечная игра уже сыграна со счётом {score}, волчок отдыхает",
                    "be": "Цацачная гульня ўжо згуляная з лікам {score}, ваўчок адпачывае",
                    "en": "The toy game is over at {score}, the top is resting",
                }
            ),
        }
    ),
)
"""The toy game: 2023's table and aids, three points to win, no minute on credit, two
refusals in its own words."""


class ToySeason(Book2023):
    """The toy season: 2023's series under the toy book's name and clauses."""

    name = NAME
    file = FILE
    clauses = MappingProxyType({topic: f"§8.{n}" for n, topic in enumerate(Book2023.clauses, 1)})


TOY = Book(
    name=NAME,
    file=FILE,
    rules=RULES,
    season=ToySeason,
    game_languages=("ru",),
    donor_rule=f"{FILE} §9.1",
    default_donor=None,
    unanswered_rule=f"{FILE} §9.2",
    unanswered_prize=Decimal("150.00"),
    awards=MappingProxyType(AWARDS),
    names=MappingProxyType(
        {"ru": "Игрушечных правил", "be": "Цацачных правілаў", "en": "of the toy rules"}
    ),
    title_ru="Игрушечных правил «Что? Где? Когда?»",
)
"""The toy book, as :func:`~webapp.domain.books.register` takes it."""
