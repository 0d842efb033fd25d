"""Rule set 2023 (000_90d7c8192601ed3a.txt §3): early answers and the extra minute, club help,
the minute on credit, sector 13 options, the decisive round."""

import pytest

from tests.game_data import single_rounds as play
from webapp.domain.books import BOOKS
from webapp.domain.rules import (
    RuleViolation,
    allowed_actions,
    answer_modes,
    can_pass_without_decisive,
    replay,
)

R = "000_90d7c8192601ed3a.txt"
T = {"blitz": 4, "superblitz": 10, "sector13": 13}
NO13 = {"blitz": 4, "superblitz": 10, "sector13": None}  # sector 13 plays one question

EXTRA = {"type": "extra_minute"}
CLUB = {"type": "club_help"}
CREDIT = {"type": "credit_minute"}
DECISIVE = {"type": "decisive_round"}
RED = {"type": "red_card"}


def spin(sector):
    return {"type": "spin", "sector": sector}


def right(early=False):
    return {"type": "answer", "correct": True, "early": early}


def wrong(early=False):
    return {"type": "answer", "correct": False, "early": early}


def option(name):
    return {"type": "sector13_option", "option": name}


def refused(events, clause, context=None, table=T):
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], table, context, events)
    assert info.value.rule == f"{R} {clause}", info.value.message
    assert info.value.event_index == len(events) - 1
    return info.value


def state(events, context=None, table=T):
    return replay(BOOKS["2023"], table, context, events)


# --------------------------------------------------------------------------- §3.5 early answer


def test_right_early_answer_earns_an_extra_minute_and_it_is_spent():
    """§3.5."""
    events = [spin(1), right(early=True)]
    assert state(events)["extra_minutes_held"] == 1
    events += [spin(2), EXTRA, wrong()]
    s = state(events)
    assert s["extra_minutes_held"] == 0
    assert s["rounds"][1]["aids"] == ["extra_minute"]
    assert s["rounds"][0]["questions"][0]["early"] is True


def test_wrong_early_answer_earns_nothing():
    assert state([spin(1), wrong(early=True)])["extra_minutes_held"] == 0


def test_extra_minute_without_one_held():
    refused([spin(1), EXTRA], "§3.5")


def test_one_extra_minute_per_question():
    events = [spin(1), right(True), spin(2), right(True), spin(3), EXTRA, EXTRA]
    refused(events, "§3.5")


def test_early_answer_in_blitz_earns_nothing():
    """§3.5.1."""
    s = state([spin(4), right(True), right(True), right(True)])
    assert s["extra_minutes_held"] == 0
    assert s["score"] == "1:0"


def test_extra_minute_serves_one_blitz_question_only():
    """§3.5: in blitz and superblitz the extra minute serves only one of the three."""
    events = [spin(1), right(True), spin(2), right(True), spin(4), EXTRA, right()]
    assert state(events)["rounds"][2]["aids"] == ["extra_minute"]
    refused(events + [EXTRA], "§3.5")


def test_extra_minute_not_in_sector13():
    """§3.4.3."""
    refused([spin(1), right(True), spin(13), option("six"), EXTRA], "§3.4.3")


def test_early_answer_after_an_aid_is_refused():
    refused([spin(1), right(True), spin(2), EXTRA, right(early=True)], "§3.5")


def test_extra_minute_in_a_lost_blitz():
    refused([spin(1), right(True), spin(4), wrong(), EXTRA], "§3.4.1")


# --------------------------------------------------------------------------- §3.7 club help


def test_club_help_while_behind():
    s = state([spin(1), wrong(), spin(2), CLUB, right()])
    assert s["rounds"][1]["aids"] == ["club_help"]
    assert s["score"] == "1:1"


def test_club_help_at_a_draw_cites_3_7_1():
    error = refused(play("EV") + [spin(3), CLUB], "§3.7.1")
    assert error.message == "club help only while the experts are behind (score 1:1)"


def test_club_help_once_a_game():
    refused([spin(1), wrong(), spin(2), CLUB, wrong(), spin(3), CLUB], "§3.7")


@pytest.mark.parametrize("sector", [4, 10])
def test_club_help_not_in_blitz_or_superblitz(sector):
    refused([spin(1), wrong(), spin(sector), CLUB], "§3.7.1")


