"""The two rule sets: which clause decides what, and the few switches where they differ.

- ``"2023"``: rule book ``000_90d7c8192601ed3a.txt`` §3 (Belarusian edition, season 2023).
- ``"2009"``: rule book ``002_e025d5ded135c1c4.txt`` §1 (Russian edition, 2009).

The engine (:mod:`webapp.domain.rules.game`) asks a :class:`RuleSet` for a switch
(``rules.credit_minute``) or for the clause of a topic (``rules.cite("club_help")``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

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


RULESET_2023 = RuleSet(
    name="2023",
    file="000_90d7c8192601ed3a.txt",
    currency="BYN",  # §4.11.1: prizes in Belarusian roubles
    timezone="Europe/Minsk",  # the Belarusian edition airs in Minsk
    clauses=MappingProxyType(
        {
            "question": "§3.2",
            "scoring": "§3.2.1",
            "table": "§3.3",
            "spin": "§3.4",
            "blitz": "§3.4.1",
            "superblitz": "§3.4.2",
            "sector13": "§3.4.3",
            "early": "§3.5",
            "early_blitz": "§3.5.1",
            "decisive": "§3.6",
            "decisive_blitz": "§3.6.1",
            "decisive_sector13": "§3.6.2",
            "club_help_once": "§3.7",
            "club_help": "§3.7.1",
            "credit": "§3.8",
            "credit_order": "§3.8.1",
            "credit_sector13": "§3.8.2",
            "credit_repay": "§3.8.3",
            "credit_forced": "§3.8.4",
            "credit_decisive": "§3.8.5",
            "red_card": "§3.9",
            "off_table": "§3.7.3",
            "game_end": "§3.10",
        }
    ),
    decisive_round=True,
    credit_minute=True,
    sector13_options=True,
    removal_rule=False,
    club_help_once=True,
    club_help_excluded=frozenset({BLITZ, SUPERBLITZ, SECTOR13}),
    sector13_no_aids=True,
    extra_minute_one_per_blitz=True,
    early_earns_in=frozenset({SINGLE}),
    sector13_pool="partner",  # §3.3
    sector13_drawn_at_spin=False,
    off_table_after_hint=True,  # §3.7.3
    series_rematch=False,
    audience_vote=False,
    points_to_win=6,  # §3.2, §3.10
    club_help_uses=1,  # §3.7: «один раз»
)

RULESET_2009 = RuleSet(
    name="2009",
    file="002_e025d5ded135c1c4.txt",
    currency="RUB",  # §3.2: prizes in Russian roubles
    timezone="Europe/Moscow",  # the Russian edition airs in Moscow
    clauses=MappingProxyType(
        {
            "question": "§1.2",
            "scoring": "§1.2.1",
            "red_card": "§1.2.3",  # no hint clause in 2009: the host rules on the answer
            "table": "§1.3",
            "spin": "§1.4",
            "sector13": "§1.4.1",
            "superblitz": "§1.4.2",
            "blitz": "§1.4.3",
            "early": "§1.5",
            "removal": "§1.6",
            "club_help": "§1.7",
            "game_end": "§1.8",
            # what 2009 lacks is refused by the clause that leaves no room for it:
            "decisive": "§1.8",  # the game goes to 6 points, no decisive round
            "credit": "§1.2",  # one minute per question, no minute on credit
        }
    ),
    decisive_round=False,
    credit_minute=False,
    sector13_options=False,
    removal_rule=True,
    club_help_once=False,
    club_help_excluded=frozenset({BLITZ, SUPERBLITZ}),
    sector13_no_aids=False,
    extra_minute_one_per_blitz=False,
    early_earns_in=frozenset(KINDS),
    sector13_pool="live",  # §1.4.1
    sector13_drawn_at_spin=True,  # §1.4.1
    off_table_after_hint=False,
    series_rematch=True,  # §2.10
    audience_vote=True,  # §3.1
    points_to_win=6,  # §1.8
    club_help_uses=11,  # §1.7 has no limit a game; a game has at most 11 rounds
)

RULESETS: Mapping[str, RuleSet] = MappingProxyType({"2023": RULESET_2023, "2009": RULESET_2009})
"""Rule sets by name (the ``ruleset`` field of the protocol): ``"2023"`` and ``"2009"``."""

RULESETS_BY_FILE: Mapping[str, RuleSet] = MappingProxyType({r.file: r for r in RULESETS.values()})

LIVE_SECTOR13_RULESETS: tuple[str, ...] = tuple(
    name for name, rules in RULESETS.items() if rules.sector13_pool == "live"
)
"""Names of the rule sets whose sector 13 takes viewers' questions during the broadcast
(002_e025d5ded135c1c4.txt §1.4.1): the ``/live`` form is open for their live games."""

BOOK_NAMES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "ru": MappingProxyType(
            {RULESET_2023.file: "Правил сезона 2023 г.", RULESET_2009.file: "Правил сезона 2009 г."}
        ),
        "be": MappingProxyType(
            {
                RULESET_2023.file: "Правілаў сезона 2023 г.",
                RULESET_2009.file: "Правілаў сезона 2009 г.",
            }
        ),
        "en": MappingProxyType(
            {
                RULESET_2023.file: "of the 2023 season rules",
                RULESET_2009.file: "of the 2009 season rules",
            }
        ),
    }
)
"""Each rule book as a reader names it after the clause number, by language (``"ru"``,
``"be"``, ``"en"``): Russian and Belarusian in the genitive («п. 3.1 Правил сезона 2009 г.»),
English as «clause 3.1 of the 2009 season rules»."""

BOOK_NAMES_RU: Mapping[str, str] = BOOK_NAMES["ru"]
"""Short Russian name of each rule book (genitive, after «п. 3.5») for staff pages."""

_CLAUSE_WORD = MappingProxyType({"ru": "п.", "be": "п.", "en": "clause"})

BOOK_TITLES_RU: Mapping[str, str] = MappingProxyType(
    {
        RULESET_2023.file: "Положения о телевизионном проекте (правила сезона 2023 года)",
        RULESET_2009.file: "Правил игры «Что? Где? Когда?» 2009 года",
    }
)
"""Each rule book's full Russian title (genitive), as a signed paper names it."""


