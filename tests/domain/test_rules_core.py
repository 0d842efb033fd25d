"""Core of the rules engine: spin, answer, blitz, red card, end of game, output shape.

Rule books: 000_90d7c8192601ed3a.txt §3 (2023), 002_e025d5ded135c1c4.txt §1 (2009).
"""

import json

import pytest

from webapp.domain.books import BOOKS, rule_reference
from webapp.domain.rules import (
    ProtocolError,
    RuleViolation,
    Table,
    allowed_actions,
    check_plan,
    missing_multi,
    next_unplayed,
    replay,
    split_rule,
    usual_plan,
)

R2023 = "000_90d7c8192601ed3a.txt"
R2009 = "002_e025d5ded135c1c4.txt"
NO_SPECIALS = {"blitz": None, "superblitz": None, "sector13": None}
BLITZ4 = {"blitz": 4, "superblitz": None, "sector13": None}
OUTPUT_KEYS = {
    "ruleset",
    "score",
    "finished",
    "winner",
    "decided_by",
    "rounds",
    "unanswered",
    "unasked",
    "extra_minutes_held",
    "credit",
    "removed_experts",
}


def spin(sector):
    return {"type": "spin", "sector": sector}


def right(**kw):
    return {"type": "answer", "correct": True, **kw}


def wrong(**kw):
    return {"type": "answer", "correct": False, **kw}


def q(slot, asked=True, correct=False, early=False):
    return {"slot": slot, "asked": asked, "correct": correct, "early": early}


def refusal(ruleset, table, events, context=None):
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS[ruleset], table, context, events)
    return info.value


# --------------------------------------------------------------------------- a whole game

LOST_3_6 = [
    spin(1), right(),  # 1:0
    spin(4), right(), wrong(),  # blitz lost at its second question: 1:1
    spin(5), wrong(),  # 1:2, the blitz closes, its third question unasked
    spin(12), right(),  # 2:2
    spin(13), wrong(),  # 2:3
    spin(13), right(),  # 13 and 1 played: sector 2, 3:3
    spin(7), wrong(),  # 3:4
    spin(8), wrong(),  # 3:5
    spin(9), wrong(),  # 3:6
]  # fmt: skip


def single(n, arrow, sector, won):
    return {
        "n": n,
        "arrow": arrow,
        "sector": sector,
        "kind": "single",
        "winner": "experts" if won else "viewers",
        "questions": [q(1, correct=won)],
        "aids": [],
    }


def test_experts_lose_3_6_with_one_blitz_lost():
    """§3.2.1, §3.2.2, §3.4, §3.4.1, §3.10 of 000_90d7c8192601ed3a.txt."""
    state = replay(BOOKS["2023"], BLITZ4, None, LOST_3_6)
    assert state == {
        "ruleset": "2023",
        "score": "3:6",
        "finished": True,
        "winner": "viewers",
        "decided_by": "rounds",
        "rounds": [
            single(1, 1, 1, True),
            {
                "n": 2,
                "arrow": 4,
                "sector": 4,
                "kind": "blitz",
                "winner": "viewers",
                "questions": [q(1, correct=True), q(2), q(3, asked=False)],
                "aids": [],
            },
            single(3, 5, 5, False),
            single(4, 12, 12, True),
            single(5, 13, 13, False),
            single(6, 13, 2, True),
            single(7, 7, 7, False),
            single(8, 8, 8, False),
            single(9, 9, 9, False),
        ],
        "unanswered": [
            {"sector": 4, "slot": 2},
            {"sector": 5, "slot": 1},
            {"sector": 13, "slot": 1},
            {"sector": 7, "slot": 1},
            {"sector": 8, "slot": 1},
            {"sector": 9, "slot": 1},
        ],
        "unasked": [{"sector": 4, "slot": 3}],
        "extra_minutes_held": 0,
        "credit": "none",
        "removed_experts": [],
    }
    json.dumps(state)


def test_experts_win_6_2_in_2009():
    events = [spin(s) for s in (1,)] + [right()]
    for sector, ok in [
        (2, True),
        (3, False),
        (5, True),
        (6, True),
        (8, False),
        (9, True),
        (10, True),
    ]:
        events += [spin(sector), right() if ok else wrong()]
    state = replay(BOOKS["2009"], BLITZ4, None, events)
    assert state["score"] == "6:2"
    assert state["finished"] is True
    assert state["winner"] == "experts"
    assert state["decided_by"] == "rounds"
    assert state["ruleset"] == "2009"
    assert [r["sector"] for r in state["rounds"]] == [1, 2, 3, 5, 6, 8, 9, 10]
    assert state["unanswered"] == [{"sector": 3, "slot": 1}, {"sector": 8, "slot": 1}]


