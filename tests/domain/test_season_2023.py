"""The 2023 season (000_90d7c8192601ed3a.txt §4.1–§4.10): exact ratings, orders, finalists,
winter rating and refusals with their clauses."""

from __future__ import annotations

import pytest

from tests.domain.season_helpers import (
    R23,
    doc,
    enter,
    final,
    game,
    load,
    malformed,
    q,
    refusal,
    series,
    state,
    withdraw,
)
from webapp.domain.books import BOOKS, replay_season
from webapp.domain.season import Season, SeasonViolation

SPRING = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
TEN = [
    "Орлова",
    "Свинтицкий",
    "Буян",
    "Наталевич",
    "Стишенок",
    "Антипов",
    "Потапова",
    "Борейко",
    "Мудрый",
    "Королёва",
]
T8 = ["A", "B", "C", "D", "E", "F", "G", "H"]


def events_2023() -> list[dict]:
    return load("season_2023.json")["events"]


# --------------------------------------------------------------------------- whole season


def test_whole_2023_season_from_the_protocol_file():
    s = replay_season(load("season_2023.json"))
    j = s.to_json()
    assert list(j) == [
        "ruleset",
        "series",
        "rating",
        "next",
        "order",
        "series_best",
        "rules",
        "amendments",
        "finals",
        "winter",
        "out",
        "history",
    ]
    assert j["series"] == {
        "part": "winter",
        "qualifying_played": 5,
        "qualifying": 5,
        "closing": "year_final",
    }
    assert j["rating"] == ["Антипов", "Мудрый", "Буян", "Королёва"]
    assert j["next"] is None and s.over
    assert j["series_best"] is None
    assert j["finals"] == [
        {"part": "spring", "team": "Буян", "score": "6:2", "won": True},
        {"part": "summer", "team": "Свинтицкий", "score": "3:6", "won": False},
        {"part": "autumn", "team": "Мудрый", "score": "6:4", "won": True},
    ]
    assert j["winter"] == ["Буян", "Мудрый"]  # Свинтицкий went out in winter (§4.4)
    assert j["out"] == [
        {"team": "Борейко", "rule": f"{R23} §4.4"},
        {"team": "Свинтицкий", "rule": f"{R23} §4.4"},
    ]
    moves = [(m.event, m.team, list(m.rating_after), m.rule.split()[-1]) for m in s.history]
    assert moves == [
        (1, "Королёва", ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"], "§4.5.1"),
        (2, "Потапова", ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"], "§4.5.5"),
        (3, "Стишенок", ["Королёва", "Стишенок", "Орлова", "Буян", "Потапова"], "§4.5.2"),
        (4, "Буян", ["Буян", "Королёва", "Стишенок", "Орлова", "Потапова"], "§4.5.3"),
        (5, "Орлова", ["Буян", "Королёва", "Стишенок", "Потапова", "Орлова"], "§4.5.5"),
        (6, "Буян", ["Буян", "Королёва", "Стишенок", "Потапова", "Орлова"], "§4.7.2"),
        (8, "Мудрый", ["Мудрый", "Свинтицкий", "Наталевич", "Антипов", "Борейко"], "§4.5.1"),
        (9, "Борейко", ["Мудрый", "Свинтицкий", "Наталевич", "Антипов", "Борейко"], "§4.5.5"),
        (10, "Антипов", ["Мудрый", "Свинтицкий", "Наталевич", "Борейко", "Антипов"], "§4.5.5"),
        (11, "Наталевич", ["Наталевич", "Мудрый", "Свинтицкий", "Борейко", "Антипов"], "§4.5.1"),
        (12, "Свинтицкий", ["Свинтицкий", "Наталевич", "Мудрый", "Борейко", "Антипов"], "§4.5.1"),
        (13, "Свинтицкий", ["Свинтицкий", "Наталевич", "Мудрый", "Борейко", "Антипов"], "§4.7.2"),
        (
            16,
            "Антипов",
            [
                "Антипов",
                "Наталевич",
                "Королёва",
                "Мудрый",
                "Борейко",
                "Потапова",
                "Орлова",
                "Стишенок",
            ],
            "§4.5.1",
        ),
        (
            17,
            "Борейко",
            ["Антипов", "Наталевич", "Королёва", "Мудрый", "Потапова", "Орлова", "Стишенок"],
            "§4.4",
        ),
        (
            18,
            "Мудрый",
            ["Мудрый", "Антипов", "Наталевич", "Королёва", "Потапова", "Орлова", "Стишенок"],
            "§4.5.3",
        ),
        (
            19,
            "Королёва",
            ["Мудрый", "Антипов", "Королёва", "Наталевич", "Потапова", "Орлова", "Стишенок"],
            "§4.5.2",
        ),
        (
            20,
            "Наталевич",
            ["Мудрый", "Антипов", "Королёва", "Потапова", "Орлова", "Стишенок", "Наталевич"],
            "§4.5.5",
        ),
        (
            21,
            "Мудрый",
            ["Мудрый", "Антипов", "Королёва", "Потапова", "Орлова", "Стишенок", "Наталевич"],
            "§4.7.2",
        ),
        (24, "Королёва", ["Буян", "Мудрый", "Свинтицкий", "Антипов", "Королёва"], "§4.5.5"),
        (25, "Антипов", ["Антипов", "Буян", "Мудрый", "Свинтицкий", "Королёва"], "§4.5.1"),
        (26, "Свинтицкий", ["Антипов", "Буян", "Мудрый", "Королёва"], "§4.4"),
        (27, "Мудрый", ["Антипов", "Мудрый", "Буян", "Королёва"], "§4.5.2"),
        (28, "Буян", ["Антипов", "Мудрый", "Буян", "Королёва"], "§4.5.2"),
        (29, "Антипов", ["Антипов", "Мудрый", "Буян", "Королёва"], "§4.10"),
    ]


def test_the_contract_example():
    teams = ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"]
    j = state(
        "2023",
        teams,
        [series("spring", 5, "series_final"), q("Королёва", "6:3"), q("Потапова", "4:6")],
    )
    assert j == {
        "ruleset": "2023",
        "series": {
            "part": "spring",
            "qualifying_played": 2,
            "qualifying": 5,
            "closing": "series_final",
        },
        "rating": ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"],
        "next": {"kind": "qualifying", "team": "Стишенок"},
        "order": ["Королёва", "Потапова", "Стишенок", "Буян", "Орлова"],
        "series_best": {"team": "Королёва", "score": "6:3"},
        "rules": {
            "points_to_win": 6,
            "club_help": 1,
            "decisive_round": True,
            "credit_minute": True,
            "losses_to_out": 2,
        },
        "amendments": [],
        "finals": [],
        "winter": [],
        "out": [],
        "history": [
            {
                "event": 1,
                "team": "Королёва",
                "kind": "qualifying",
                "score": "6:3",
                "rating_after": ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"],
            },
            {
                "event": 2,
                "team": "Потапова",
                "kind": "qualifying",
                "score": "4:6",
                "rating_after": ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"],
            },
        ],
    }


# --------------------------------------------------------------------------- ratings §4.2


def test_before_any_series_the_rating_is_the_initial_one():
    j = state("2023", TEN, [])
    assert j["rating"] == TEN
    assert j["series"] is None and j["next"] is None and j["order"] is None


def test_spring_rating_named_by_the_book_4_2_1():
    j = state("2023", TEN, events_2023()[:1])
    assert j["rating"] == SPRING
    assert j["order"] == ["Королёва", "Потапова", "Стишенок", "Буян", "Орлова"]  # §4.8
    assert j["next"] == {"kind": "qualifying", "team": "Королёва"}
    assert j["series_best"] is None  # nobody played earlier in the series


def test_summer_rating_named_by_the_book_4_2_2():
    j = state("2023", TEN, events_2023()[:8])
    assert j["rating"] == ["Свинтицкий", "Наталевич", "Антипов", "Борейко", "Мудрый"]
    assert j["order"] == ["Мудрый", "Борейко", "Антипов", "Наталевич", "Свинтицкий"]


def test_summer_without_names_puts_the_teams_that_have_not_played_first():
    j = state("2023", TEN, events_2023()[:7] + [series("summer", 5, "series_final")])
    assert j["rating"] == [
        "Свинтицкий",
        "Наталевич",
        "Антипов",
        "Борейко",
        "Мудрый",
        "Королёва",
        "Стишенок",
        "Потапова",
        "Орлова",
    ]


def test_autumn_rating_from_the_qualifying_results_4_2_3():
    # wins by score difference (Наталевич 6:2, Королёва 6:3, Стишенок 6:4, Мудрый 6:5), then
    # losses (Борейко 5:6 before Антипов 5:6: a tie goes to the earlier result), finalists out.
    j = state("2023", TEN, events_2023()[:15])
    assert j["rating"] == [
        "Наталевич",
        "Королёва",
        "Стишенок",
        "Мудрый",
        "Борейко",
        "Антипов",
        "Потапова",
        "Орлова",
    ]
    assert j["order"] == ["Борейко", "Мудрый", "Стишенок", "Королёва", "Наталевич"]


def test_autumn_named_otherwise_is_refused_4_2_3():
    events = events_2023()[:14] + [series("autumn", 5, "series_final", TEN[:5])]
    assert refusal("2023", TEN, events)[:2] == (14, f"{R23} §4.2.3")


def test_a_finalist_named_for_summer_is_refused_4_7_2():
    events = events_2023()[:7] + [
        series("summer", 5, "series_final", ["Буян", "Наталевич", "Антипов", "Борейко", "Мудрый"])
    ]
    assert refusal("2023", TEN, events)[:2] == (7, f"{R23} §4.7.2")


# --------------------------------------------------------------------------- moves §4.5


def _spring(*games: dict) -> list[dict]:
    return [series("spring", 5, "series_final"), *games]


def test_win_better_than_all_earlier_goes_first_4_5_1():
    j = state("2023", SPRING, _spring(q("Королёва", "6:4"), q("Потапова", "6:1")))
    assert j["rating"] == ["Потапова", "Королёва", "Орлова", "Буян", "Стишенок"]


def test_win_not_better_goes_to_its_place_by_score_difference_4_5_2():
    j = state(
        "2023",
        SPRING,
        _spring(q("Королёва", "6:1"), q("Потапова", "6:2"), q("Стишенок", "6:4"), q("Буян", "6:3")),
    )
    assert j["rating"] == ["Королёва", "Потапова", "Буян", "Стишенок", "Орлова"]
    assert j["series_best"] == {"team": "Королёва", "score": "6:1"}


def test_equal_scores_later_team_higher_4_5_3():
    j = state("2023", SPRING, _spring(q("Королёва", "6:2"), q("Потапова", "6:2")))
    assert j["rating"] == ["Потапова", "Королёва", "Орлова", "Буян", "Стишенок"]
    assert (
        replay_season(doc("2023", SPRING, _spring(q("Королёва", "6:2"), q("Потапова", "6:2"))))
        .history[-1]
        .rule
        == f"{R23} §4.5.3"
    )


def test_loss_goes_last_4_5_5():
    j = state(
        "2023", SPRING, _spring(q("Королёва", "6:2"), q("Потапова", "5:6"), q("Стишенок", "0:6"))
    )
    assert j["rating"] == ["Королёва", "Орлова", "Буян", "Потапова", "Стишенок"]
    assert j["next"] == {"kind": "qualifying", "team": "Буян"}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (q("Потапова", "6:0", True), q("Стишенок", "6:0", True)),  # both by decisive round
        (q("Потапова", "6:0", True), q("Стишенок", "6:0")),  # 6:0 without a round lost
        (q("Потапова", "6:0"), q("Стишенок", "6:0", True)),  # decisive round after a 6:0
    ],
)
def test_six_nil_later_team_higher_4_5_4(first, second):
    # Королёва's 6:3 leads; each decisive round is allowed (§3.6: 6:v with v > 3, or v > 0
    # against a 6:0, cannot pass without one)
    s = replay_season(doc("2023", SPRING, _spring(q("Королёва", "6:3"), first, second)))
    assert list(s.rating) == ["Стишенок", "Потапова", "Королёва", "Орлова", "Буян"]
    assert s.history[-1].rule == f"{R23} §4.5.4"


