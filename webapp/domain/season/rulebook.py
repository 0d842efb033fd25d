"""What a rule book tells the season engine: the base class :class:`RuleBook`.

The engine (:mod:`.engine`) replays what every book shares — series open in order and close
with their closing game, a game's score is checked, a refused event changes nothing, a team
that is out plays no more, amendments (2023 §4.12.1). Where the books differ it asks the
season's book: its clauses for the shared refusals (:attr:`RuleBook.clauses`), how a series'
rating is formed, who plays next, where a result moves a team, which game a team may play and
the events a book has or lacks (a 2009 rematch, a 2023 reserve team).

A book is a subclass holding only those answers, kept in its book's package
(``webapp.domain.books.b2023.season.Book2023``, ``webapp.domain.books.b2009.season.Book2009``),
stateless: every hook takes the :class:`~.engine.Season` being replayed and reads or moves its
state. The engine is handed the book; the registry ``webapp.domain.books.BOOKS`` maps the
protocol's ``ruleset`` to it. The defaults below are those of a book that lacks
the feature (no rematch, no entering teams, no decisive round…); the hooks without one must
be given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from webapp.domain.rules.parameters import defaults
from webapp.domain.rules.rulesets import RuleSet

from .events import Event
from .state import NextGame, Result, SeasonViolation

if TYPE_CHECKING:
    from .engine import Season

TOPICS = (
    "year_final",  # the year final: who plays it, and nothing after it (2023 §4.10, 2009 §2.18)
    "series_sequence",  # the series open in order (2023 §4.1, 2009 §2.5)
    "series_shape",  # what a series consists of (2023 §4.1, 2009 §2.6)
    "withdraw",  # giving up a series (2023 §4.8.1, 2009 §2.3)
    "not_listed",  # a team with no place in the series' list (2023 §4.8.1, 2009 §2.4)
    "winter_rating",  # the winter rating formed anew (2023 §4.9, 2009 §2.13)
    "game_end",  # the score of a finished game (2023 §3.10, 2009 §1.8)
)
"""The topics every book's :attr:`RuleBook.clauses` names: the engine's shared refusals."""


class RuleBook:
    """One rule book's season rules. Subclass it in the book's package, fill :attr:`name`,
    :attr:`file`, :attr:`clauses`, :attr:`game_rules` and the hooks."""

    name: ClassVar[str]
    """The protocol's ``ruleset`` (``"2023"``)."""
    file: ClassVar[str]
    """The rule-book file every clause is cited from (``"000_90d7c8192601ed3a.txt"``)."""
    clauses: ClassVar[Mapping[str, str]]
    """Topic (:data:`TOPICS`, and the book's own) → clause (``"§4.1"``)."""
    game_rules: ClassVar[RuleSet | None] = None
    """The book's game rule set, whose amendable parameters the season starts from (a book
    without one overrides :meth:`parameters`)."""
    decisive_round: ClassVar[bool] = False
    """A qualifying game may end with a decisive round (2023 §3.6): ``series_best`` is kept
    and a decisive game's score must be a whitewash."""

    # ----------------------------------------------------------------- the rules in force

    def parameters(self) -> dict[str, int | bool]:
        """The amendable parameters and the book's values (2023 §4.12.1)."""
        if self.game_rules is None:
            return {}
        return defaults(self.game_rules)

    # ----------------------------------------------------------------- series

    def form(
        self,
        season: Season,
        part: str,
        qualifying: int,
        closing: str,
        named: tuple[str, ...] | None,
    ) -> tuple[list[str], str]:
        """The rating of the ``part`` series being opened (refusing a shape or a ``named``
        list the book does not allow) and the clause a shortage of its teams cites."""
        raise NotImplementedError

    def check_shape(
        self, season: Season, part: str, qualifying: int, closing: str, teams: int
    ) -> None:
        """Refuse a ``part`` series of ``qualifying`` games and ``closing`` that the book does
        not have (``teams``: how many teams its rating holds)."""
        raise NotImplementedError

    def reorder(self, season: Season) -> None:
        """After the series opens and after a withdrawal: fix the qualifying order, where the
        book has one (``season.series.order``)."""

    def shortage(self, season: Season, withdrawing: str | None) -> tuple[str, str, str] | None:
        """Why the open series cannot fill its qualifying games, ``(English, Russian,
        Belarusian)``, or
        ``None`` (``withdrawing``: the team whose withdrawal is checked)."""
        raise NotImplementedError

    def next_qualifying(self, season: Season) -> NextGame | None:
        """Who plays the next qualifying game, where the book decides it."""
        return None

    # ----------------------------------------------------------------- games

    def refuse_kind(self, season: Season, kind: str) -> None:
        """Refuse a kind of game the book does not have (a rematch, a special game)."""

    def check_off_phase(self, season: Season, kind: str, team: str) -> None:
        """Refuse, with the book's own clause, a game of a kind that is not due now, before
        the engine's shared refusals do."""

    def check_game(self, season: Season, kind: str, team: str, decisive_round: bool) -> None:
        """Refuse the game of ``kind`` by ``team`` that the book forbids now: the kind is
        the one due (or a qualifying game in the qualifying phase)."""
        raise NotImplementedError

    def place(self, season: Season, result: Result) -> str:
        """Move the team of a qualifying (or rematch) ``result`` in the rating; return the
        clause applied."""
        raise NotImplementedError

    def final(self, season: Season, result: Result) -> str:
        """Record a series final's ``result`` (winter places, rating); return the clause."""
        raise NotImplementedError

    def after_game(self, season: Season, result: Result, rule: str) -> str:
        """After any game: what it does beyond its kind (a team out by its losses); returns
        the clause that moved the team (``rule`` unless this changes it)."""
        return rule

    def out_reason(self, season: Season, team: str, rule: str) -> tuple[str, str, str]:
        """Why ``team``, put out under ``rule``, may not play: ``(English, Russian,
        Belarusian)``."""
        return (
            f"«{team}» is out of the season",
            f"«{team}» выбыла из сезона",
            f"«{team}» выбыла з сезона",
        )

    # ----------------------------------------------------------------- withdrawals

    def check_withdraw(self, season: Season, team: str) -> None:
        """Refuse a withdrawal from the open series for a reason of the book's own."""

    def withdrawn(self, season: Season, team: str) -> None:
        """``team`` has withdrawn from the open series: move it where the book says."""

    def shortage_clause(self, season: Season) -> str:
        """The clause a withdrawal that leaves too few teams cites."""
        return self.clauses["series_shape"]

    def no_place(self, season: Season, team: str, head: str, head_ru: str, head_be: str) -> None:
        """Refuse the withdrawal of ``team``, which has no place in the series, for a reason
        of the book's own (``head``, ``head_ru``, ``head_be``: the refusal's first words)."""

    def coming(self, season: Season, team: str, coming: str) -> tuple[list[str], int, str]:
        """Between two series, ``team`` refuses the ``coming`` one: refuse what the book
        forbids, else return the teams that could play it, the fewest qualifying games it
        allows and the clause a shortage cites."""
        raise NotImplementedError

    # ----------------------------------------------------------------- a season joined under way

    def earlier(self, season: Season, result: Result) -> None:
        """Sova's ``start``: record what ``result``, a game of a series before the one Sova
        starts at, leaves for the rest of the season (winter places, a team out); the engine
        has added it to ``season.results`` (and a final to ``season.finals``). The rating is
        not moved: the ``start`` event gives it."""
        raise NotImplementedError

    def start_winter(self, season: Season, given: tuple[str, ...] | None) -> None:
        """Sova's ``start``: the winter places the finals so far gave (``season.winter``),
        checked against the ``given`` list where there is one."""
        raise NotImplementedError

    def start_rematch(self, season: Season, team: str, part: str) -> None:
        """Sova's ``start``: ``team``'s rematch is due in the ``part`` series (2009 §2.10);
        refused by a book without rematches."""
        raise self.rematch_refusal(season)

    def rematch_refusal(self, season: Season) -> SeasonViolation:
        return season.refuse(
            self.clauses["series_shape"],
            f"a rematch is not an event of the {self.name} rules",
            f"переигровки (матча-реванша) в правилах {self.name} нет",
            f"пераігроўкі (матча-рэванша) у правілах {self.name} няма",
        )

    def start_sponsor(self, season: Season, team: str, part: str, rating: tuple[str, ...]) -> None:
        """Sova's ``start``: ``team`` is the sponsor's team (2009 §2.13); refused by a book
        without one."""
        self.check_entry(season, team, "sponsor")

    # ----------------------------------------------------------------- the book's own events

    def rematch(self, season: Season, team: str, event: Event) -> None:
        """A ``rematch`` event (2009 §2.10); refused by a book without rematches."""
        raise self.rematch_refusal(season)

    def decline_winter(self, season: Season, team: str) -> None:
        """A ``decline_winter`` event (2009 §2.12); refused by a book without it."""
        raise season.refuse(
            self.clauses["winter_rating"],
            f"giving up a winter place is not an event of the {self.name} rules",
            f"отказа от места в зимней серии в правилах {self.name} нет",
            f"адмовы ад месца ў зімовай серыі ў правілах {self.name} няма",
        )

    def check_entry(self, season: Season, team: str, enter_as: str | None) -> None:
        """Refuse an ``enter`` event of a kind the book lacks; a book no team enters
        refuses every one."""
        raise season.refuse(
            self.clauses["winter_rating"],
            f"«{team}» cannot enter: no team joins a season of the {self.name} rules",
            f"«{team}» не может войти в сезон: по правилам {self.name} команды не входят",
            f"«{team}» не можа ўвайсці ў сезон: паводле правілаў {self.name} каманды не ўваходзяць",
        )

    def enter(self, season: Season, team: str) -> None:
        """Register ``team`` as it enters (refusing what the book forbids); the engine adds it
        to ``season.teams`` then."""