def test_club_help_not_in_sector13():
    refused([spin(1), wrong(), spin(13), option("three"), CLUB], "§3.7.1")


def test_after_club_help_the_experts_answer():
    refused(
        [spin(1), right(True), spin(2), wrong(), spin(3), wrong(), spin(5), CLUB, EXTRA], "§3.7.1"
    )


def test_extra_minute_then_club_help():
    s = state([spin(1), right(True), spin(2), wrong(), spin(3), wrong(), spin(5), EXTRA, CLUB])
    assert s["rounds"][3]["aids"] == ["extra_minute", "club_help"]


# --------------------------------------------------------------------------- §3.8 credit

AT_4_5 = play("EEEEVVVVV")
AT_3_5 = play("EEEVVVVV")


def test_minute_on_credit_at_4_4_is_refused():
    error = refused(play("EEEEVVVV") + [spin(11), CREDIT], "§3.8")
    assert "4:4" in error.message


def test_minute_on_credit_won_makes_it_outstanding():
    s = state(AT_3_5 + [spin(11), CREDIT, right()])
    assert s["credit"] == "outstanding"
    assert s["score"] == "4:5"
    assert s["rounds"][-1]["aids"] == ["credit_minute"]


def test_minute_on_credit_lost_ends_the_game():
    s = state(AT_3_5 + [spin(11), CREDIT, wrong()])
    assert s["score"] == "3:6"
    assert s["credit"] == "none"


def test_credit_repaid_by_a_right_answer_without_discussion():
    """§3.8.3: no extra minute for the repaying answer."""
    s = state(AT_3_5 + [spin(11), CREDIT, right(), spin(12), right(early=True)])
    assert s["credit"] == "repaid"
    assert s["extra_minutes_held"] == 0
    assert s["score"] == "5:5"


def test_credit_once_a_game():
    refused(play("EEVVVVV") + [spin(9), CREDIT, right(), spin(11), CREDIT], "§3.8.3")


def test_credit_not_in_sector13():
    refused(AT_4_5 + [spin(13), option("six"), CREDIT], "§3.8.2")


def test_credit_in_blitz_is_allowed_and_repaid_by_three_early_answers():
    """§3.8.2, §3.8.3."""
    events = play("EEEVVVVV", sectors=(1, 2, 3, 5, 6, 7, 8, 9)) + [
        spin(4),
        CREDIT,
        right(),
        right(),
        right(),
    ]
    s = state(events)
    assert s["credit"] == "outstanding" and s["score"] == "4:5"
    partly = state(events + [spin(10), right(True), right(), right()])
    assert partly["credit"] == "outstanding"
    fully = state(events + [spin(10), right(True), right(True), right(True)])
    assert fully["credit"] == "repaid"


def test_forced_repayment_at_5_5():
    """§3.8.4: at 5:5 the host takes the discussion minute."""
    events = AT_4_5 + [spin(11), CREDIT, right()]
    s = state(events, table=NO13)
    assert s["score"] == "5:5" and s["credit"] == "outstanding"
    assert allowed_actions(BOOKS["2023"], NO13, None, events + [spin(12)]) == ["answer", "red_card"]
    refused(events + [spin(12), right()], "§3.8.4", table=NO13)
    final = state(events + [spin(12), right(early=True)], table=NO13)
    assert final["credit"] == "repaid" and final["winner"] == "experts"


def test_forced_repayment_in_a_blitz_takes_three_early_answers():
    events = AT_4_5 + [spin(11), CREDIT, right(), spin(4), right(True)]
    refused(events + [right()], "§3.8.4", table=NO13)
    final = state(events + [right(True), right(True)], table=NO13)
    assert (final["credit"], final["score"]) == ("repaid", "6:5")


def test_forced_repayment_refuses_the_extra_minute():
    events = [spin(1), right(True)] + play("EEEVVVVV", sectors=(2, 3, 5, 6, 7, 8, 9, 11))
    events += [spin(12), CREDIT, right(), spin(13)]
    assert state(events, table=NO13)["extra_minutes_held"] == 1
    refused(events + [EXTRA], "§3.8.4", table=NO13)