def test_empty_game():
    state = replay(BOOKS["2023"], NO_SPECIALS, None, [])
    assert set(state) == OUTPUT_KEYS
    assert state["score"] == "0:0"
    assert state["finished"] is False
    assert state["winner"] is None
    assert state["decided_by"] is None
    assert state["rounds"] == []


def test_round_in_progress_is_unsettled():
    state = replay(BOOKS["2023"], NO_SPECIALS, None, [spin(6)])
    assert state["rounds"] == [
        {
            "n": 1,
            "arrow": 6,
            "sector": 6,
            "kind": "single",
            "winner": None,
            "questions": [q(1, asked=False)],
            "aids": [],
        }
    ]


def test_rulesets_registry():
    assert set(BOOKS) == {"2023", "2009"}
    assert BOOKS["2023"].rules.file == R2023
    assert BOOKS["2009"].rules.file == R2009


# --------------------------------------------------------------------------- the arrow


@pytest.mark.parametrize(
    ("arrow", "played", "expected"),
    [
        (3, set(), 3),
        (3, {3}, 4),
        (13, {13}, 1),  # wrap-around
        (12, {12, 13, 1, 2}, 3),
        (1, set(range(1, 14)) - {13}, 13),
        (5, set(range(1, 14)), None),
    ],
)
def test_next_unplayed(arrow, played, expected):
    assert next_unplayed(arrow, played) == expected


@pytest.mark.parametrize("ruleset", ["2023", "2009"])
def test_wrap_around_13_to_1(ruleset):
    events = [spin(13), right(), spin(1), wrong(), spin(13), right()]
    state = replay(BOOKS[ruleset], NO_SPECIALS, None, events)
    assert [(r["arrow"], r["sector"]) for r in state["rounds"]] == [(13, 13), (1, 1), (13, 2)]


def test_arrow_on_played_sector_lands_on_the_blitz():
    events = [spin(3), right(), spin(3)]
    state = replay(BOOKS["2023"], BLITZ4, None, events)
    assert state["rounds"][1]["sector"] == 4
    assert state["rounds"][1]["kind"] == "blitz"


@pytest.mark.parametrize(
    ("table", "sector", "kind"),
    [
        ({"blitz": 2, "superblitz": None, "sector13": None}, 2, "blitz"),
        ({"blitz": None, "superblitz": 2, "sector13": None}, 2, "superblitz"),
        ({"blitz": 3, "superblitz": 2, "sector13": 13}, 13, "sector13"),
    ],
)
def test_kinds_2009(table, sector, kind):
    state = replay(BOOKS["2009"], table, None, [spin(sector)])
    assert state["rounds"][0]["kind"] == kind


# --------------------------------------------------------------------------- blitz


@pytest.mark.parametrize("kind", ["blitz", "superblitz"])
@pytest.mark.parametrize("ruleset", ["2023", "2009"])
def test_blitz_won_with_three_right(ruleset, kind):
    table = {**NO_SPECIALS, kind: 4}
    state = replay(BOOKS[ruleset], table, None, [spin(4), right(), right(), right()])
    assert state["score"] == "1:0"
    assert state["rounds"][0]["winner"] == "experts"
    assert state["rounds"][0]["questions"] == [
        q(1, correct=True),
        q(2, correct=True),
        q(3, correct=True),
    ]
    assert state["unasked"] == []
    assert allowed_actions(BOOKS[ruleset], table, None, [spin(4), right(), right(), right()]) == [
        "spin"
    ]


def test_blitz_lost_at_first_wrong_scores_at_once():
    state = replay(BOOKS["2023"], BLITZ4, None, [spin(4), wrong()])
    assert state["score"] == "0:1"
    assert state["rounds"][0]["winner"] == "viewers"
    assert state["unanswered"] == [{"sector": 4, "slot": 1}]
    assert state["unasked"] == []  # more answers may still come


def test_lost_blitz_may_take_its_remaining_answers():
    """The contract: a blitz ends when three answers are given; a later right answer does not
    change the score, a later wrong one is one more unanswered question."""
    events = [spin(4), wrong(), right(), wrong()]
    state = replay(BOOKS["2023"], BLITZ4, None, events)
    assert state["score"] == "0:1"
    assert state["rounds"][0]["questions"] == [q(1), q(2, correct=True), q(3)]
    assert state["unanswered"] == [{"sector": 4, "slot": 1}, {"sector": 4, "slot": 3}]
    assert state["unasked"] == []
    assert allowed_actions(BOOKS["2023"], BLITZ4, None, events) == ["spin"]