def test_decisive_round_lost_goes_last():
    j = state("2023", SPRING, _spring(q("Королёва", "6:3"), q("Потапова", "0:6", True)))
    assert j["rating"] == ["Королёва", "Орлова", "Буян", "Стишенок", "Потапова"]


# --------------------------------------------------------------------------- §3.6 decisive round


@pytest.mark.parametrize(
    ("games", "event"),
    [
        ([q("Королёва", "6:0", True)], 1),  # nobody played earlier in the series
        ([q("Королёва", "6:5"), q("Потапова", "6:0", True)], 2),  # 6:v passes 6:5 always
        ([q("Королёва", "5:6"), q("Потапова", "6:0", True)], 2),  # first place has not played
        ([q("Королёва", "6:1"), q("Потапова", "6:2", True)], 2),  # 6:0 or 0:6 only
    ],
)
def test_decisive_round_refused_3_6(games, event):
    assert refusal("2023", SPRING, _spring(*games))[:2] == (event, f"{R23} §3.6")


def test_no_decisive_round_in_a_series_final_3_6():
    events = _spring(
        q("Королёва", "6:1"),
        q("Потапова", "1:6"),
        q("Стишенок", "1:6"),
        q("Буян", "1:6"),
        q("Орлова", "1:6"),
        game("series_final", "Королёва", "6:0", True),
    )
    assert refusal("2023", SPRING, events)[:2] == (6, f"{R23} §3.6")


