"""Rules that change during the season (000_90d7c8192601ed3a.txt §4.12.1): the parameter table,
the game engine under amended parameters, the game protocol's ``rules``, the season event
``amend``."""

from __future__ import annotations

import pytest

from tests.domain.season_helpers import R09, R23, doc, final, q, refusal, series, state
from webapp.domain.books import BOOKS, replay_season
from webapp.domain.rules import (
    FORMAT,
    ProtocolError,
    RuleViolation,
    allowed_actions,
    answer_modes,
    load_protocol,
    load_protocol_rules,
    replay,
)
from webapp.domain.rules.parameters import ParameterError, check_values, defaults, describe

SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
AMEND = f"{R23} §4.12.1"
NO13 = {"blitz": 4, "superblitz": 10, "sector13": None}
SINGLES = [1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13]  # the sectors that hold one question


def spin(sector):
    return {"type": "spin", "sector": sector}


def answer(correct):
    return {"type": "answer", "correct": correct}


def rounds(results):
    """One single-question round per result (True: the experts' point), sectors 1, 2, 3, 5…"""
    events = []
    for sector, correct in zip(SINGLES, results, strict=False):
        events += [spin(sector), answer(correct)]
    return events


def amend(**values):
    return {"type": "amend", "set": values, "note": "объявлено в эфире ведущим"}


# --------------------------------------------------------------------------- the table


def test_defaults_of_each_book():
    assert defaults(BOOKS["2023"]) == {
        "points_to_win": 6,
        "club_help": 1,
        "decisive_round": True,
        "credit_minute": True,
        "losses_to_out": 2,
    }
    assert defaults(BOOKS["2009"]) == {"points_to_win": 6, "club_help": 11}


def test_describe_lists_name_type_range_default_clause():
    table = describe(BOOKS["2023"])
    assert (table["ruleset"], table["file"], table["clause"]) == ("2023", R23, AMEND)
    rows = {p["name"]: p for p in table["parameters"]}
    assert list(rows) == [
        "points_to_win",
        "club_help",
        "decisive_round",
        "credit_minute",
        "losses_to_out",
    ]
    assert {k: rows["points_to_win"][k] for k in ("type", "range", "default", "clause")} == {
        "type": "int",
        "range": [1, 12],
        "default": 6,
        "clause": f"{R23} §3.2, §3.10",
    }
    assert rows["losses_to_out"]["range"] == [1, None]
    assert rows["decisive_round"]["range"] == [False, True]
    assert [p["clause"] for p in describe(BOOKS["2009"])["parameters"]] == [
        f"{R09} §1.8",
        f"{R09} §1.7",
    ]


@pytest.mark.parametrize(
    ("ruleset", "values", "message"),
    [
        ("2023", {"points": 7}, "unknown parameter 'points'"),
        ("2023", {"points_to_win": "7"}, "points_to_win must be a whole number, got '7'"),
        ("2023", {"points_to_win": True}, "points_to_win must be a whole number, got True"),
        ("2023", {"points_to_win": 13}, "points_to_win must be 1..12, got 13"),
        ("2023", {"losses_to_out": 0}, "losses_to_out must be 1 or more, got 0"),
        ("2023", {"decisive_round": 0}, "decisive_round must be true or false, got 0"),
        ("2009", {"decisive_round": False}, "the 2009 rule book has no decisive_round"),
        ("2009", {"losses_to_out": 3}, "the 2009 rule book has no losses_to_out"),
    ],
)
def test_check_values_refuses(ruleset, values, message):
    with pytest.raises(ParameterError) as info:
        check_values(BOOKS[ruleset], values)
    assert message in info.value.message


# --------------------------------------------------------------------------- the game engine


def test_seven_three_finishes_a_game_to_seven_and_six_three_does_not():
    seven = rounds([True, False, True, False, True, False, True, True, True, True])
    state7 = replay(BOOKS["2023"], NO13, None, seven, rules={"points_to_win": 7})
    assert (state7["score"], state7["finished"], state7["winner"]) == ("7:3", True, "experts")
    six = seven[:-2]
    state6 = replay(BOOKS["2023"], NO13, None, six, rules={"points_to_win": 7})
    assert (state6["score"], state6["finished"], state6["winner"]) == ("6:3", False, None)
    assert allowed_actions(BOOKS["2023"], NO13, None, six, rules={"points_to_win": 7}) == ["spin"]
    spun = [*six, spin(12)]
    assert answer_modes(BOOKS["2023"], NO13, None, spun, rules={"points_to_win": 7}) == [
        "discussed",
        "early",
    ]
    # under the book's own rules the same 6:3 is over, and a further spin is refused
    assert replay(BOOKS["2023"], NO13, None, six)["finished"] is True
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], NO13, None, seven)
    assert (info.value.event_index, info.value.rule) == (18, f"{R23} §3.10")


