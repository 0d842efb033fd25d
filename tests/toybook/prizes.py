"""The toy book's own individual prize, declared the way Sova's books declare theirs
(``webapp/domain/books/<book>/prizes.py``): the proof that a new prize kind is data of its
book — no column, no migration, no form field, no special case in the prizes feature.

* §9.3 — a toy series final won by the experts: the best expert of the winning team gets
  the Toy Owl and the season's toy-owl amount (default 250,00 RUB), paid after a gift
  agreement is signed."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from webapp.domain.prizes import GIFT_AGREEMENT, AwardRule, PrizeAmount, Trophy, awards_of

FILE = "toy_rules.txt"

TOY_OWL = Trophy("toy_owl", "Игрушечная сова")

TOY_OWL_AMOUNT = PrizeAmount(
    "toy_owl",
    Decimal("250.00"),
    MappingProxyType(
        {
            "ru": "Игрушечная сова лучшему знатоку финала",
            "be": "Цацачная сава лепшаму знатаку фіналу",
            "en": "Toy Owl to the best expert of a final",
        }
    ),
)

AWARDS = awards_of(
    AwardRule(
        kind="toy_owl",
        rule=f"{FILE} §9.3",
        game_kind="series_final",
        winner="experts",
        recipient="team",
        amount=TOY_OWL_AMOUNT,
        trophy=TOY_OWL,
        paperwork=(GIFT_AGREEMENT,),
        label="Игрушечная сова",
    ),
)
"""The toy book's individual prizes by kind."""