# --------------------------------------------------------------------------- order §4.8, §4.8.1


def test_qualifying_out_of_order_is_refused_4_8():
    event, rule, message = refusal("2023", SPRING, _spring(q("Орлова", "6:3")))
    assert (event, rule) == (1, f"{R23} §4.8")
    assert "«Королёва»" in message


def test_four_game_series_order_4_8():
    j = state("2023", TEN, events_2023()[:14] + [series("autumn", 4, "special")])
    assert j["order"] == ["Мудрый", "Стишенок", "Королёва", "Наталевич"]


def test_withdrawal_moves_to_the_bottom_and_the_next_team_plays_4_8_1():
    j = state(
        "2023",
        TEN,
        events_2023()[:14] + [series("autumn", 5, "series_final"), withdraw("Королёва")],
    )
    assert j["rating"] == [
        "Наталевич",
        "Стишенок",
        "Мудрый",
        "Борейко",
        "Антипов",
        "Потапова",
        "Орлова",
        "Королёва",
    ]
    assert j["order"] == ["Антипов", "Борейко", "Мудрый", "Стишенок", "Наталевич"]


def test_withdrawal_after_the_teams_first_game_is_refused_4_8_1():
    events = _spring(q("Королёва", "6:3"), withdraw("Королёва"))
    assert refusal("2023", SPRING, events) == (
        2,
        f"{R23} §4.8.1",
        "«Королёва» has already played in the spring series and can no longer withdraw from it",
    )
    assert _violation(SPRING, events).ru == (
        "«Королёва» уже играла в весенней серии и отказаться от неё больше не может"
    )


