"""What a rule book is to Sova: :class:`Book`, the one object every layer asks.

A caller asks a capability (``book.audience_vote``, ``book.live_sector13``) or a value
(``book.currency``), never the book's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from webapp.domain.donor import Donor
from webapp.domain.prizes import AwardRule, PrizeAmount
from webapp.domain.rules.rulesets import RuleSet
from webapp.domain.season.rulebook import RuleBook

#: The country a book's broadcasts air in, by their IANA zone (the season form's choice).
_COUNTRIES_RU: Mapping[str, str] = {"Europe/Minsk": "Беларусь", "Europe/Moscow": "Россия"}


@dataclass(frozen=True)
class Book:
    """One rule book.

    ``name``: the protocols' ``ruleset`` (``"2023"``); ``file``: the rule-book file every
    clause is cited from; ``rules``: the game rule set (:class:`RuleSet`); ``season``: the
    season rule book (a :class:`RuleBook` subclass); ``game_languages``: the languages a
    question placed by the automatic fill may be in; ``donor_rule``: the clause the season's
    donor comes from; ``default_donor``: the donor before the producer names one (``None``:
    the broadcaster of the settings); ``unanswered_rule``: the clause of the author's prize
    for an unanswered question; ``unanswered_prize``: the book's default amount of it
    (``None``: the book names none, the producer sets it); ``awards``: the book's individual
    prizes by kind (:class:`~webapp.domain.prizes.AwardRule`, declared in the book's
    ``prizes.py``: clause, trophy, paperwork, recipient, game kind and result, the season's
    amount with its default); ``names``: the book as a reader
    names it after a clause number, by language (genitive); ``title_ru``: its full Russian
    title (genitive) for signed papers. The refusals a book words its own way are its rule
    set's (:attr:`RuleSet.wording`), read by :func:`webapp.domain.books.refusal_text`.
    """

    name: str
    file: str
    rules: RuleSet
    season: type[RuleBook]
    game_languages: tuple[str, ...]
    donor_rule: str
    default_donor: Donor | None
    unanswered_rule: str
    unanswered_prize: Decimal | None
    awards: Mapping[str, AwardRule]
    names: Mapping[str, str]
    title_ru: str

    @property
    def amounts(self) -> Mapping[str, PrizeAmount]:
        """The amounts a season of the book sets for its individual prizes, by key, in the
        order of the prizes that pay them (two prizes may pay one amount: 2023 §4.11.2 and
        §4.11.3 both pay the series final's)."""
        out: dict[str, PrizeAmount] = {}
        for award in self.awards.values():
            if award.amount is not None:
                out.setdefault(award.amount.key, award.amount)
        return out

    def trophy_label(self, key: str | None) -> str:
        """The Russian label of the trophy ``key`` one of the book's prizes hands (``""``
        for None or a key none of them has)."""
        return next(
            (a.trophy.label for a in self.awards.values() if a.trophy and a.trophy.key == key),
            "",
        )

    @property
    def currency(self) -> str:
        """ISO 4217 code prizes are paid in."""
        return self.rules.currency

    @property
    def timezone(self) -> str:
        """IANA zone the book's broadcasts air in."""
        return self.rules.timezone

    @property
    def game_language(self) -> str:
        """The language a game is first played in (the first of :attr:`game_languages`)."""
        return self.game_languages[0]

    @property
    def choice_ru(self) -> str:
        """The book as the season form offers it: «2023 (Беларусь, BYN)»; the country is the
        one its broadcasts' time zone lies in, left out for a zone not named here."""
        country = _COUNTRIES_RU.get(self.timezone)
        return (
            f"{self.name} ({country}, {self.currency})"
            if country
            else f"{self.name} ({self.currency})"
        )

    @property
    def audience_vote(self) -> bool:
        """The viewers choose each game's best player by SMS."""
        return self.rules.audience_vote

    @property
    def live_sector13(self) -> bool:
        """Sector 13's question is drawn at the spin among viewers' live questions."""
        return self.rules.sector13_pool == "live"

    @property
    def credit_minute(self) -> bool:
        """A team may take a minute on credit."""
        return self.rules.credit_minute

    @property
    def sector13_options(self) -> bool:
        """The team chooses how sector 13 is played (the options of the 2023 book)."""
        return self.rules.sector13_options

    @property
    def decisive_round(self) -> bool:
        """A qualifying game one point short may be decided by a decisive round."""
        return self.rules.decisive_round

    @property
    def names_answerer(self) -> bool:
        """The host names the expert who answered, since a wrong answer may remove him."""
        return self.rules.removal_rule

    @property
    def sector13_drawn_at_spin(self) -> bool:
        """Sector 13's question is drawn only when the top lands on it."""
        return self.rules.sector13_drawn_at_spin

    @property
    def off_table_after_hint(self) -> bool:
        """A hinting expert starts his team's next game off the table."""
        return self.rules.off_table_after_hint

    @property
    def series_rematch(self) -> bool:
        """The loser of a series final may be granted a rematch."""
        return self.rules.series_rematch

    @property
    def one_author_rule(self) -> str:
        """The clause behind "no author twice in one game": the author's prize per unanswered
        question (:attr:`unanswered_rule`). Neither book says it in so many words; the
        reading: the prize is paid per unanswered question to its author (2023 §3.2.2 and
        §4.11.1 «Авторам вопросов, на которые не ответила Команда знатоков»; 2009 §1.2.2
        «Телезритель, на чей вопрос ЗНАТОКИ не смогли дать правильный ответ»), and the
        viewers' team of a game is made of the authors of its questions (2023 §3.2, §4.11.3
        «из состава Команды Телезрителей … авторов тех вопросов»): the office puts one
        question per person on a game's table (reserves included), so that one game never
        pays one person twice (:func:`webapp.domain.authors.repeated_authors`)."""
        return self.unanswered_rule

    def cite(self, topic: str) -> str:
        """``"<file> §<clause>"`` of a game topic (``KeyError`` for one the book lacks)."""
        return self.rules.cite(topic)