def test_credit_repaid_in_the_decisive_round():
    """§3.8.5."""
    events = AT_4_5 + [spin(11), CREDIT, right(), DECISIVE, spin(12), right(early=True)]
    s = state(events, context={"series_best": "6:4"}, table=NO13)
    assert s["score"] == "6:0"
    assert s["credit"] == "repaid"
    assert s["decided_by"] == "decisive_round"


def test_credit_after_club_help_and_extra_minute():
    """§3.8.1: after the main minute, the extra minute or club help."""
    events = [spin(1), right(True)] + play("EEVVVVV", sectors=(2, 3, 5, 6, 7, 8, 9))
    events += [spin(11), EXTRA, CLUB, CREDIT, right()]
    s = state(events)
    assert s["rounds"][-1]["aids"] == ["extra_minute", "club_help", "credit_minute"]


def test_club_help_after_credit_is_refused():
    refused(AT_3_5 + [spin(11), CREDIT, CLUB], "§3.8.1")


def test_no_credit_in_a_lost_blitz():
    events = play("EEEEVVVV", sectors=(1, 2, 3, 5, 6, 7, 8, 9))
    refused(events + [spin(4), RED, CREDIT], "§3.4.1")


# --------------------------------------------------------------------------- §3.4.3 sector 13


def test_sector13_needs_an_option_first():
    refused([spin(13), right()], "§3.4.3")
    assert allowed_actions(BOOKS["2023"], T, None, [spin(13)]) == ["sector13_option"]


def test_sector13_option_only_after_a_spin_on_it():
    refused([option("six")], "§3.4.3")
    refused([spin(1), option("six")], "§3.4.3")
    refused([spin(13), option("six"), option("three")], "§3.4.3")


def test_sector13_option_one_right_earns_an_extra_minute():
    s = state([spin(13), option("one"), right()])
    assert s["extra_minutes_held"] == 1
    assert s["rounds"][0]["kind"] == "sector13"
    assert s["rounds"][0]["aids"] == ["sector13_option:one"]


def test_sector13_early_right_answer_earns_nothing_by_itself():
    assert state([spin(13), option("six"), right(True)])["extra_minutes_held"] == 0


@pytest.mark.parametrize(
    ("used", "refused_option", "allowed_option"),
    [
        (["one"], "one", "six"),
        (["six", "three"], "six", "one"),
        (["six", "three"], "three", "one"),
    ],
)
def test_sector13_option_not_reused_until_the_other_two(used, refused_option, allowed_option):
    context = {"sector13_options_used": used}
    refused([spin(13), option(refused_option)], "§3.4.3", context=context)
    state([spin(13), option(allowed_option)], context=context)


def test_sector13_all_three_used_starts_a_new_cycle():
    state([spin(13), option("one")], context={"sector13_options_used": ["six", "three", "one"]})


# --------------------------------------------------------------------------- §3.6 decisive round


@pytest.mark.parametrize(
    ("viewers", "best", "can_pass"),
    [
        (0, (6, 0), True),
        (1, (6, 0), False),
        (1, (6, 1), True),
        (2, (6, 1), False),
        (5, (6, 4), False),
        (5, (6, 5), True),
        (5, (5, 6), True),  # the best result is a loss: any win passes it
    ],
)
def test_can_pass_without_decisive(viewers, best, can_pass):
    assert can_pass_without_decisive(viewers, best) is can_pass


def test_decisive_round_at_four_points_is_refused():
    error = refused(play("EEEEVV") + [DECISIVE], "§3.6", context={"series_best": "6:0"})
    assert "4:2" in error.message


def test_decisive_round_when_the_experts_can_still_pass():
    refused(play("EEEEEV") + [DECISIVE], "§3.6", context={"series_best": "6:1"})


def test_decisive_round_needs_a_series_best():
    refused(play("EEEEEVV") + [DECISIVE], "§3.6")