def test_withdrawal_that_leaves_too_few_teams_is_refused_4_8():
    events = [series("spring", 5, "series_final"), withdraw("Орлова")]
    assert refusal("2023", SPRING, events) == (
        1,
        f"{R23} §4.8",
        "«Орлова» cannot withdraw from the spring series: without it, 4 teams of the rating "
        "are left for 5 qualifying games",
    )
    # after another team's game the same: a withdrawal counts until the team's own first game
    events = _spring(q("Королёва", "6:3"), withdraw("Орлова"))
    assert refusal("2023", SPRING, events)[:2] == (2, f"{R23} §4.8")


AUTUMN = events_2023()[:14] + [series("autumn", 5, "series_final")]  # after the summer final


def test_withdrawal_between_two_series_applies_to_the_next_series_4_8_1():
    events = events_2023()[:14] + [withdraw("Королёва")]
    season = replay_season(doc("2023", TEN, events))
    assert season.refusing == ("Королёва",)
    assert season.to_json()["series"]["part"] == "summer"  # nothing moves before it opens
    assert season.to_json()["rating"] == ["Свинтицкий", "Наталевич", "Мудрый", "Борейко", "Антипов"]
    j = state("2023", TEN, events + [series("autumn", 5, "series_final")])
    assert j["rating"] == [
        "Наталевич",
        "Стишенок",
        "Мудрый",
        "Борейко",
        "Антипов",
        "Потапова",
        "Орлова",
        "Королёва",
    ]
    assert j["order"] == ["Антипов", "Борейко", "Мудрый", "Стишенок", "Наталевич"]
    assert j["next"] == {"kind": "qualifying", "team": "Антипов"}
    assert replay_season(doc("2023", TEN, events + AUTUMN[-1:])).refusing == ()
    more = events + [series("autumn", 5, "series_final"), q("Королёва", "6:1")]
    assert refusal("2023", TEN, more) == (
        16,
        f"{R23} §4.8.1",
        "«Королёва» withdrew from the autumn series and plays no game in it",
    )


def test_withdrawal_between_series_refused_with_its_fault_4_8_1_4_7_2():
    before_autumn = events_2023()[:14]
    assert refusal("2023", TEN, before_autumn + [withdraw("Королёва"), withdraw("Королёва")]) == (
        15,
        f"{R23} §4.8.1",
        "«Королёва» has already withdrawn from the coming autumn series",
    )
    v = _violation(TEN, before_autumn + [withdraw("Буян")])
    assert (v.event_index, v.rule) == (14, f"{R23} §4.7.2")
    assert v.message == (
        "«Буян» cannot withdraw from the coming autumn series: it has no place in it, having "
        "played a series final it is through to the winter series"
    )
    assert v.ru == (
        "«Буян» не может отказаться от участия в предстоящей осенней серии: места в ней у неё "
        "нет — она сыграла финал серии и уже вышла в зимнюю серию"
    )


