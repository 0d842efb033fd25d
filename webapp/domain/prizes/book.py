"""The shapes of a rule book's prizes (each book declares its own in its package,
``webapp.domain.books.<book>.prizes``; this engine is handed them): a trophy, a season's
amount, one :class:`AwardRule` per individual prize, the documents a payment needs, and the
results the functions of :mod:`.awards` return (:class:`Entitlement`, :class:`Award`) or
raise (:class:`PrizeRefused`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from webapp.domain.money import Money

GIFT_AGREEMENT = "gift_agreement"


COMMISSION_MINUTES = "commission_minutes"


#: Who receives an individual prize: one expert of the experts' team, one author of a
#: question the experts did not answer in that game, or every expert of the team.
RECIPIENTS = ("team", "author", "each_expert")


@dataclass(frozen=True)
class Trophy:
    """A trophy handed with a prize: ``key`` is stored with the prize, ``label`` is Russian."""

    key: str
    label: str


@dataclass(frozen=True)
class PrizeAmount:
    """A cash amount a season sets for its individual prizes: ``key`` names it in the
    season's amounts (``"series_final"``), ``default`` is the book's (None: the book names
    none), ``labels`` by language (``ru``, ``be``, ``en``)."""

    key: str
    default: Decimal | None
    labels: Mapping[str, str]

    def label(self, lang: str = "ru") -> str:
        """The label in ``lang`` (Russian for a language not given)."""
        return self.labels.get(lang) or self.labels["ru"]


@dataclass(frozen=True)
class AwardRule:
    """One individual prize of a rule book.

    ``kind``: the prize kind stored with the prize; ``rule``: the clause;
    ``game_kind``: the game kind that gives it (``series_final``, ``year_final``,
    ``special``, or None for every game); ``winner``: the side that must have won
    (``"experts"``/``"viewers"``) or None; ``recipient``: one of :data:`RECIPIENTS`;
    ``amount``: the season's amount it pays (None: no cash); ``trophy``: the trophy handed
    with it or None; ``paperwork``: documents the payment needs; ``label``: Russian title;
    ``decided_by_vote``: the game's audience vote names the recipient (an override needs a
    reason, ``webapp.domain.vote.best_player_award``).
    """

    kind: str
    rule: str
    game_kind: str | None
    winner: str | None
    recipient: str
    amount: PrizeAmount | None
    trophy: Trophy | None
    paperwork: tuple[str, ...]
    label: str
    decided_by_vote: bool = False

    def __post_init__(self) -> None:
        if self.recipient not in RECIPIENTS:
            raise ValueError(f"unknown recipient {self.recipient!r} of prize {self.kind!r}")

    @property
    def one_per_person(self) -> bool:
        """Every expert gets one (``each_expert``): a game holds one such prize per person,
        any other individual prize once per game."""
        return self.recipient == "each_expert"


def awards_of(*rules: AwardRule) -> Mapping[str, AwardRule]:
    """A book's individual prizes by kind, in the order given (``ValueError`` on a kind
    given twice)."""
    out: dict[str, AwardRule] = {}
    for r in rules:
        if r.kind in out:
            raise ValueError(f"prize kind {r.kind!r} given twice")
        out[r.kind] = r
    return out


class HasAwards(Protocol):
    """What the engine asks of a rule book: its individual prizes by kind."""

    @property
    def awards(self) -> Mapping[str, AwardRule]: ...


class PrizeRefused(ValueError):
    """The rule does not allow this prize or this person. ``rule`` cites the clause
    (``"000_90d7c8192601ed3a.txt §4.11.3"``); ``str(exc)`` is a Russian message."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message


@dataclass(frozen=True)
class Entitlement:
    """One author's share: ``question_key`` and ``author_key`` are the caller's ids."""

    question_key: int
    author_key: int
    kind: str
    money: Money
    rule: str


@dataclass(frozen=True)
class Award:
    """An individual prize to one person.

    ``recipient``: the person's name as given; ``author_key``: the caller's author id for an
    author's prize, else None; ``money``: Money or None (a prize without cash); ``trophy``:
    the trophy's key or None; ``paperwork``: documents needed before paying.
    """

    kind: str
    recipient: str
    author_key: int | None
    money: Money | None
    trophy: str | None
    rule: str
    paperwork: tuple[str, ...] = field(default=())
