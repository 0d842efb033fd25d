"""The individual prizes of the 2009 rule book (``002_e025d5ded135c1c4.txt`` §3, the Russian
edition, RUB), each citing its clause:

* §3.1 — the best player of each game: the general sponsor's prize, recorded, no amount;
  the viewers' SMS vote names him (``decided_by_vote``);
* §3.2 — series final won: the best player of the series, Crystal Owl and the season's
  series-final amount (default 300 000,00);
* §3.3 — year final won: the best player, Diamond Owl and the year-final amount (default
  1 000 000,00).

The §3 prizes come from the general sponsor: no gift agreement and no commission minutes
are made by the broadcaster (``paperwork`` is empty)."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from webapp.domain.prizes import AwardRule, PrizeAmount, Trophy, awards_of

from .rules import RULESET_2009

_FILE = RULESET_2009.file

CRYSTAL_OWL = Trophy("crystal_owl", "Хрустальная Сова")
DIAMOND_OWL = Trophy("diamond_owl", "Бриллиантовая сова")

SERIES_FINAL = PrizeAmount(
    "series_final",
    Decimal("300000.00"),
    MappingProxyType(
        {
            "ru": "Приз лучшему игроку серии (Хрустальная Сова)",
            "be": "Прыз лепшаму гульцу серыі (Крыштальная Сава)",
            "en": "Best player of the series (Crystal Owl)",
        }
    ),
)
YEAR_FINAL = PrizeAmount(
    "year_final",
    Decimal("1000000.00"),
    MappingProxyType(
        {
            "ru": "Приз лучшему игроку года (Бриллиантовая сова)",
            "be": "Прыз лепшаму гульцу года (Брыльянтавая сава)",
            "en": "Best player of the year (Diamond Owl)",
        }
    ),
)

AWARDS = awards_of(
    AwardRule(
        kind="best_player_of_game",
        rule=f"{_FILE} §3.1",
        game_kind=None,
        winner=None,
        recipient="team",
        amount=None,
        trophy=None,
        paperwork=(),
        label="Лучший игрок игры (приз спонсора)",
        decided_by_vote=True,
    ),
    AwardRule(
        kind="best_player_of_series",
        rule=f"{_FILE} §3.2",
        game_kind="series_final",
        winner="experts",
        recipient="team",
        amount=SERIES_FINAL,
        trophy=CRYSTAL_OWL,
        paperwork=(),
        label="Лучший игрок серии",
    ),
    AwardRule(
        kind="best_player_of_year",
        rule=f"{_FILE} §3.3",
        game_kind="year_final",
        winner="experts",
        recipient="team",
        amount=YEAR_FINAL,
        trophy=DIAMOND_OWL,
        paperwork=(),
        label="Лучший игрок года",
    ),
)
"""The 2009 book's individual prizes by kind."""
