"""The rules engine of «Что? Где? Когда?» games: pure, standard library only.

A game is its ordered event list (``shared/contracts/game-protocol.md``); its state is derived
by replaying the events under a book's rule set (:class:`RuleSet`). The books live in
``webapp.domain.books`` (``BOOKS["2023"]``: ``000_90d7c8192601ed3a.txt`` §3, the Belarusian
edition; ``BOOKS["2009"]``: ``002_e025d5ded135c1c4.txt`` §1, the Russian edition); the engine
is handed one and never looks a book up by its name (this package does not import the books).

Public API (``book``: a book, or its :class:`RuleSet`)::

    state = replay(book, table, context, events)         # dict, or RuleViolation / ProtocolError
    book, table, context, events = load_protocol(data, BOOKS)  # "sova.game-protocol/1"
    rules = load_protocol_rules(data, BOOKS)             # its amended parameters (§4.12.1)
    replay(book, table, context, events, rules=rules)    # replayed under them
    allowed_actions(book, table, context, events)        # ["spin", "decisive_round"], [] when over
    answer_modes(book, table, context, events)           # ["discussed", "early"] (§3.5, §3.8.4)
    check_plan(Table(...), BOOKS["2009"].rules)          # 2009 §1.3, §1.4.2–§1.4.3 (RuleViolation)

A refusal carries a ``code`` and its ``params``; ``webapp.domain.books.refusal_text`` words it
(ru/be/en) from the shared :mod:`.refusals` and the book's own wording.
"""

from .errors import ProtocolError, RuleViolation
from .game import (
    Game,
    allowed_actions,
    answer_modes,
    can_pass_without_decisive,
    new_game,
    replay,
)
from .parameters import PARAMETERS, ParameterError
from .protocol import FORMAT, load_protocol, load_protocol_rules
from .rulesets import RuleSet, rule_set, split_rule
from .table import Table, check_plan, missing_multi, next_unplayed, usual_plan

__all__ = [
    "FORMAT",
    "PARAMETERS",
    "Game",
    "ParameterError",
    "ProtocolError",
    "RuleSet",
    "RuleViolation",
    "Table",
    "allowed_actions",
    "answer_modes",
    "can_pass_without_decisive",
    "check_plan",
    "load_protocol",
    "load_protocol_rules",
    "missing_multi",
    "new_game",
    "next_unplayed",
    "replay",
    "rule_set",
    "split_rule",
    "usual_plan",
]
