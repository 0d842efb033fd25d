"""The amendable parameters of the rule sets (000_90d7c8192601ed3a.txt §4.12.1).

«4.12.1. В течение срока проведения Проекта правила Игры могут изменяться, дополняться и
корректироваться.» The producer may change a few numbers and switches of the rules during a
season (the season event ``amend``, ``shared/contracts/season-protocol.md``); both engines read
them from the rules in force: the game engine (:mod:`webapp.domain.rules.game`) through
:meth:`RuleSet.amended`, the season engine through its own ``rules`` mapping.

A book's values of the parameters and their clauses are the book's own
(:attr:`RuleSet.parameters`, :attr:`RuleSet.parameter_clauses`, in its package); this module
holds what every book shares: the parameters themselves and the checks. Every function is
handed the book (its :class:`RuleSet`, or a book holding one), never its name.

Pure and standard library only. Public API::

    PARAMETERS                          # {name: Parameter}, in the order they are listed
    defaults(book)                      # {"points_to_win": 6, "club_help": 1, ...}
    check_values(book, {"points_to_win": 7})   # the checked values, or ParameterError
    describe(book)                      # what ``sova rules show 2023`` prints
    AMEND_CLAUSE                        # "000_90d7c8192601ed3a.txt §4.12.1"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .rulesets import HasRules, RuleSet, rule_set

AMEND_CLAUSE = "000_90d7c8192601ed3a.txt §4.12.1"
"""The clause an amendment (and its refusal) cites, in a season of either book: the 2009 book
has no clause of its own on changing the rules, and the amendment event is the 2023 one."""


class ParameterError(ValueError):
    """An amendment the parameter table refuses: unknown parameter, a parameter the rule book
    does not have, a value of the wrong type or out of range. ``message`` is English (what is
    wrong), ``ru`` the same in Russian for the staff pages, ``be`` in Belarusian (the season's
    refusal of an amendment carries all three)."""

    def __init__(self, message: str, ru: str, be: str) -> None:
        super().__init__(message)
        self.message = message
        self.ru = ru
        self.be = be


@dataclass(frozen=True)
class Parameter:
    """One amendable parameter.

    ``kind``: ``int`` or ``bool``; ``low``/``high``: the inclusive range of an int (``high``
    ``None`` = no upper bound); ``changes``: what it changes, in English (``docs/rules.md`` repeats it); ``label_ru``: its
    name on the staff and public pages (Russian); ``label_be``: the same in Belarusian.
    """

    name: str
    label_ru: str
    label_be: str
    kind: type
    low: int | None
    high: int | None
    changes: str

    def range_json(self) -> list[Any]:
        """``[low, high]`` (``high`` ``None`` = unbounded); ``[false, true]`` for a bool."""
        return [False, True] if self.kind is bool else [self.low, self.high]

    def check(self, value: Any) -> int | bool:
        """``value`` if it has this parameter's type and range, else :class:`ParameterError`."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ParameterError(
                    f"{self.name} must be true or false, got {value!r}",
                    f"{self.label_ru}: нужно «да» или «нет», получено {value!r}",
                    f"{self.label_be}: патрэбна «так» або «не», атрымана {value!r}",
                )
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise ParameterError(
                f"{self.name} must be a whole number, got {value!r}",
                f"{self.label_ru}: нужно целое число, получено {value!r}",
                f"{self.label_be}: патрэбны цэлы лік, атрымана {value!r}",
            )
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            bounds = f"{self.low}..{self.high}" if self.high is not None else f"{self.low} or more"
            bounds_ru = (
                f"от {self.low} до {self.high}"
                if self.high is not None
                else f"не меньше {self.low}"
            )
            bounds_be = (
                f"ад {self.low} да {self.high}"
                if self.high is not None
                else f"не менш за {self.low}"
            )
            raise ParameterError(
                f"{self.name} must be {bounds}, got {value}",
                f"{self.label_ru}: допустимо {bounds_ru}, получено {value}",
                f"{self.label_be}: дапушчальна {bounds_be}, атрымана {value}",
            )
        return value


PARAMETERS: Mapping[str, Parameter] = MappingProxyType(
    {
        p.name: p
        for p in (
            Parameter(
                name="points_to_win",
                label_ru="очков для победы в игре",
                label_be="ачкоў для перамогі ў гульні",
                kind=int,
                low=1,
                high=12,
                changes="the points that win a game (and so the finished scores the season "
                "accepts, the decisive round's and the minute on credit's score conditions, "
                "which the engine reads as «one point short of it»)",
            ),
            Parameter(
                name="club_help",
                label_ru="«Помощь Клуба» за игру, раз",
                label_be="«Дапамога Клуба» за гульню, разоў",
                kind=int,
                low=0,
                high=None,
                changes="how many times a game the experts may take club help (0: never); "
                "once a question and only while behind stays as the book says",
            ),
            Parameter(
                name="decisive_round",
                label_ru="решающий раунд",
                label_be="вырашальны раўнд",
                kind=bool,
                low=None,
                high=None,
                changes="whether the experts may ask for the decisive round",
            ),
            Parameter(
                name="credit_minute",
                label_ru="«Минута в кредит»",
                label_be="«Хвіліна ў крэдыт»",
                kind=bool,
                low=None,
                high=None,
                changes="whether the experts may ask for the minute on credit",
            ),
            Parameter(
                name="losses_to_out",
                label_ru="поражений до выбытия из сезона",
                label_be="паражэнняў да выбыцця з сезона",
                kind=int,
                low=1,
                high=None,
                changes="the lost games (qualifying or series final) that put a team out of "
                "the season",
            ),
        )
    }
)
"""Every amendable parameter, in the order ``sova rules show`` lists them."""


