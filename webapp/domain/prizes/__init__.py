"""Prize entitlement after a game: pure functions of the rule set and the game's result.

Every prize of both rule books lives here, each citing its clause:

2023, Belarusian edition (``000_90d7c8192601ed3a.txt``, currency BYN):

* §4.11.1 — 300,00 to the author(s) of every question the experts did not answer
  (:func:`unanswered_question_prizes`);
* §4.11.2 — series final won by the experts: the best participant of the winning team,
  Small Crystal Owl and 2 000,00 (:func:`best_participant_of_series`);
* §4.11.3 — series final lost: the best author, one of that final's unanswered-question
  authors, Small Crystal Owl and 2 000,00 (:func:`best_author_of_series`);
* §4.11.4 — year final won: the best expert, Big Crystal Owl and 2 000,00
  (:func:`best_expert_of_year`);
* §4.11.5 — year final lost: the best author, Big Crystal Owl and 2 000,00
  (:func:`best_author_of_year`);
* §4.11.6 — special game: 200,00 to each expert of the team (:func:`special_game_prizes`).

The Crystal Owl cash prizes (§4.11.2–§4.11.5) are paid after the prize commission's
minutes and a gift agreement are signed (``paperwork``).

2009, Russian edition (``002_e025d5ded135c1c4.txt``, currency RUB):

* §1.2.2 — a cash prize (amount set per season) to the author of every unanswered question;
* §3.1 — the best player of each game: the general sponsor's prize, recorded, no amount
  (:func:`best_player_of_game`);
* §3.2 — series final won: the best player of the series, Crystal Owl and 300 000,00
  (:func:`best_player_of_series`);
* §3.3 — year final won: the best player, Diamond Owl and 1 000 000,00
  (:func:`best_player_of_year`).
  The 2009 §3 prizes come from the general sponsor: no gift agreement and no commission
  minutes are made by the broadcaster (``paperwork`` is empty).

People are identified by the caller's keys: ``str`` names for experts (the team roster is
given by the caller), ``int`` author keys for authors. Choosing a person a rule does not
allow, or awarding a prize the game's kind or result does not give, raises
:class:`PrizeRefused` carrying the clause. Amounts are :class:`~webapp.domain.money.Money`.

A package (this module re-exports every public name, so callers import from
``webapp.domain.prizes``): ``book`` (the prizes as data: clauses, default amounts, trophies,
:data:`AWARD_RULES`) and ``awards`` (the functions above).
"""

from __future__ import annotations

from webapp.domain.prizes.awards import (
    award_to_author,
    award_to_expert,
    awards_available,
    best_author_of_series,
    best_author_of_year,
    best_expert_of_year,
    best_participant_of_series,
    best_player_of_game,
    best_player_of_series,
    best_player_of_year,
    special_game_prizes,
    unanswered_question_prizes,
)
from webapp.domain.prizes.book import (
    AWARD_RULES,
    BIG_CRYSTAL_OWL,
    COMMISSION_MINUTES,
    CRYSTAL_OWL,
    DIAMOND_OWL,
    GIFT_AGREEMENT,
    R2009,
    R2023,
    SMALL_CRYSTAL_OWL,
    TROPHY_LABELS,
    Award,
    AwardRule,
    Entitlement,
    PrizeRefused,
)

__all__ = [
    "AWARD_RULES",
    "Award",
    "AwardRule",
    "BIG_CRYSTAL_OWL",
    "COMMISSION_MINUTES",
    "CRYSTAL_OWL",
    "DIAMOND_OWL",
    "Entitlement",
    "GIFT_AGREEMENT",
    "PrizeRefused",
    "R2009",
    "R2023",
    "SMALL_CRYSTAL_OWL",
    "TROPHY_LABELS",
    "award_to_author",
    "award_to_expert",
    "awards_available",
    "best_author_of_series",
    "best_author_of_year",
    "best_expert_of_year",
    "best_participant_of_series",
    "best_player_of_game",
    "best_player_of_series",
    "best_player_of_year",
    "special_game_prizes",
    "unanswered_question_prizes",
]
