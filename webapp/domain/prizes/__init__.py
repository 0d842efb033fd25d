"""Prize entitlement after a game: pure functions of a rule book's prizes and the game's
result. The prizes themselves are the books' (``webapp.domain.books.<book>.prizes``): each
book declares its individual prizes as :class:`AwardRule` data (clause, trophy, paperwork,
recipient, the game kind and result that give it, the season's amount it pays); this engine
is handed them and never names a book.

* :func:`unanswered_question_prizes` — the author of every unanswered question is owed the
  season's amount (2023 §4.11.1, 2009 §1.2.2; the clause is the book's ``unanswered_rule``);
* :func:`award_to_expert` — one expert of the experts' team (recipient ``team``);
* :func:`award_to_author` — one author of a question the experts did not answer in that game
  (recipient ``author``);
* :func:`award_to_each_expert` — every expert of the team (recipient ``each_expert``);
* :func:`awards_available` — the prizes a book gives after a game of a kind and result.

People are identified by the caller's keys: ``str`` names for experts (the team roster is
given by the caller), ``int`` author keys for authors. Choosing a person a rule does not
allow, or awarding a prize the game's kind or result does not give, raises
:class:`PrizeRefused` carrying the clause. Amounts are :class:`~webapp.domain.money.Money`.

A package (this module re-exports every public name, so callers import from
``webapp.domain.prizes``): ``book`` (the shapes) and ``awards`` (the functions above).
"""

from __future__ import annotations

from webapp.domain.prizes.awards import (
    award_to_author,
    award_to_each_expert,
    award_to_expert,
    awards_available,
    unanswered_question_prizes,
)
from webapp.domain.prizes.book import (
    COMMISSION_MINUTES,
    GIFT_AGREEMENT,
    RECIPIENTS,
    Award,
    AwardRule,
    Entitlement,
    HasAwards,
    PrizeAmount,
    PrizeRefused,
    Trophy,
    awards_of,
)

__all__ = [
    "Award",
    "AwardRule",
    "COMMISSION_MINUTES",
    "Entitlement",
    "GIFT_AGREEMENT",
    "HasAwards",
    "PrizeAmount",
    "PrizeRefused",
    "RECIPIENTS",
    "Trophy",
    "award_to_author",
    "award_to_each_expert",
    "award_to_expert",
    "awards_available",
    "awards_of",
    "unanswered_question_prizes",
]