def test_decisive_round_won():
    context = {"series_best": "6:1"}
    events = play("EEEEEVV") + [DECISIVE]
    assert state(events, context)["score"] == "0:0"
    assert allowed_actions(BOOKS["2023"], T, context, events) == ["spin"]
    refused(events + [DECISIVE], "§3.6", context=context)
    refused(events + [right()], "§3.4", context=context)
    s = state(events + [spin(8), right()], context)
    assert s["score"] == "6:0"
    assert s["winner"] == "experts"
    assert s["decided_by"] == "decisive_round"
    assert s["rounds"][-1] == {
        "n": 8,
        "arrow": 8,
        "sector": 9,
        "kind": "single",
        "winner": "experts",
        "questions": [{"slot": 1, "asked": True, "correct": True, "early": False}],
        "aids": [],
        "decisive": True,
    }
    assert "decisive" not in s["rounds"][0]


def test_decisive_round_lost():
    s = state(play("EEEEEVV") + [DECISIVE, spin(8), wrong()], {"series_best": "6:1"})
    assert (s["score"], s["winner"], s["decided_by"]) == ("0:6", "viewers", "decisive_round")


def test_no_extra_minute_nor_club_help_in_the_decisive_round():
    events = (
        [spin(1), right(True)] + play("EEEEVV", sectors=(2, 3, 5, 6, 7, 8)) + [DECISIVE, spin(9)]
    )
    context = {"series_best": "6:1"}
    assert state(events, context)["extra_minutes_held"] == 1
    refused(events + [EXTRA], "§3.6", context=context)
    refused(events + [CLUB], "§3.7.1", context=context)


def test_decisive_round_on_a_blitz():
    """§3.6.1."""
    context = {"series_best": "6:0"}
    events = play("EEEEEV") + [DECISIVE, spin(4)]
    assert state(events + [right(), right(), right()], context)["score"] == "6:0"
    s = state(events + [right(), wrong()], context)
    assert s["score"] == "0:6"
    assert s["unasked"] == [{"sector": 4, "slot": 3}]


def test_decisive_round_on_sector13():
    """§3.6.2: the expert thinks as long as the team's remaining options allow."""
    context = {"series_best": "6:0", "sector13_options_used": ["one"]}
    events = play("EEEEEV") + [DECISIVE, spin(13)]
    refused(events + [right()], "§3.4.3", context=context)
    refused(events + [option("one")], "§3.6.2", context=context)
    s = state(events + [option("three"), right()], context)
    assert s["score"] == "6:0"
    assert s["rounds"][-1]["kind"] == "sector13"
    assert s["rounds"][-1]["decisive"] is True


def test_decisive_round_between_rounds_only():
    refused(play("EEEEEVV") + [spin(9), DECISIVE], "§3.2", context={"series_best": "6:1"})


def test_decisive_round_closes_a_lost_blitz():
    events = play("EEEEEV") + [spin(4), wrong(), DECISIVE]
    s = state(events, {"series_best": "6:1"})
    assert s["score"] == "0:0"
    assert s["unasked"] == [{"sector": 4, "slot": 2}, {"sector": 4, "slot": 3}]


def test_allowed_actions_at_five():
    context = {"series_best": "6:1"}
    assert allowed_actions(BOOKS["2023"], T, context, play("EEEEEVV")) == ["spin", "decisive_round"]
    assert allowed_actions(BOOKS["2023"], T, context, play("EEEEEV")) == ["spin"]


def test_allowed_actions_while_behind():
    events = [spin(1), right(True), spin(2), wrong(), spin(3), wrong(), spin(5)]
    assert allowed_actions(BOOKS["2023"], T, None, events) == [
        "answer",
        "club_help",
        "extra_minute",
        "red_card",
    ]


def test_answer_modes_follow_the_aids_and_the_forced_repayment():
    """§3.5: an early answer only without the discussion minute, so not after club help or
    the extra minute; §3.8.4: at 5:5 with the credit outstanding only an early one."""
    behind = [spin(1), right(True), spin(2), wrong(), spin(3), wrong(), spin(5)]
    assert answer_modes(BOOKS["2023"], T, None, behind) == ["discussed", "early"]
    assert answer_modes(BOOKS["2023"], T, None, behind + [CLUB]) == ["discussed"]
    assert answer_modes(BOOKS["2023"], T, None, behind + [EXTRA]) == ["discussed"]
    forced = AT_4_5 + [spin(11), CREDIT, right(), spin(12)]
    assert answer_modes(BOOKS["2023"], NO13, None, forced) == ["early"]
    assert answer_modes(BOOKS["2023"], T, None, behind[:-1]) == []  # no question on the table