def split_rule(rule: str) -> tuple[str, str]:
    """``"000_90d7c8192601ed3a.txt §3.5"`` → ``("000_90d7c8192601ed3a.txt", "3.5")``;
    ``(rule, "")`` when ``rule`` has no ``" §"``."""
    source, _, clause = rule.partition(" §")
    return (source, clause) if clause else (rule, "")


def cite(rule: str | None, lang: str = "ru", style: str = "page") -> str:
    """A citation as a person reads it — the one form for every page, PDF, e-mail and
    human-readable error (the machine-readable ``rule`` fields of the JSON contracts keep the
    ``"<file> §<clause>"`` form):

    - ``"002_e025d5ded135c1c4.txt §3.1"`` → ``"п. 3.1 Правил сезона 2009 г."``;
    - ``"000_90d7c8192601ed3a.txt §4.4"`` → ``"п. 4.4 Правил сезона 2023 г."``;
    - ``lang="be"`` → ``"п. 4.4 Правілаў сезона 2023 г."``; ``lang="en"`` →
      ``"clause 4.4 of the 2023 season rules"`` (another language reads as Russian);
    - a range ``"… §4.11.2–§4.11.5"`` → ``"п. 4.11.2–4.11.5 …"``;
    - ``style="paper"`` (agreements, minutes: the book's full title, Russian) →
      ``"п. 4.11.1 Положения о телевизионном проекте (правила сезона 2023 года)"``;
      ``style="column"`` (a register's narrow column) → ``"п. 4.11.1 (2023)"``.

    ``None`` or ``""`` gives ``""``; a citation of an unknown book or without a clause is
    returned unchanged (never raises)."""
    source, clause = split_rule(rule or "")
    lang = lang if lang in BOOK_NAMES else "ru"
    book = BOOK_NAMES[lang].get(source)
    if not (clause and book):
        return rule or ""
    clause = clause.replace("§", "")
    if style == "paper":
        return f"п. {clause} {BOOK_TITLES_RU[source]}"
    if style == "column":
        return f"п. {clause} ({RULESETS_BY_FILE[source].name})"
    return f"{_CLAUSE_WORD[lang]} {clause} {book}"


def rule_reference(rule: str) -> str:
    """The Russian :func:`cite` (kept under this name for its callers)."""
    return cite(rule)
