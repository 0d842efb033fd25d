"""The prizes of both rule books as data (each book's clause of the unanswered-question
prize and its default amounts are the book's: ``webapp.domain.books``): the trophies, the documents a payment needs, one :class:`AwardRule` per individual prize
(:data:`AWARD_RULES`), and the results the functions of :mod:`.awards` return
(:class:`Entitlement`, :class:`Award`) or raise (:class:`PrizeRefused`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.domain.money import Money

R2023 = "000_90d7c8192601ed3a.txt"


R2009 = "002_e025d5ded135c1c4.txt"


SMALL_CRYSTAL_OWL = "small_crystal_owl"


BIG_CRYSTAL_OWL = "big_crystal_owl"


CRYSTAL_OWL = "crystal_owl"


DIAMOND_OWL = "diamond_owl"


TROPHY_LABELS = {
    SMALL_CRYSTAL_OWL: "Малая Хрустальная Сова",
    BIG_CRYSTAL_OWL: "Большая Хрустальная Сова",
    CRYSTAL_OWL: "Хрустальная Сова",
    DIAMOND_OWL: "Бриллиантовая сова",
}


GIFT_AGREEMENT = "gift_agreement"


COMMISSION_MINUTES = "commission_minutes"


@dataclass(frozen=True)
class AwardRule:
    """One individual prize of a rule book.

    ``kind``: the prize kind stored with the prize; ``ruleset``: ``"2023"``/``"2009"``;
    ``game_kind``: the game kind that gives it (``series_final``, ``year_final``,
    ``special``, or None for every game); ``winner``: the side that must have won
    (``"experts"``/``"viewers"``) or None; ``recipient``: ``"team"`` (an expert of the
    experts' team) or ``"author"`` (an author of an unanswered question of that game) or
    ``"each_expert"``; ``amount_field``: the season's column holding the amount (None: no
    cash); ``paperwork``: documents the payment needs; ``label``: Russian title.
    """

    kind: str
    ruleset: str
    rule: str
    game_kind: str | None
    winner: str | None
    recipient: str
    amount_field: str | None
    trophy: str | None
    paperwork: tuple[str, ...]
    label: str


AWARD_RULES: dict[str, AwardRule] = {
    r.kind: r
    for r in (
        AwardRule(
            "best_participant_of_series",
            "2023",
            f"{R2023} §4.11.2",
            "series_final",
            "experts",
            "team",
            "series_final_prize",
            SMALL_CRYSTAL_OWL,
            (COMMISSION_MINUTES, GIFT_AGREEMENT),
            "Лучший участник серии",
        ),
        AwardRule(
            "best_author_of_series",
            "2023",
            f"{R2023} §4.11.3",
            "series_final",
            "viewers",
            "author",
            "series_final_prize",
            SMALL_CRYSTAL_OWL,
            (COMMISSION_MINUTES, GIFT_AGREEMENT),
            "Лучший автор вопроса серии",
        ),
        AwardRule(
            "best_expert_of_year",
            "2023",
            f"{R2023} §4.11.4",
            "year_final",
            "experts",
            "team",
            "year_final_prize",
            BIG_CRYSTAL_OWL,
            (COMMISSION_MINUTES, GIFT_AGREEMENT),
            "Лучший знаток финальной игры года",
        ),
        AwardRule(
            "best_author_of_year",
            "2023",
            f"{R2023} §4.11.5",
            "year_final",
            "viewers",
            "author",
            "year_final_prize",
            BIG_CRYSTAL_OWL,
            (COMMISSION_MINUTES, GIFT_AGREEMENT),
            "Лучший автор вопроса финальной игры года",
        ),
        AwardRule(
            "special_game_expert",
            "2023",
            f"{R2023} §4.11.6",
            "special",
            None,
            "each_expert",
            "special_game_prize",
            None,
            (),
            "Вознаграждение участнику специальной игры",
        ),
        AwardRule(
            "best_player_of_game",
            "2009",
            f"{R2009} §3.1",
            None,
            None,
            "team",
            None,
            None,
            (),
            "Лучший игрок игры (приз спонсора)",
        ),
        AwardRule(
            "best_player_of_series",
            "2009",
            f"{R2009} §3.2",
            "series_final",
            "experts",
            "team",
            "series_final_prize",
            CRYSTAL_OWL,
            (),
            "Лучший игрок серии",
        ),
        AwardRule(
            "best_player_of_year",
            "2009",
            f"{R2009} §3.3",
            "year_final",
            "experts",
            "team",
            "year_final_prize",
            DIAMOND_OWL,
            (),
            "Лучший игрок года",
        ),
    )
}


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
    author's prize, else None; ``money``: Money or None (§3.1 2009: no amount); ``trophy``:
    a key of :data:`TROPHY_LABELS` or None; ``paperwork``: documents needed before paying.
    """

    kind: str
    recipient: str
    author_key: int | None
    money: Money | None
    trophy: str | None
    rule: str
    paperwork: tuple[str, ...] = field(default=())
