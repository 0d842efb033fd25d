"""Prize entitlement after a game: a pure function of the rule set and the result.

Rule 000_90d7c8192601ed3a.txt §3.2.2 and §4.11.1 (2023) and 002_e025d5ded135c1c4.txt
§1.2.2 (2009): the author of every question the experts did not answer right is owed the
cash prize; co-authors share it equally to the kopeck, the odd kopeck to the first author.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from webapp.domain.money import Money, split_equally

UNANSWERED_RULE = {
    "2023": "000_90d7c8192601ed3a.txt §4.11.1",
    "2009": "002_e025d5ded135c1c4.txt §1.2.2",
}
DEFAULT_UNANSWERED_PRIZE = {"2023": Decimal("300.00"), "2009": None}


@dataclass(frozen=True)
class Entitlement:
    """One author's share: ``question_key`` and ``author_key`` are the caller's ids."""

    question_key: int
    author_key: int
    kind: str
    money: Money
    rule: str


def unanswered_question_prizes(ruleset: str, unanswered: list[tuple[int, list[int]]],
                               prize: Money) -> list[Entitlement]:
    """``unanswered``: ``[(question_key, [author_key, …] in authorship order)]``.

    Returns one Entitlement per author per unanswered question (a question without
    authors gives none). Raises ValueError for an unknown rule set.
    """
    if ruleset not in UNANSWERED_RULE:
        raise ValueError(f"unknown rule set {ruleset!r}")
    out = []
    for question_key, authors in unanswered:
        if not authors:
            continue
        for author_key, share in zip(authors, split_equally(prize.amount, len(authors)),
                                     strict=True):
            out.append(Entitlement(question_key, author_key, "unanswered_question",
                                   Money(share, prize.currency), UNANSWERED_RULE[ruleset]))
    return out