def test_withdrawal_before_winter_gives_the_place_to_the_next_team_4_8_1_4_9():
    events = events_2023()[:22] + [enter("Резерв", "reserve")]
    assert state("2023", TEN, events + [series("winter", 5, "year_final")])["rating"] == [
        "Буян",
        "Мудрый",
        "Свинтицкий",
        "Антипов",
        "Королёва",
    ]
    j = state("2023", TEN, events + [withdraw("Королёва"), series("winter", 5, "year_final")])
    assert j["rating"] == ["Буян", "Мудрый", "Свинтицкий", "Антипов", "Стишенок", "Королёва"]
    assert j["order"] == ["Стишенок", "Антипов", "Свинтицкий", "Мудрый", "Буян"]


def test_withdrawal_after_the_opening_until_the_teams_first_game_4_8_1():
    events = AUTUMN + [q("Борейко", "6:3"), withdraw("Мудрый")]
    j = state("2023", TEN, events)
    # Мудрый to the bottom line; Антипов, sixth at the opening, moves up into the first five
    assert j["rating"] == [
        "Борейко",
        "Наталевич",
        "Королёва",
        "Стишенок",
        "Антипов",
        "Потапова",
        "Орлова",
        "Мудрый",
    ]
    # the game played keeps its turn; the others follow the new places, lowest first
    assert j["order"] == ["Борейко", "Антипов", "Стишенок", "Королёва", "Наталевич"]
    assert j["next"] == {"kind": "qualifying", "team": "Антипов"}
    assert refusal("2023", TEN, AUTUMN + [q("Борейко", "6:3"), withdraw("Борейко")]) == (
        16,
        f"{R23} §4.8.1",
        "«Борейко» has already played in the autumn series and can no longer withdraw from it",
    )


# --------------------------------------------------------------------------- §4.4 out


def _all_lose_spring() -> list[dict]:
    return _spring(
        q("Королёва", "0:6"),
        q("Потапова", "1:6"),
        q("Стишенок", "2:6"),
        q("Буян", "3:6"),
        q("Орлова", "4:6"),
    )


def test_first_place_after_five_losses_plays_the_final_4_7_1():
    j = state("2023", SPRING, _all_lose_spring())
    assert j["rating"] == ["Королёва", "Потапова", "Стишенок", "Буян", "Орлова"]
    assert j["next"] == {"kind": "series_final", "team": "Королёва"}
    assert j["series_best"] is None  # §3.6: nobody to pass in a series final


def test_second_lost_game_puts_a_team_out_even_in_a_final_4_4():
    j = state("2023", SPRING, _all_lose_spring() + [final("Королёва", "5:6")])
    assert j["out"] == [{"team": "Королёва", "rule": f"{R23} §4.4"}]
    assert j["winter"] == []
    assert j["rating"] == ["Потапова", "Стишенок", "Буян", "Орлова"]
    assert j["finals"] == [{"part": "spring", "team": "Королёва", "score": "5:6", "won": False}]


def test_a_team_out_of_the_season_is_refused_4_4():
    events = _all_lose_spring() + [
        final("Королёва", "5:6"),
        series("summer", 5, "series_final", SPRING),
    ]
    event, rule, message = refusal("2023", SPRING, events)
    assert (event, rule) == (7, f"{R23} §4.4")
    assert message == "«Королёва» lost its second game of the season and is out"


# --------------------------------------------------------------------------- finals §4.7


def test_series_final_by_another_team_is_refused_4_7_1():
    events = _all_lose_spring() + [final("Потапова", "6:1")]
    event, rule, _ = refusal("2023", SPRING, events)
    assert (event, rule) == (6, f"{R23} §4.7.1")


def test_series_final_before_the_qualifying_games_end_is_refused_4_1():
    events = _spring(q("Королёва", "6:3"), final("Королёва", "6:1"))
    assert refusal("2023", SPRING, events)[:2] == (2, f"{R23} §4.1")


def test_finalist_goes_straight_to_winter_win_or_lose_4_7_2():
    j = state("2023", TEN, events_2023()[:14])
    assert j["winter"] == ["Буян", "Свинтицкий"]
    assert j["next"] is None  # the producer opens the autumn series


