"""The individual prizes of the 2023 rule book (``000_90d7c8192601ed3a.txt`` §4.11, the
Belarusian edition, BYN), each citing its clause:

* §4.11.2 — series final won by the experts: the best participant of the winning team,
  Small Crystal Owl and the season's series-final amount (default 2 000,00);
* §4.11.3 — series final lost: the best author, one of that final's unanswered-question
  authors, Small Crystal Owl and the same amount;
* §4.11.4 — year final won: the best expert, Big Crystal Owl and the year-final amount
  (default 2 000,00);
* §4.11.5 — year final lost: the best author, Big Crystal Owl and the same amount;
* §4.11.6 — special game: the special-game amount (default 200,00) to each expert.

The Crystal Owl cash prizes (§4.11.2–§4.11.5) are paid after the prize commission's
minutes and a gift agreement are signed (``paperwork``)."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType

from webapp.domain.prizes import (
    COMMISSION_MINUTES,
    GIFT_AGREEMENT,
    AwardRule,
    PrizeAmount,
    Trophy,
    awards_of,
)

from .rules import RULESET_2023

_FILE = RULESET_2023.file

SMALL_CRYSTAL_OWL = Trophy("small_crystal_owl", "Малая Хрустальная Сова")
BIG_CRYSTAL_OWL = Trophy("big_crystal_owl", "Большая Хрустальная Сова")

SERIES_FINAL = PrizeAmount(
    "series_final",
    Decimal("2000.00"),
    MappingProxyType(
        {
            "ru": "Приз финала серии (Малая Хрустальная Сова)",
            "be": "Прыз фіналу серыі (Малая Крыштальная Сава)",
            "en": "Series final prize (Small Crystal Owl)",
        }
    ),
)
YEAR_FINAL = PrizeAmount(
    "year_final",
    Decimal("2000.00"),
    MappingProxyType(
        {
            "ru": "Приз финала года (Большая Хрустальная Сова)",
            "be": "Прыз фіналу года (Вялікая Крыштальная Сава)",
            "en": "Year final prize (Big Crystal Owl)",
        }
    ),
)
SPECIAL_GAME = PrizeAmount(
    "special_game",
    Decimal("200.00"),
    MappingProxyType(
        {
            "ru": "Вознаграждение каждому участнику специальной игры",
            "be": "Узнагарода кожнаму ўдзельніку спецыяльнай гульні",
            "en": "Reward to each expert of a special game",
        }
    ),
)

_CRYSTAL = (COMMISSION_MINUTES, GIFT_AGREEMENT)

AWARDS = awards_of(
    AwardRule(
        kind="best_participant_of_series",
        rule=f"{_FILE} §4.11.2",
        game_kind="series_final",
        winner="experts",
        recipient="team",
        amount=SERIES_FINAL,
        trophy=SMALL_CRYSTAL_OWL,
        paperwork=_CRYSTAL,
        label="Лучший участник серии",
    ),
    AwardRule(
        kind="best_author_of_series",
        rule=f"{_FILE} §4.11.3",
        game_kind="series_final",
        winner="viewers",
        recipient="author",
        amount=SERIES_FINAL,
        trophy=SMALL_CRYSTAL_OWL,
        paperwork=_CRYSTAL,
        label="Лучший автор вопроса серии",
    ),
    AwardRule(
        kind="best_expert_of_year",
        rule=f"{_FILE} §4.11.4",
        game_kind="year_final",
        winner="experts",
        recipient="team",
        amount=YEAR_FINAL,
        trophy=BIG_CRYSTAL_OWL,
        paperwork=_CRYSTAL,
        label="Лучший знаток финальной игры года",
    ),
    AwardRule(
        kind="best_author_of_year",
        rule=f"{_FILE} §4.11.5",
        game_kind="year_final",
        winner="viewers",
        recipient="author",
        amount=YEAR_FINAL,
        trophy=BIG_CRYSTAL_OWL,
        paperwork=_CRYSTAL,
        label="Лучший автор вопроса финальной игры года",
    ),
    AwardRule(
        kind="special_game_expert",
        rule=f"{_FILE} §4.11.6",
        game_kind="special",
        winner=None,
        recipient="each_expert",
        amount=SPECIAL_GAME,
        trophy=None,
        paperwork=(),
        label="Вознаграждение участнику специальной игры",
    ),
)
"""The 2023 book's individual prizes by kind."""