def test_lost_blitz_closed_by_next_spin_leaves_questions_unasked():
    state = replay(BOOKS["2023"], BLITZ4, None, [spin(4), wrong(), spin(4)])
    assert state["unasked"] == [{"sector": 4, "slot": 2}, {"sector": 4, "slot": 3}]
    assert state["rounds"][1]["sector"] == 5


def test_lost_blitz_that_ends_the_game_leaves_questions_unasked():
    events = []
    for sector in (1, 2, 3, 5, 6):
        events += [spin(sector), wrong()]
    events += [spin(4), right(), wrong()]
    state = replay(BOOKS["2023"], BLITZ4, None, events)
    assert state["score"] == "0:6"
    assert state["finished"] is True
    assert state["unasked"] == [{"sector": 4, "slot": 3}]


def test_allowed_after_lost_blitz():
    assert allowed_actions(BOOKS["2023"], BLITZ4, None, [spin(4), wrong()]) == [
        "spin",
        "answer",
        "red_card",
    ]


# --------------------------------------------------------------------------- red card


def test_red_card_gives_the_point_to_the_viewers():
    """000_90d7c8192601ed3a.txt §3.9."""
    state = replay(BOOKS["2023"], NO_SPECIALS, None, [spin(2), {"type": "red_card"}])
    assert state["score"] == "0:1"
    assert state["rounds"][0]["winner"] == "viewers"
    assert state["rounds"][0]["questions"] == [q(1)]
    assert state["unanswered"] == [{"sector": 2, "slot": 1}]


def test_red_card_loses_a_blitz():
    state = replay(BOOKS["2023"], BLITZ4, None, [spin(4), right(), {"type": "red_card"}, spin(1)])
    assert state["score"] == "0:1"
    assert state["unanswered"] == [{"sector": 4, "slot": 2}]
    assert state["unasked"] == [{"sector": 4, "slot": 3}]


def test_red_card_in_2009_is_the_hosts_ruling():
    state = replay(BOOKS["2009"], NO_SPECIALS, None, [spin(2), {"type": "red_card"}])
    assert state["score"] == "0:1"


# --------------------------------------------------------------------------- end of game


@pytest.mark.parametrize(("ruleset", "clause"), [("2023", "§3.10"), ("2009", "§1.8")])
@pytest.mark.parametrize("winner_right", [True, False])
def test_game_ends_at_six(ruleset, clause, winner_right):
    events = []
    for sector in range(1, 7):
        events += [spin(sector), right() if winner_right else wrong()]
    state = replay(BOOKS[ruleset], NO_SPECIALS, None, events)
    assert state["finished"] is True
    assert state["score"] == ("6:0" if winner_right else "0:6")
    assert allowed_actions(BOOKS[ruleset], NO_SPECIALS, None, events) == []
    for extra in (spin(7), right(), {"type": "red_card"}, {"type": "club_help"}):
        error = refusal(ruleset, NO_SPECIALS, events + [extra])
        assert error.event_index == 12
        assert error.rule.endswith(clause)
        assert "over" in error.message


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("ruleset", "table", "events", "index", "rule"),
    [
        ("2023", NO_SPECIALS, [spin(0)], 0, f"{R2023} §3.3"),
        ("2023", NO_SPECIALS, [spin(14)], 0, f"{R2023} §3.3"),
        ("2009", NO_SPECIALS, [spin(-1)], 0, f"{R2009} §1.3"),
        ("2023", NO_SPECIALS, [spin(1), spin(2)], 1, f"{R2023} §3.2"),
        ("2009", NO_SPECIALS, [spin(1), spin(2)], 1, f"{R2009} §1.2"),
        ("2023", BLITZ4, [spin(4), right(), spin(2)], 2, f"{R2023} §3.4.1"),
        ("2009", BLITZ4, [spin(4), spin(2)], 1, f"{R2009} §1.4.3"),
        (
            "2023",
            {**NO_SPECIALS, "superblitz": 4},
            [spin(4), spin(2)],
            1,
            f"{R2023} §3.4.2",
        ),
        ("2009", {**NO_SPECIALS, "superblitz": 4}, [spin(4), spin(2)], 1, f"{R2009} §1.4.2"),
        ("2023", NO_SPECIALS, [right()], 0, f"{R2023} §3.4"),
        ("2023", NO_SPECIALS, [spin(1), right(), wrong()], 2, f"{R2023} §3.4"),
        ("2009", NO_SPECIALS, [{"type": "red_card"}], 0, f"{R2009} §1.4"),
        ("2023", NO_SPECIALS, [{"type": "extra_minute"}], 0, f"{R2023} §3.4"),
    ],
)
def test_refusals(ruleset, table, events, index, rule):
    error = refusal(ruleset, table, events)
    assert (error.event_index, error.rule) == (index, rule)
    assert error.to_json() == {"error": {"event": index, "rule": rule, "message": error.message}}
    assert error.message


