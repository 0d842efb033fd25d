"""Rule set 2009 (002_e025d5ded135c1c4.txt §1): sector 13 at most once, early answers, the
removal rule, club help; what 2009 lacks (decisive round, minute on credit, sector 13 options)."""

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.rules import ProtocolError, RuleViolation, allowed_actions, replay

R = "002_e025d5ded135c1c4.txt"
T = {"blitz": 4, "superblitz": 10, "sector13": 13}

EXTRA = {"type": "extra_minute"}
CLUB = {"type": "club_help"}


def spin(sector):
    return {"type": "spin", "sector": sector}


def right(early=False, expert=None):
    event = {"type": "answer", "correct": True, "early": early}
    if expert:
        event["expert"] = expert
    return event


def wrong(early=False, expert=None):
    event = {"type": "answer", "correct": False, "early": early}
    if expert:
        event["expert"] = expert
    return event


def refused(events, clause, table=T):
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], table, None, events)
    assert info.value.rule == f"{R} {clause}", info.value.message
    assert info.value.event_index == len(events) - 1
    return info.value


def state(events, table=T):
    return replay(BOOKS["2009"], table, None, events)


def test_sector13_at_most_once_a_game():
    """§1.4.1: the arrow on the played sector 13 passes to the next unplayed sector."""
    s = state([spin(13), right(), spin(13), wrong()])
    assert [(r["sector"], r["kind"]) for r in s["rounds"]] == [(13, "sector13"), (1, "single")]


def test_sector13_plays_without_an_option():
    s = state([spin(13), wrong()])
    assert s["unanswered"] == [{"sector": 13, "slot": 1}]
    refused([spin(13), {"type": "sector13_option", "option": "six"}], "§1.4.1")


@pytest.mark.parametrize(
    ("table", "clause", "message"),
    [
        (
            {"blitz": None, "superblitz": None, "sector13": 7},
            "§1.3",
            "the Internet questions are in sector 13, not in sector 7",
        ),
        (
            {"blitz": 13, "superblitz": None, "sector13": None},
            "§1.4.3",
            "the blitz is one of the twelve sectors of posted questions, not sector 13",
        ),
        (
            {"blitz": 2, "superblitz": 13, "sector13": None},
            "§1.4.2",
            "the superblitz is one of the twelve sectors of posted questions, not sector 13",
        ),
    ],
)
def test_table_plan_2009_is_checked(table, clause, message):
    """§1.3: the 13th sector holds the Internet questions; §1.4.2–§1.4.3: the superblitz and
    the blitz are among the other twelve. Refused before any event (``event`` null)."""
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], table, None, [])
    assert info.value.to_json() == {
        "error": {"event": None, "rule": f"{R} {clause}", "message": message}
    }


def test_table_plan_2009_without_sector13_plays_13_as_a_single_question():
    s = state([spin(13), right()], table={"blitz": 4, "superblitz": 10, "sector13": None})
    assert s["rounds"][0]["kind"] == "single"


def test_table_plan_2023_may_put_the_blitz_in_sector_13():
    """2023 §3.4.1: "one of the thirteen sectors" may be the blitz; the plan check is 2009's."""
    s = replay(BOOKS["2023"], {"blitz": 13, "superblitz": None, "sector13": 7}, None, [spin(13)])
    assert s["rounds"][0]["kind"] == "blitz"


def test_early_answer_earns_an_extra_minute_anywhere():
    """§1.5 has no blitz or sector 13 exception."""
    s = state([spin(4), right(True), right(True), right(), spin(13), right(True)])
    assert s["extra_minutes_held"] == 3
    s = state([spin(4), right(True), right(True), right(), spin(13), right(True), spin(1), EXTRA])
    assert s["extra_minutes_held"] == 2


def test_extra_minute_in_sector13_and_on_two_blitz_questions():
    events = [spin(1), right(True), spin(2), right(True), spin(3), right(True)]
    s = state(events + [spin(13), EXTRA, right(), spin(4), EXTRA, right(), EXTRA, right()])
    assert s["extra_minutes_held"] == 0
    assert s["rounds"][4]["aids"] == ["extra_minute", "extra_minute"]


