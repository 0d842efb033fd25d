"""The rules engine of «Что? Где? Когда?» games: pure, standard library only.

A game is its ordered event list (``shared/contracts/game-protocol.md``); its state is derived
by replaying the events under a rule set:

- ``"2023"``: ``000_90d7c8192601ed3a.txt`` §3 (Belarusian edition);
- ``"2009"``: ``002_e025d5ded135c1c4.txt`` §1 (Russian edition).

Public API::

    state = replay(ruleset, table, context, events)        # dict, or RuleViolation / ProtocolError
    ruleset, table, context, events = load_protocol(data)  # validates "sova.game-protocol/1"
    rules = load_protocol_rules(data)                      # its amended parameters (§4.12.1)
    replay(ruleset, table, context, events, rules=rules)   # replayed under them
    allowed_actions(ruleset, table, context, events)       # ["spin", "decisive_round"], [] when over
    answer_modes(ruleset, table, context, events)          # ["discussed", "early"] (§3.5, §3.8.4)
    check_plan(Table(...), RULESETS["2009"])               # 2009 §1.3, §1.4.2–§1.4.3 (RuleViolation)
    refusal_text(violation, "be")                          # a RuleViolation in a person's words
    RULESETS                                               # {"2023": RuleSet, "2009": RuleSet}
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
from .refusals import refusal_text
from .rulesets import RULESETS, RuleSet, cite, rule_reference, split_rule
from .table import Table, check_plan, missing_multi, next_unplayed, usual_plan

__all__ = [
    "FORMAT",
    "PARAMETERS",
    "RULESETS",
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
    "cite",
    "load_protocol",
    "load_protocol_rules",
    "missing_multi",
    "new_game",
    "next_unplayed",
    "refusal_text",
    "replay",
    "rule_reference",
    "split_rule",
    "usual_plan",
]