Book = RuleSet | HasRules
"""What the functions below take: a book's game rule set, or a book holding one."""


def defaults(book: Book) -> dict[str, int | bool]:
    """The book's values of every parameter it has: ``{name: value}``."""
    return dict(rule_set(book).parameters)


def check_values(book: Book, values: Any) -> dict[str, int | bool]:
    """Check ``values`` (``{parameter: value, …}``, possibly partial) against the book's
    table and return them as a new dict. :class:`ParameterError` names the first fault: not an
    object, an unknown parameter, a parameter the book does not have, a wrong type or range."""
    rules = rule_set(book)
    if not isinstance(values, dict):
        raise ParameterError(
            f"the rules must be an object {{parameter: value}}, got {type(values).__name__}",
            f"правила задаются объектом {{параметр: значение}}, получено {type(values).__name__}",
            f"правілы задаюцца аб'ектам {{параметр: значэнне}}, атрымана {type(values).__name__}",
        )
    checked: dict[str, int | bool] = {}
    for name, value in values.items():
        parameter = PARAMETERS.get(name)
        if parameter is None:
            raise ParameterError(
                f"unknown parameter {name!r}; amendable: {', '.join(PARAMETERS)}",
                f"неизвестный параметр {name!r}; изменять можно: "
                + ", ".join(f"«{p.label_ru}»" for p in PARAMETERS.values()),
                f"невядомы параметр {name!r}; змяняць можна: "
                + ", ".join(f"«{p.label_be}»" for p in PARAMETERS.values()),
            )
        if name not in rules.parameters:
            raise ParameterError(
                f"the {rules.name} rule book has no {name}: it cannot be amended",
                f"в правилах {rules.name} г. нет параметра «{parameter.label_ru}»: изменить его нельзя",
                f"у правілах {rules.name} г. няма параметра «{parameter.label_be}»: змяніць яго "
                "нельга",
            )
        checked[name] = parameter.check(value)
    return checked


def in_force(book: Book, values: Any = None) -> dict[str, int | bool]:
    """The book's values overlaid with ``values`` (checked as :func:`check_values` does)."""
    return {**defaults(book), **check_values(book, values or {})}


def unchanged(in_force_now: Mapping[str, Any], values: Any) -> bool:
    """Whether the amendment ``values`` (``{parameter: value}``, not empty) changes nothing:
    each parameter already has that value, of the same type, in ``in_force_now`` (the rules
    in force, :func:`in_force`). 000_90d7c8192601ed3a.txt §4.12.1 lets the rules «изменяться,
    дополняться и корректироваться»: an amendment that changes nothing is no amendment, and
    recorded it would be listed among the season's changes as one. False for anything that
    is not such a mapping (:func:`check_values` refuses it)."""
    if not isinstance(values, Mapping) or not values:
        return False
    return all(
        name in in_force_now
        and type(in_force_now[name]) is type(value)
        and in_force_now[name] == value
        for name, value in values.items()
    )


def describe(book: Book) -> dict[str, Any]:
    """What ``sova rules show RULESET`` prints: ``{"ruleset", "file", "clause" (§4.12.1),
    "parameters": [{"name", "type": "int"|"bool", "range": [low, high], "default",
    "clause": "<file> §…", "changes"}]}``."""
    rules = rule_set(book)
    return {
        "ruleset": rules.name,
        "file": rules.file,
        "clause": AMEND_CLAUSE,
        "parameters": [
            {
                "name": p.name,
                "type": p.kind.__name__,
                "range": p.range_json(),
                "default": rules.parameters[p.name],
                "clause": f"{rules.file} {rules.parameter_clauses[p.name]}",
                "changes": p.changes,
            }
            for p in PARAMETERS.values()
            if p.name in rules.parameters
        ],
    }


def shown_rules(book: Book, rules: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of ``rules`` (``{name: value}`` in force) a page shows for a season of
    ``book``: every one, except one of the book's silent parameters
    (:attr:`RuleSet.silent_parameters`) still at the book's value."""
    own = rule_set(book)
    return {
        name: value
        for name, value in rules.items()
        if name not in own.silent_parameters or value != own.parameters.get(name)
    }


def rules_clauses(book: Book, names: Iterable[str]) -> list[str]:
    """The clauses a page of a season of ``book`` cites for its rules in force: 2023 the
    clause that lets them change (:data:`AMEND_CLAUSE`); a book without such a clause (2009)
    the clauses of the parameters ``names`` it shows (``["002_….txt §1.8"]``)."""
    own = rule_set(book)
    if AMEND_CLAUSE.startswith(own.file + " "):
        return [AMEND_CLAUSE]
    out: list[str] = []
    for name in names:
        for clause in own.parameter_clauses[name].split(", "):
            if f"{own.file} {clause}" not in out:
                out.append(f"{own.file} {clause}")
    return out