def test_extra_minute_without_one_held():
    refused([spin(1), EXTRA], "§1.5")


def test_removal_rule():
    """§1.6: the expert who answered wrong leaves until the team's next right answer."""
    events = [spin(1), wrong(expert="Ivanov"), spin(2), wrong(expert="Petrov")]
    assert state(events)["removed_experts"] == ["Ivanov", "Petrov"]
    error = refused(events + [spin(3), right(expert="Ivanov")], "§1.6")
    assert "Ivanov" in error.message
    back = state(events + [spin(3), right(expert="Sidorov")])
    assert back["removed_experts"] == []
    assert state(events + [spin(3), right(), spin(5), right(expert="Ivanov")])["score"] == "2:2"


def test_removal_rule_in_a_lost_blitz():
    events = [spin(4), right(expert="A"), wrong(expert="B"), wrong(expert="C")]
    assert state(events)["removed_experts"] == ["B", "C"]


def test_red_card_removes_nobody():
    s = state([spin(1), wrong(expert="A"), spin(2), {"type": "red_card"}])
    assert s["removed_experts"] == ["A"]
    assert s["score"] == "0:2"


def test_answer_without_a_name_removes_nobody():
    assert state([spin(1), wrong()])["removed_experts"] == []


def test_club_help_while_behind_more_than_once():
    """§1.7 sets no once-a-game limit, and allows sector 13."""
    events = [spin(1), wrong(), spin(2), CLUB, wrong(), spin(13), CLUB, right()]
    s = state(events)
    assert [r["aids"] for r in s["rounds"]] == [[], ["club_help"], ["club_help"]]


def test_club_help_not_while_level():
    error = refused([spin(1), CLUB], "§1.7")
    assert "0:0" in error.message


@pytest.mark.parametrize("sector", [4, 10])
def test_club_help_not_in_blitz_or_superblitz(sector):
    refused([spin(1), wrong(), spin(sector), CLUB], "§1.7")


def test_no_decisive_round():
    events = []
    for sector in (1, 2, 3, 5, 6):
        events += [spin(sector), right()]
    refused(events + [{"type": "decisive_round"}], "§1.8")
    assert "decisive_round" not in allowed_actions(BOOKS["2009"], T, {"series_best": "6:0"}, events)


def test_no_minute_on_credit():
    events = []
    for sector in (1, 2, 3, 5, 6):
        events += [spin(sector), wrong()]
    refused(events + [spin(7), {"type": "credit_minute"}], "§1.2")


def test_allowed_actions_2009():
    assert allowed_actions(BOOKS["2009"], T, None, []) == ["spin"]
    assert allowed_actions(BOOKS["2009"], T, None, [spin(13)]) == ["answer", "red_card"]
    assert allowed_actions(BOOKS["2009"], T, None, [spin(1), wrong(True), spin(13)]) == [
        "answer",
        "club_help",
        "red_card",
    ]


TEAM = ["Анна", "Борис", "Вера Иванова", "Глеб", "Дина", "Ефим"]


def test_the_answering_expert_is_one_of_the_teams_experts():
    """§1.6 removes «игрок, отвечавший на него» of «его команда»: with the team's experts
    known (``context.experts``), an answer naming someone else is refused with §1.6 and
    nothing is recorded; names match whatever their case and spacing; no name, or a
    protocol without the team's experts, checks nothing."""
    context = {"experts": TEAM}
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], T, context, [spin(1), wrong(expert="Вася Пупкин")])
    assert (info.value.rule, info.value.event_index, info.value.message) == (
        f"{R} §1.6",
        1,
        "Вася Пупкин is not one of the team's experts (Анна, Борис, Вера Иванова, Глеб, "
        "Дина, Ефим): the removal rule removes the player of the team who answered",
    )
    ok = replay(
        BOOKS["2009"], T, context, [spin(1), wrong(expert="вера  ИВАНОВА"), spin(2), wrong()]
    )
    assert (ok["removed_experts"], ok["score"]) == (["вера  ИВАНОВА"], "0:2")
    assert replay(BOOKS["2009"], T, None, [spin(1), wrong(expert="Вася Пупкин")])[
        "removed_experts"
    ] == ["Вася Пупкин"]
    # a right answer is refused too: the removal rule needs to know who is at the table
    with pytest.raises(RuleViolation):
        replay(BOOKS["2009"], T, context, [spin(1), right(expert="Вася Пупкин")])