def test_decline_winter_is_not_a_2023_event_4_7_2():
    events = events_2023()[:7] + [{"type": "decline_winter", "team": "Буян"}]
    assert refusal("2023", TEN, events)[:2] == (7, f"{R23} §4.7.2")


def test_rematch_is_not_a_2023_event_4_1():
    events = events_2023()[:7] + [{"type": "rematch", "team": "Буян", "granted": True}]
    assert refusal("2023", TEN, events)[:2] == (7, f"{R23} §4.1")


# --------------------------------------------------------------------------- §4.6, §4.9, §4.10


def _season_t8(reserves: int = 1) -> list[dict]:
    """Spring: all lose, E (first) wins the final. Summer: B, A lose their second game (out);
    H, G, F win 6:1; F wins the final. Autumn (4 games + special): C, D out; H, G win 6:2;
    the special game by E. Then ``reserves`` reserve teams enter."""
    events = [
        series("spring", 5, "series_final", ["A", "B", "C", "D", "E"]),
        q("E", "0:6"),
        q("D", "0:6"),
        q("C", "0:6"),
        q("B", "0:6"),
        q("A", "0:6"),
        final("E", "6:0"),
        series("summer", 5, "series_final", ["F", "G", "H", "A", "B"]),
        q("B", "1:6"),
        q("A", "1:6"),
        q("H", "6:1"),
        q("G", "6:1"),
        q("F", "6:1"),
        final("F", "6:3"),
        series("autumn", 4, "special"),
        q("C", "2:6"),
        q("D", "2:6"),
        q("G", "6:2"),
        q("H", "6:2"),
        game("special", "E", "6:3"),
    ]
    return events + [enter(f"R{i}", "reserve") for i in range(1, reserves + 1)]


def test_autumn_rating_and_the_special_game_4_6():
    j = state("2023", T8, _season_t8()[:15])
    assert j["rating"] == ["H", "G", "D", "C"]  # §4.2.3: H 6:1 before G 6:1, D 0:6 before C
    j = state("2023", T8, _season_t8()[:19])
    assert j["rating"] == ["H", "G"]
    assert j["out"] == [{"team": t, "rule": f"{R23} §4.4"} for t in ("B", "A", "C", "D")]
    assert j["next"] is None and j["series_best"] is None  # a person picks the special team
    j = state("2023", T8, _season_t8()[:20])
    assert j["rating"] == ["H", "G"]  # the special game moves nobody
    assert j["history"][-1] == {
        "event": 19,
        "team": "E",
        "kind": "special",
        "score": "6:3",
        "rating_after": ["H", "G"],
    }


def test_special_game_by_a_team_in_the_rating_is_refused_4_6():
    events = _season_t8()[:19] + [game("special", "H", "6:3")]
    assert refusal("2023", T8, events)[:2] == (19, f"{R23} §4.6")


def test_winter_rating_formed_anew_with_a_reserve_team_4_9():
    j = state("2023", T8, _season_t8(reserves=2) + [series("winter", 5, "year_final")])
    # §4.9.1 finals' winners, earlier first; §4.9.2 autumn's best by last game (H's 6:2 is
    # later than G's); §4.9.3 reserve teams in their order
    assert j["rating"] == ["E", "F", "H", "G", "R1"]
    assert j["order"] == ["R1", "G", "H", "F", "E"]


def test_winter_short_of_teams_is_refused_4_9_3():
    events = _season_t8(reserves=0) + [series("winter", 5, "year_final")]
    assert refusal("2023", T8, events)[:2] == (20, f"{R23} §4.9.3")


def test_winter_rating_puts_finals_winners_before_finals_losers_4_9_1():
    j = state("2023", TEN, events_2023()[:24])
    assert j["rating"] == ["Буян", "Мудрый", "Свинтицкий", "Антипов", "Королёва"]
    assert j["order"] == ["Королёва", "Антипов", "Свинтицкий", "Мудрый", "Буян"]


def test_winter_named_otherwise_is_refused_4_9():
    events = events_2023()[:22] + [series("winter", 5, "year_final", TEN[:5])]
    assert refusal("2023", TEN, events)[:2] == (22, f"{R23} §4.9")


def test_year_finalist_is_first_in_the_winter_rating_4_10():
    j = state("2023", TEN, events_2023()[:29])
    assert j["next"] == {"kind": "year_final", "team": "Антипов"}
    assert j["series_best"] is None
    events = events_2023()[:29] + [game("year_final", "Мудрый", "6:1")]
    assert refusal("2023", TEN, events)[:2] == (29, f"{R23} §4.10")