def test_decisive_round_abolished_in_a_game():
    events = rounds([True] * 5 + [False] * 3) + [{"type": "decisive_round"}]
    context = {"series_best": "6:2"}
    assert replay(BOOKS["2023"], NO13, context, events)["score"] == "0:0"  # the book: granted
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], NO13, context, events, rules={"decisive_round": False})
    assert info.value.to_json() == {
        "error": {
            "event": 16,
            "rule": f"{R23} §3.6",
            "message": "the decisive round was abolished for this game (§4.12.1)",
        }
    }


def test_decisive_round_to_seven_at_six_points_ends_seven_nil():
    events = rounds([True] * 6 + [False] * 3) + [{"type": "decisive_round"}]
    events += [spin(13), answer(True)]
    out = replay(BOOKS["2023"], NO13, {"series_best": "7:2"}, events, rules={"points_to_win": 7})
    assert (out["score"], out["decided_by"]) == ("7:0", "decisive_round")


def test_club_help_uses_a_game():
    club = {"type": "club_help"}
    events = rounds([False]) + [spin(2), club, answer(False), spin(3), club]
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], NO13, None, events)
    assert (info.value.event_index, info.value.rule) == (6, f"{R23} §3.7")
    assert info.value.message == "club help is taken once a game"
    assert replay(BOOKS["2023"], NO13, None, events, rules={"club_help": 2})["score"] == "0:2"
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], NO13, None, events[:4], rules={"club_help": 0})
    assert (info.value.event_index, info.value.rule) == (3, f"{R09} §1.7")
    assert info.value.message == "club help is not given in this game"


def test_minute_on_credit_abolished_in_a_game():
    events = rounds([False] * 5) + [spin(12), {"type": "credit_minute"}]
    assert replay(BOOKS["2023"], NO13, None, events)["rounds"][-1]["aids"] == ["credit_minute"]
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2023"], NO13, None, events, rules={"credit_minute": False})
    assert (info.value.rule, info.value.message) == (
        f"{R23} §3.8",
        "the minute on credit was abolished for this game (§4.12.1)",
    )


def test_protocol_rules_validated_at_load_and_applied():
    data = {
        "format": FORMAT,
        "ruleset": "2023",
        "rules": {"points_to_win": 7},
        "table": NO13,
        "events": rounds([True] * 6),
    }
    book, table, context, events = load_protocol(data, BOOKS)
    assert load_protocol_rules(data, BOOKS) == {"points_to_win": 7}
    assert (
        replay(book, table, context, events, rules=load_protocol_rules(data, BOOKS))["finished"]
        is False
    )
    assert load_protocol_rules({**data, "rules": None}, BOOKS) == {}
    for rules, message in (
        ({"points_to_win": 0}, "rules: points_to_win must be 1..12, got 0"),
        ({"sector13": 1}, "rules: unknown parameter 'sector13'"),
        ([7], "rules: the rules must be an object {parameter: value}, got list"),
    ):
        with pytest.raises(ProtocolError) as info:
            load_protocol({**data, "rules": rules}, BOOKS)
        assert info.value.message.startswith(message)
    with pytest.raises(ProtocolError) as info:
        load_protocol({**data, "ruleset": "2009", "rules": {"credit_minute": False}}, BOOKS)
    assert info.value.message == (
        "rules: the 2009 rule book has no credit_minute: it cannot be amended"
    )


# --------------------------------------------------------------------------- the season


def test_amend_points_to_win_from_the_next_event_on():
    events = [
        series("spring", 5, "series_final"),
        q("Королёва", "6:3"),
        amend(points_to_win=7),
        q("Потапова", "7:3"),
    ]
    j = state("2023", SPRING, events)
    assert j["rating"] == ["Потапова", "Королёва", "Орлова", "Буян", "Стишенок"]
    assert [(h["event"], h["score"]) for h in j["history"]] == [(1, "6:3"), (3, "7:3")]
    assert j["rules"] == {
        "points_to_win": 7,
        "club_help": 1,
        "decisive_round": True,
        "credit_minute": True,
        "losses_to_out": 2,
    }
    assert j["amendments"] == [
        {"event": 2, "set": {"points_to_win": 7}, "note": "объявлено в эфире ведущим"}
    ]
    assert replay_season(doc("2023", SPRING, events)).game_rules() == {"points_to_win": 7}
    # a 6:3 is no longer a finished game
    event, rule, message = refusal("2023", SPRING, events[:3] + [q("Потапова", "6:3")])
    assert (event, rule, message) == (
        3,
        f"{R23} §3.10",
        "6:3 is not the score of a finished game: the game goes to 7 points",
    )
    # before the amendment a 7:3 was not one either
    event, rule, message = refusal("2023", SPRING, events[:1] + [q("Королёва", "7:3")])
    assert (event, rule, message) == (
        1,
        f"{R23} §3.10",
        "7:3 is not the score of a finished game: the game goes to 6 points",
    )