def test_2023_does_not_check_the_answering_expert():
    """2023 has no removal rule: the name an answer carries is not checked against the team."""
    s = replay(BOOKS["2023"], T, {"experts": TEAM}, [spin(1), wrong(expert="Вася Пупкин")])
    assert s["score"] == "0:1"


def test_context_experts_must_be_names():
    from webapp.domain.rules import ProtocolError

    with pytest.raises(ProtocolError, match="context.experts must be a list of expert names"):
        replay(BOOKS["2009"], T, {"experts": "Анна"}, [])


def test_a_removed_expert_is_refused_whatever_the_spelling():
    """§1.6: «Вера Иванова» removed stays removed when the next answer writes «вера иванова»."""
    events = [spin(1), wrong(expert="Вера Иванова"), spin(2), right(expert="вера  иванова")]
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], T, {"experts": TEAM}, events)
    assert info.value.rule == f"{R} §1.6" and info.value.event_index == 3


def empty13(sector=13):
    """A spin whose 2009 draw found no live question (Sova's protocol extension)."""
    return {"type": "spin", "sector": sector, "sector13_empty": True}


def test_an_empty_sector13_passes_to_the_next_sector_and_scores_nothing():
    """§1.4.1 with §1.4: an arrow on sector 13 whose draw found no live question plays the
    next sector clockwise; sector 13 is out for the game; no point for a question that does
    not exist."""
    s = state([empty13()])
    assert s["score"] == "0:0" and s["unanswered"] == []
    assert s["rounds"] == [
        {
            "n": 1,
            "arrow": 13,
            "sector": 1,
            "kind": "single",
            "winner": None,
            "questions": [{"slot": 1, "asked": False, "correct": False, "early": False}],
            "aids": [],
            "sector13_empty": True,
        }
    ]
    s = state([empty13(), wrong(), spin(13), right()])
    assert s["score"] == "1:1"
    assert [(r["arrow"], r["sector"], r["kind"]) for r in s["rounds"]] == [
        (13, 1, "single"),
        (13, 2, "single"),  # sector 13 fell once (§1.4.1): the arrow passes over it
    ]
    assert s["unanswered"] == [{"sector": 1, "slot": 1}]


def test_an_empty_sector13_reached_clockwise_passes_on_too():
    """The arrow on played sector 12 moves on to sector 13 (§1.4); empty, it passes to 1."""
    s = state([spin(12), right(), empty13(12)])
    assert [(r["arrow"], r["sector"]) for r in s["rounds"]] == [(12, 12), (12, 1)]
    assert s["rounds"][-1]["sector13_empty"] is True


def test_sector13_empty_only_on_a_spin_that_lands_on_it():
    error = refused([empty13(5)], "§1.4.1")
    assert error.message == (
        "sector13_empty is said only of a spin that lands on sector 13 (this one lands on sector 5)"
    )
    refused([spin(13), right(), empty13()], "§1.4.1")  # sector 13 was played: lands on 1
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], T, None, [empty13()])
    assert info.value.rule == "000_90d7c8192601ed3a.txt §3.3"


def test_a_spin_without_the_mark_still_plays_sector13():
    """Without the mark a spin on 13 plays sector 13 as before (a protocol recorded before
    the extension, or a draw that found a question)."""
    s = state([spin(13), wrong()])
    assert s["rounds"][0]["sector"] == 13 and "sector13_empty" not in s["rounds"][0]


def test_sector13_empty_must_be_a_bool():
    with pytest.raises(ProtocolError) as info:
        state([{"type": "spin", "sector": 13, "sector13_empty": "yes"}])
    assert (info.value.event_index, info.value.message) == (
        0,
        "spin.sector13_empty: нужен тип bool, получено 'yes'",
    )