def test_nothing_after_the_year_final_4_10():
    events = events_2023() + [series("spring", 5, "series_final")]
    assert refusal("2023", TEN, events)[:2] == (30, f"{R23} §4.10")


def test_winter_with_four_games_has_a_special_game_then_the_year_final_4_1():
    events = _season_t8() + [series("winter", 4, "special")]
    j = state("2023", T8, events)
    assert j["rating"] == ["E", "F", "H", "G"]
    for team in ("G", "H", "F", "E"):
        events.append(q(team, "6:5"))
    j = state("2023", T8, events)
    assert j["rating"] == ["E", "F", "H", "G"]  # each 6:5 ties and goes first: E played last
    assert j["next"] is None
    events.append(game("special", "R1", "2:6"))
    assert state("2023", T8, events)["next"] == {"kind": "year_final", "team": "E"}


# --------------------------------------------------------------------------- §4.1 structure


@pytest.mark.parametrize(
    ("events", "index"),
    [
        ([series("spring", 4, "series_final")], 0),
        ([series("summer", 5, "series_final")], 0),
        ([series("spring", 5, "special")], 0),
        ([q("Королёва", "6:3")], 0),
        ([series("spring", 5, "series_final"), series("summer", 5, "series_final")], 1),
        ([series("spring", 5, "series_final"), game("special", "Орлова", "6:3")], 1),
        ([series("spring", 5, "series_final"), game("year_final", "Орлова", "6:3")], 1),
    ],
)
def test_series_structure_refusals_4_1(events, index):
    event, rule, _ = refusal("2023", SPRING, events)
    assert event == index
    assert rule in (f"{R23} §4.1", f"{R23} §4.10")


def test_unfinished_score_is_refused_3_10():
    assert refusal("2023", SPRING, _spring(q("Королёва", "5:4")))[:2] == (1, f"{R23} §3.10")
    assert refusal("2023", SPRING, _spring(q("Королёва", "6:6")))[:2] == (1, f"{R23} §3.10")


def test_a_sponsor_is_not_a_2023_team_4_9_3():
    assert refusal("2023", SPRING, [enter("МТС", "sponsor")])[:2] == (0, f"{R23} §4.9.3")


# --------------------------------------------------------------------------- the Python API


def test_step_by_step_check_game_and_context():
    season = Season.start(BOOKS["2023"], SPRING)
    season.apply(series("spring", 5, "series_final"), 0)
    season.apply(q("Королёва", "6:3"), 1)
    assert season.state().game_context() == {"series_best": "6:3"}
    season.check_game("qualifying", "Потапова", index=2)
    with pytest.raises(SeasonViolation) as info:
        season.check_game("qualifying", "Буян", index=2)
    assert info.value.rule == f"{R23} §4.8" and info.value.event_index == 2
    before = season.state()
    with pytest.raises(SeasonViolation):
        season.apply(q("Буян", "6:1"), 2)
    assert season.state() == before  # a refused event changes nothing


# --------------------------------------------------------------------------- malformed input


@pytest.mark.parametrize(
    ("change", "event", "start"),
    [
        (lambda d: d.update(format="sova.game-protocol/1"), None, "format must be"),
        (lambda d: d.update(ruleset=2023), None, "unknown ruleset 2023"),
        (lambda d: d.update(teams="Орлова"), None, "teams must be a list"),
        (lambda d: d.update(teams=[]), None, "teams must list at least one team"),
        (lambda d: d.update(teams=["A", " "]), None, "teams: a team is a non-empty name"),
        (lambda d: d.update(events={}), None, "events must be a list"),
        (lambda d: d["events"].append([]), 1, "an event is a JSON object"),
        (lambda d: d["events"].append({"type": "vote"}), 1, "unknown event type 'vote'"),
        (
            lambda d: d["events"].append(
                {"type": "series", "part": "year", "qualifying": 5, "closing": "none"}
            ),
            1,
            "series.part must be",
        ),
        (
            lambda d: d["events"].append(
                {"type": "series", "part": "summer", "qualifying": True, "closing": "none"}
            ),
            1,
            "series.qualifying must be of type int",
        ),
        (
            lambda d: d["events"].append(
                {"type": "game", "kind": "friendly", "team": "Буян", "score": "6:1"}
            ),
            1,
            "game.kind must be",
        ),
        (
            lambda d: d["events"].append(
                {"type": "game", "kind": "qualifying", "team": "Буян", "score": "6-1"}
            ),
            1,
            'score must be "E:V"',
        ),
        (
            lambda d: d["events"].append(
                {
                    "type": "game",
                    "kind": "qualifying",
                    "team": "Буян",
                    "score": "6:1",
                    "rounds_lost": -1,
                }
            ),
            1,
            "game.rounds_lost must be 0 or more",
        ),
        (
            lambda d: d["events"].append({"type": "rematch", "team": "Буян"}),
            1,
            "rematch needs the field 'granted'",
        ),
        (
            lambda d: d["events"].append({"type": "enter", "team": "Новые", "as": "guest"}),
            1,
            "enter.as must be one of reserve, sponsor",
        ),
        (
            lambda d: d["events"].append({"type": "enter", "team": "Буян", "as": "reserve"}),
            1,
            "team «Буян» is already in the season",
        ),
        (
            lambda d: d["events"].append({"type": "withdraw", "team": "Никто"}),
            1,
            "unknown team «Никто»",
        ),
    ],
)
def test_malformed_documents_are_protocol_errors(change, event, start):
    document = doc("2023", SPRING, [series("spring", 5, "series_final")])
    change(document)
    error = malformed(document)
    assert error["event"] == event and error["rule"] is None
    assert error["message"].startswith(start), error["message"]