def test_a_season_without_amendments_reports_the_books_rules():
    j = state("2009", SPRING, [])
    assert (j["rules"], j["amendments"]) == ({"points_to_win": 6, "club_help": 11}, [])


def test_decisive_round_refused_after_it_is_abolished():
    events = [
        series("spring", 5, "series_final"),
        q("Королёва", "6:3"),
        q("Потапова", "0:6", True),  # granted under the book (§3.6)
        amend(decisive_round=False),
        q("Стишенок", "0:6", True),
    ]
    assert refusal("2023", SPRING, events) == (
        4,
        AMEND,
        "the decisive round (§3.6) was abolished by the amendment of event 3",
    )
    assert state("2023", SPRING, events[:3])["rating"][-1] == "Потапова"


def _all_lose_spring(*before):
    return [
        series("spring", 5, "series_final"),
        *before,
        q("Королёва", "0:6"),
        q("Потапова", "1:6"),
        q("Стишенок", "2:6"),
        q("Буян", "3:6"),
        q("Орлова", "4:6"),
        final("Королёва", "5:6"),
    ]


def test_a_second_loss_does_not_put_out_after_losses_to_out_three():
    assert state("2023", SPRING, _all_lose_spring())["out"] == [
        {"team": "Королёва", "rule": f"{R23} §4.4"}
    ]
    j = state("2023", SPRING, _all_lose_spring(amend(losses_to_out=3)))
    assert j["out"] == []
    assert j["rating"] == ["Королёва", "Потапова", "Стишенок", "Буян", "Орлова"]
    assert j["winter"] == ["Королёва"]  # §4.7.2: the finalist is through all the same


@pytest.mark.parametrize(
    ("ruleset", "values", "message"),
    [
        (
            "2023",
            {"points": 7},
            "the amendment is refused: unknown parameter 'points'; amendable: "
            "points_to_win, club_help, decisive_round, credit_minute, losses_to_out",
        ),
        (
            "2023",
            {"points_to_win": 13},
            "the amendment is refused: points_to_win must be 1..12, got 13",
        ),
        (
            "2023",
            {"credit_minute": "no"},
            "the amendment is refused: credit_minute must be true or false, got 'no'",
        ),
        (
            "2009",
            {"losses_to_out": 3},
            "the amendment is refused: the 2009 rule book has no "
            "losses_to_out: it cannot be amended",
        ),
    ],
)
def test_amend_refusals_cite_4_12_1(ruleset, values, message):
    events = [series("spring", 5 if ruleset == "2023" else 3, "series_final"), amend(**values)]
    assert refusal(ruleset, SPRING, events) == (1, AMEND, message)


def test_amend_refusal_is_in_russian_for_the_staff_pages():
    from webapp.domain.season import Season, SeasonViolation

    season = Season.start(BOOKS["2009"], SPRING)
    with pytest.raises(SeasonViolation) as info:
        season.apply(amend(decisive_round=False), 0)
    assert info.value.ru == (
        "изменение правил не принято: в правилах 2009 г. нет параметра «решающий раунд»: "
        "изменить его нельзя"
    )
    assert season.state().rules == {"points_to_win": 6, "club_help": 11}


def test_amend_without_set_is_malformed():
    with pytest.raises(ProtocolError) as info:
        replay_season(doc("2023", SPRING, [{"type": "amend", "set": {}}]))
    assert info.value.message == "amend.set must name at least one parameter"


def test_an_amendment_that_changes_nothing():
    """2023 §4.12.1: every value already in force, of the same type — no change."""
    from webapp.domain.rules.parameters import in_force, unchanged

    now = in_force(BOOKS["2023"], {"points_to_win": 7})
    assert unchanged(now, {"points_to_win": 7}) is True
    assert unchanged(now, {"points_to_win": 7, "club_help": 1}) is True
    assert unchanged(now, {"points_to_win": 6}) is False
    assert unchanged(now, {"points_to_win": 7, "credit_minute": False}) is False
    assert unchanged(now, {"club_help": True}) is False  # 1 in force, a switch given
    assert unchanged(now, {}) is False and unchanged(now, "7") is False
