"""What a rule book tells the game engine: :class:`RuleSet`, which clause decides what and
the switches where books differ.

Each book's rule set lives in its book's package (``webapp.domain.books.b2023.rules``,
``webapp.domain.books.b2009.rules``); the engine (:mod:`webapp.domain.rules.game`) is handed
one and asks it for a switch (``rules.credit_minute``) or for the clause of a topic
(``rules.cite("club_help")``), never for a book by its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Protocol

SINGLE = "single"
BLITZ = "blitz"
SUPERBLITZ = "superblitz"
SECTOR13 = "sector13"
KINDS = (SINGLE, BLITZ, SUPERBLITZ, SECTOR13)
MULTI_KINDS = frozenset({BLITZ, SUPERBLITZ})

SECTOR13_OPTIONS = ("six", "three", "one")


@dataclass(frozen=True)
class RuleSet:
    """One rule book as the engine sees it.

    ``clauses`` maps a topic (``"game_end"``, ``"club_help"``…) to its clause (``"§3.10"``);
    :meth:`cite` turns a topic into the citation used in :class:`RuleViolation`.
    ``currency`` (ISO 4217) is the one the book pays prizes in; ``timezone`` (IANA) is where
    its broadcasts air (game dates and the 2009 air-day bound are read there).
    ``sector13_pool`` names where sector 13's question comes from: ``"partner"`` (2023:
    a partner's question laid on the table beforehand, 000_90d7c8192601ed3a.txt §3.3) or
    ``"live"`` (2009: the computer draws it among the viewers' questions sent during the
    broadcast, at the spin, 002_e025d5ded135c1c4.txt §1.4.1); ``sector13_drawn_at_spin``
    is True for the latter (its envelope holds no question beforehand).

    Beyond the game itself (the product's season, prizes and vote read these):
    ``off_table_after_hint`` — a hinting expert of a season team starts his team's next game
    off the table (000_90d7c8192601ed3a.txt §3.7.3; True in 2023, not in 2009);
    ``series_rematch`` — the loser of a series final may be granted a rematch in the next
    series, where his qualifying game is that rematch (002_e025d5ded135c1c4.txt §2.10; True in
    2009, not in 2023); ``audience_vote`` — the best player of each game is chosen by the
    viewers' SMS vote (002_e025d5ded135c1c4.txt §3.1; True in 2009, not in 2023).

    Amendable (000_90d7c8192601ed3a.txt §4.12.1, :meth:`amended`): ``points_to_win`` (6 in
    both books), ``club_help_uses`` (club help a game: 1 in 2023, §3.7; 11 — never binding —
    in 2009, §1.7), ``decisive_round``, ``credit_minute``; ``amended_values`` holds what was
    amended (``{}`` for the book's own rules).

    The book's amendable parameters (:mod:`webapp.domain.rules.parameters`): ``parameters``
    their values in the book (a parameter absent here the book does not have),
    ``parameter_clauses`` the clause each comes from (``"§3.2, §3.10"``),
    ``silent_parameters`` those whose value is only the engine's reading of a book that names
    no number (pages show them once amended). ``plan_sector13_fixed``: the book puts sector
    13's questions in sector 13 and the blitz and the superblitz elsewhere (checked by
    :func:`~webapp.domain.rules.table.check_plan`); ``warns_missing_multi``: the book has a
    blitz and a superblitz, so a plan without one is worth a warning. ``wording``: the
    sentences of the refusal codes only this book raises, ``{code: {language: sentence}}``
    (:mod:`webapp.domain.rules.refusals` holds the shared ones).
    """

    name: str
    file: str
    currency: str
    timezone: str
    clauses: Mapping[str, str]
    decisive_round: bool
    credit_minute: bool
    sector13_options: bool
    removal_rule: bool
    club_help_once: bool
    club_help_excluded: frozenset[str]
    sector13_no_aids: bool
    extra_minute_one_per_blitz: bool
    early_earns_in: frozenset[str]
    sector13_pool: str
    sector13_drawn_at_spin: bool
    off_table_after_hint: bool
    series_rematch: bool
    audience_vote: bool
    points_to_win: int = 6
    club_help_uses: int = 1
    parameters: Mapping[str, int | bool] = field(default_factory=lambda: MappingProxyType({}))
    parameter_clauses: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    silent_parameters: frozenset[str] = frozenset()
    plan_sector13_fixed: bool = False
    warns_missing_multi: bool = False
    wording: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: MappingProxyType({}))
    amended_values: Mapping[str, int | bool] = field(default_factory=lambda: MappingProxyType({}))

    def __deepcopy__(self, memo: dict[int, object]) -> RuleSet:
        return self  # immutable: a copied game shares its rule set

    def amended(self, values: Mapping[str, int | bool] | None) -> RuleSet:
        """This rule set with the amendable parameters of ``values`` (000_….txt §4.12.1;
        :mod:`webapp.domain.rules.parameters`) in force: ``points_to_win``, ``club_help``
        (uses a game), ``decisive_round``, ``credit_minute``; a season-only parameter
        (``losses_to_out``) is kept in ``amended_values`` only. ``values`` must be checked
        (:func:`~webapp.domain.rules.parameters.check_values`); ``None``/``{}`` → ``self``."""
        if not values:
            return self
        fields: dict[str, object] = {"amended_values": MappingProxyType(dict(values))}
        for name, value in values.items():
            target = {"club_help": "club_help_uses"}.get(name, name)
            if target in ("points_to_win", "club_help_uses", "decisive_round", "credit_minute"):
                fields[target] = value
        return replace(self, **fields)  # type: ignore[arg-type]

    def cite(self, topic: str) -> str:
        """``"<file> §<clause>"`` for ``topic``; ``KeyError`` for a topic the book lacks."""
        return f"{self.file} {self.clauses[topic]}"


class HasRules(Protocol):
    """A book as the engines take it: anything holding its game :class:`RuleSet`."""

    @property
    def rules(self) -> RuleSet: ...


def rule_set(book: RuleSet | HasRules) -> RuleSet:
    """The game rule set of ``book`` (a :class:`RuleSet` itself, or a book holding one)."""
    return book if isinstance(book, RuleSet) else book.rules


def split_rule(rule: str) -> tuple[str, str]:
    """``"000_90d7c8192601ed3a.txt §3.5"`` → ``("000_90d7c8192601ed3a.txt", "3.5")``;
    ``(rule, "")`` when ``rule`` has no ``" §"``."""
    source, _, clause = rule.partition(" §")
    return (source, clause) if clause else (rule, "")