def _violation(teams: list[str], events: list[dict]) -> SeasonViolation:
    with pytest.raises(SeasonViolation) as info:
        replay_season(doc("2023", teams, events))
    return info.value


def test_too_few_teams_for_the_qualifying_games_say_how_many_are_needed_4_8():
    v = _violation(["Орлова", "Буян"], [series("spring", 5, "series_final")])
    assert (v.event_index, v.rule) == (0, f"{R23} §4.8")
    assert v.message == (
        "not enough teams for the spring series: 5 qualifying games need 5 teams of the "
        "rating, 2 can play"
    )
    assert (
        v.ru == "не хватает команд: для 5 отборочных игр нужно 5 команд рейтинга, сыграть могут 2"
    )


def test_more_qualifying_games_than_the_series_has_say_the_series_shape_4_1():
    v = _violation(SPRING, [series("spring", 9, "series_final")])
    assert (v.event_index, v.rule) == (0, f"{R23} §4.1")
    assert v.message == (
        "the spring series has 5 qualifying games and a series final (at most 5 qualifying "
        "games), not 9 qualifying games and a series final"
    )
    assert v.ru == (
        "в весенней серии — 5 отборочных игр и финал серии (отборочных игр не больше 5), "
        "а не 9 отборочных игр и финал серии"
    )


def test_a_rematch_does_not_exist_under_the_2023_rules_4_1():
    v = _violation(
        SPRING,
        [series("spring", 5, "series_final"), {"type": "rematch", "team": "Буян", "granted": True}],
    )
    assert (v.event_index, v.rule) == (1, f"{R23} §4.1")
    assert v.message == "a rematch is a 2009 event: the 2023 rules have none"
    assert v.ru == "переигровки (матча-реванша) в правилах 2023 г. нет: это событие правил 2009 г."


# --------------------------------------------------------------------------- series_best, enter


def test_series_best_is_null_before_any_game_that_is_not_a_qualifying_one_3_6():
    season = Season.start(BOOKS["2023"], TEN)
    seen = {"qualifying": 0, "other": 0}
    for index, event in enumerate(events_2023()):
        season.apply(event, index)
        now = season.state()
        if now.next is not None and now.next.kind == "qualifying":
            seen["qualifying"] += now.series_best is not None
        else:  # a series final, a special game, the year final, or a person decides
            assert now.to_json()["series_best"] is None, index
            assert now.game_context() == {"series_best": None}
            seen["other"] += 1
    assert seen["qualifying"] >= 5 and seen["other"] >= 5


def test_a_reserve_enter_only_registers_the_team_4_9_3():
    before = state("2023", SPRING, _spring(q("Королёва", "6:3")))
    season = replay_season(
        doc("2023", SPRING, _spring(q("Королёва", "6:3"), enter("R", "reserve")))
    )
    after = season.to_json()
    assert season.reserves == ("R",)
    assert {k: after[k] for k in ("rating", "order", "next")} == {
        k: before[k] for k in ("rating", "order", "next")
    }
    # the winter series with enough teams of the autumn rating does not draw it
    events = events_2023()[:24]
    assert (events[22], events[23]["part"]) == (enter("Резерв", "reserve"), "winter")
    assert state("2023", TEN, events)["rating"] == [
        "Буян",
        "Мудрый",
        "Свинтицкий",
        "Антипов",
        "Королёва",
    ]