def test_refused_spin_message_names_the_sector():
    error = refusal("2023", NO_SPECIALS, [spin(14)])
    assert "14" in error.message


def test_wrong_field_type_is_a_protocol_error_not_a_refusal():
    with pytest.raises(ProtocolError):
        replay(BOOKS["2023"], NO_SPECIALS, None, [{"type": "spin", "sector": "3"}])


def test_replay_does_not_modify_its_input():
    events = [spin(4), right()]
    table = dict(BLITZ4)
    replay(BOOKS["2023"], table, None, events)
    assert events == [spin(4), right()]
    assert table == BLITZ4


def test_sector13_pool_per_rule_book():
    """2023 §3.3: a partner's question laid beforehand; 2009 §1.4.1: drawn live at the spin."""
    from webapp.domain.books.b2009.rules import RULESET_2009
    from webapp.domain.books.b2023.rules import RULESET_2023

    assert (RULESET_2023.sector13_pool, RULESET_2023.sector13_drawn_at_spin) == ("partner", False)
    assert (RULESET_2009.sector13_pool, RULESET_2009.sector13_drawn_at_spin) == ("live", True)
    assert [name for name, book in BOOKS.items() if book.live_sector13] == ["2009"]


def test_usual_plan_and_missing_multi_sectors():
    for rules in (book.rules for book in BOOKS.values()):
        plan = usual_plan(rules)
        assert plan.to_json() == {"blitz": 11, "superblitz": 12, "sector13": 13}
        check_plan(plan, rules)  # the usual plan is legal under its book
        assert missing_multi(plan, rules) == ()
        assert missing_multi(Table(sector13=13), rules) == ("blitz", "superblitz")
        assert missing_multi(Table(blitz=4), rules) == ("superblitz",)


def test_rule_reference_names_the_book_in_russian():
    assert rule_reference("000_90d7c8192601ed3a.txt §3.5") == "п. 3.5 Правил сезона 2023 г."
    assert rule_reference("002_e025d5ded135c1c4.txt §1.4") == "п. 1.4 Правил сезона 2009 г."
    assert rule_reference("other.txt §1") == "other.txt §1"  # unknown book: unchanged
    assert rule_reference("§3.5") == "§3.5" and rule_reference("") == ""
    assert split_rule("000_90d7c8192601ed3a.txt §4.11.1") == ("000_90d7c8192601ed3a.txt", "4.11.1")


def test_off_table_after_hint_per_rule_book():
    """2023 §3.7.3: a hinting expert of a season team starts his team's next game off the
    table; the 2009 book has no such clause."""
    from webapp.domain.books.b2009.rules import RULESET_2009
    from webapp.domain.books.b2023.rules import RULESET_2023

    assert (RULESET_2023.off_table_after_hint, RULESET_2009.off_table_after_hint) == (True, False)


def test_series_rematch_per_rule_book():
    """2009 §2.10: the loser of a series final may be granted a rematch in the next series;
    the 2023 book has none."""
    from webapp.domain.books.b2009.rules import RULESET_2009
    from webapp.domain.books.b2023.rules import RULESET_2023

    assert (RULESET_2023.series_rematch, RULESET_2009.series_rematch) == (False, True)


def test_audience_vote_per_rule_book():
    """2009 §3.1: the viewers choose the best player of each game by SMS; 2023 has no vote."""
    from webapp.domain.books.b2009.rules import RULESET_2009
    from webapp.domain.books.b2023.rules import RULESET_2023

    assert (RULESET_2023.audience_vote, RULESET_2009.audience_vote) == (False, True)


def test_decisive_round_per_rule_book():
    """2023 §3.6: a decisive round (and so the series' best score to pass, read by
    ``webapp.games.season.queries.series_best``); 2009 §1.8: the game goes to 6 points, no decisive round."""
    from webapp.domain.books.b2009.rules import RULESET_2009
    from webapp.domain.books.b2023.rules import RULESET_2023

    assert (RULESET_2023.decisive_round, RULESET_2009.decisive_round) == (True, False)
