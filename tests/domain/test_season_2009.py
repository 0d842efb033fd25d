"""The 2009 season (002_e025d5ded135c1c4.txt §2.1–§2.18): exact ratings, finalists, winter
rating and its three sizes, rematch, refusals with their clauses."""

from __future__ import annotations

import pytest

from tests.domain.season_helpers import (
    R09,
    doc,
    enter,
    final,
    game,
    load,
    q,
    refusal,
    series,
    state,
    withdraw,
)
from webapp.domain.books import replay_season
from webapp.domain.season import SeasonViolation

FIVE = ["Друзь", "Козлов", "Поташев", "Бялко", "Гришин"]
ABCDE = ["A", "B", "C", "D", "E"]


def events_2009() -> list[dict]:
    return load("season_2009.json")["events"]


def rematch(team: str, granted: bool = True) -> dict:
    return {"type": "rematch", "team": team, "granted": granted}


def decline(team: str) -> dict:
    return {"type": "decline_winter", "team": team}


# --------------------------------------------------------------------------- whole season


def test_whole_2009_season_from_the_protocol_file():
    s = replay_season(load("season_2009.json"))
    j = s.to_json()
    assert j["series"] == {
        "part": "winter",
        "qualifying_played": 3,
        "qualifying": 3,
        "closing": "series_final",
    }
    assert j["rating"] == ["МТС", "Козлов", "Поташев"]
    assert j["next"] is None and s.over
    assert j["order"] is None  # 2009 §2.3: teams choose their games
    assert j["finals"] == [
        {"part": "spring", "team": "Козлов", "score": "6:2", "won": True},
        {"part": "summer", "team": "Поташев", "score": "4:6", "won": False},
        {"part": "autumn", "team": "Поташев", "score": "6:3", "won": True},
        {"part": "winter", "team": "Поташев", "score": "5:6", "won": False},
    ]
    assert j["winter"] == ["Козлов", "Поташев"]
    assert j["out"] == []
    assert j["history"][-1] == {
        "event": 23,
        "team": "МТС",
        "kind": "year_final",
        "score": "6:4",
        "rating_after": ["МТС", "Козлов", "Поташев"],
    }
    moves = [(m.event, m.team, list(m.rating_after), m.rule.split()[-1]) for m in s.history]
    assert moves == [
        (2, "Гришин", ["Гришин", "Друзь", "Козлов", "Поташев", "Бялко"], "§2.7"),
        (3, "Поташев", ["Гришин", "Друзь", "Козлов", "Бялко", "Поташев"], "§2.8"),
        (4, "Козлов", ["Козлов", "Гришин", "Друзь", "Бялко", "Поташев"], "§2.7"),
        (5, "Козлов", ["Гришин", "Друзь", "Бялко", "Поташев"], "§2.12"),
        (7, "Друзь", ["Друзь", "Гришин", "Бялко", "Поташев"], "§2.7"),
        (8, "Бялко", ["Друзь", "Гришин", "Поташев", "Бялко"], "§2.8"),
        (9, "Поташев", ["Поташев", "Друзь", "Гришин", "Бялко"], "§2.7"),
        (10, "Поташев", ["Друзь", "Гришин", "Бялко", "Поташев"], "§2.10"),
        (13, "Гришин", ["Гришин", "Друзь", "Бялко", "Поташев"], "§2.7"),
        (14, "Поташев", ["Поташев", "Гришин", "Друзь", "Бялко"], "§2.11"),
        (15, "Друзь", ["Поташев", "Гришин", "Бялко", "Друзь"], "§2.8"),
        (16, "Поташев", ["Гришин", "Бялко", "Друзь"], "§2.12"),
        (19, "МТС", ["МТС", "Козлов", "Поташев"], "§2.7"),
        (20, "Козлов", ["МТС", "Поташев", "Козлов"], "§2.8"),
        (21, "Поташев", ["Поташев", "МТС", "Козлов"], "§2.7"),
        (22, "Поташев", ["МТС", "Козлов", "Поташев"], "§2.10"),
        (23, "МТС", ["МТС", "Козлов", "Поташев"], "§2.18"),
    ]


def test_initial_rating_and_finalist_2_1_2_9():
    j = state("2009", FIVE, [series("spring", 3, "series_final")])
    assert j["rating"] == FIVE
    assert j["next"] is None  # §2.3: teams choose the games by priority
    assert j["series_best"] is None  # no decisive round in 2009
    j = state("2009", FIVE, events_2009()[:5])
    assert j["next"] == {"kind": "series_final", "team": "Козлов"}


# --------------------------------------------------------------------------- §2.3, §2.4, §2.6


def test_withdrawn_team_keeps_its_place_and_may_not_play_2_3():
    j = state("2009", FIVE, events_2009()[:2])
    assert j["rating"] == FIVE
    events = events_2009()[:2] + [q("Бялко", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (2, f"{R09} §2.3")


def test_withdrawn_first_place_does_not_play_the_final_2_9():
    events = [
        series("spring", 3, "series_final"),
        withdraw("Друзь"),
        q("Козлов", "1:6"),
        q("Поташев", "1:6"),
        q("Бялко", "1:6"),
    ]
    j = state("2009", FIVE, events)
    assert j["rating"] == ["Друзь", "Гришин", "Козлов", "Поташев", "Бялко"]
    assert j["next"] == {"kind": "series_final", "team": "Гришин"}


def test_one_qualifying_game_per_team_in_a_series_2_4():
    events = [series("spring", 3, "series_final"), q("Друзь", "6:1"), q("Друзь", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (2, f"{R09} §2.4")


@pytest.mark.parametrize(
    "event",
    [
        series("spring", 4, "series_final"),
        series("spring", 3, "special"),
        series("spring", 3, "none"),
    ],
)
def test_a_series_is_three_qualifying_games_and_a_final_2_6(event):
    assert refusal("2009", FIVE, [event])[:2] == (0, f"{R09} §2.6")


def test_no_special_game_and_no_decisive_round_in_2009():
    events = [series("spring", 3, "series_final"), q("Друзь", "6:1"), q("Козлов", "6:0", True)]
    assert refusal("2009", FIVE, events)[:2] == (2, f"{R09} §1.8")
    events = [
        series("spring", 3, "series_final"),
        q("Друзь", "6:1"),
        q("Козлов", "6:1"),
        q("Поташев", "6:1"),
        game("special", "Бялко", "6:1"),
    ]
    assert refusal("2009", FIVE, events)[:2] == (4, f"{R09} §2.6")


def test_series_out_of_sequence_2_5():
    assert refusal("2009", FIVE, [series("autumn", 3, "series_final")])[:2] == (0, f"{R09} §2.5")


# --------------------------------------------------------------------------- finals §2.9–§2.12


def test_series_final_by_another_team_is_refused_2_9():
    events = events_2009()[:5] + [final("Гришин", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (5, f"{R09} §2.9")


def test_final_lost_goes_last_2_10():
    j = state("2009", FIVE, events_2009()[:11])
    assert j["rating"] == ["Друзь", "Гришин", "Бялко", "Поташев"]
    assert j["winter"] == ["Козлов"]


def test_rematch_series_qualifying_games_go_to_the_first_two_2_10():
    events = events_2009()[:13] + [q("Бялко", "6:1")]
    event, rule, message = refusal("2009", FIVE, events)
    assert (event, rule) == (13, f"{R09} §2.10")
    assert message == (
        "«Бялко» plays no qualifying game of the autumn series: with «Поташев»'s rematch in it, "
        "its other qualifying games are played by «Друзь» and «Гришин»"
    )


def test_rematch_team_plays_its_rematch_not_a_qualifying_game_2_10():
    events = events_2009()[:13] + [q("Поташев", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (13, f"{R09} §2.10")


def test_rematch_asked_by_a_winner_is_refused_2_10():
    events = events_2009()[:6] + [rematch("Козлов")]
    assert refusal("2009", FIVE, events)[:2] == (6, f"{R09} §2.10")


def test_rematch_asked_after_the_next_series_opened_is_refused_2_10():
    events = events_2009()[:11] + [series("autumn", 3, "series_final"), rematch("Поташев")]
    assert refusal("2009", FIVE, events)[:2] == (12, f"{R09} §2.10")


def test_rematch_team_does_not_withdraw_from_its_rematch_series_2_10():
    events = events_2009()[:13] + [withdraw("Поташев")]
    assert refusal("2009", FIVE, events)[:2] == (13, f"{R09} §2.10")


def test_rematch_not_granted_changes_nothing():
    events = events_2009()[:11] + [
        rematch("Поташев", granted=False),
        series("autumn", 3, "series_final"),
        q("Бялко", "6:1"),
    ]
    assert state("2009", FIVE, events)["rating"] == ["Бялко", "Друзь", "Гришин", "Поташев"]


def test_rematch_lost_puts_the_team_out_2_11():
    events = events_2009()[:13] + [game("rematch", "Поташев", "5:6")]
    j = state("2009", FIVE, events)
    assert j["out"] == [{"team": "Поташев", "rule": f"{R09} §2.11"}]
    assert j["rating"] == ["Друзь", "Гришин", "Бялко"]
    event, rule, message = refusal("2009", FIVE, events + [q("Поташев", "6:1")])
    assert (event, rule) == (14, f"{R09} §2.11")
    assert message == "«Поташев» lost its rematch and is out"


def test_rematch_won_goes_first_2_11():
    j = state("2009", FIVE, events_2009()[:15])
    assert j["rating"] == ["Поташев", "Гришин", "Друзь", "Бялко"]


def test_no_rematch_after_the_autumn_final_2_10():
    # the autumn final lost, then a rematch asked: the winter series is formed anew (§2.13)
    events = events_2009()[:17] + [rematch("Поташев")]
    events[16] = final("Поташев", "3:6")
    assert refusal("2009", FIVE, events)[:2] == (17, f"{R09} §2.10")
    events[17] = rematch("Поташев", granted=False)  # asked and not granted: nothing happens
    assert state("2009", FIVE, events)["rating"] == ["Гришин", "Бялко", "Друзь", "Поташев"]


def test_final_won_leaves_the_rating_for_winter_2_12():
    j = state("2009", FIVE, events_2009()[:6])
    assert j["rating"] == ["Гришин", "Друзь", "Бялко", "Поташев"]
    assert j["winter"] == ["Козлов"]


def test_declined_winter_place_keeps_first_place_2_12():
    j = state("2009", FIVE, events_2009()[:6] + [decline("Козлов")])
    assert j["rating"] == ["Козлов", "Гришин", "Друзь", "Бялко", "Поташев"]
    assert j["winter"] == []


@pytest.mark.parametrize(
    "events",
    [
        events_2009()[:11] + [decline("Поташев")],  # lost its final
        events_2009()[:7] + [decline("Козлов")],  # after the next series opened
        events_2009()[:6] + [decline("Гришин")],  # did not play the final
    ],
)
def test_decline_winter_refused_2_12(events):
    assert refusal("2009", FIVE, events)[:2] == (len(events) - 1, f"{R09} §2.12")


# --------------------------------------------------------------------------- winter §2.13–§2.18


def _three_finals(*finals: tuple[str, str]) -> list[dict]:
    """Spring, summer, autumn where the qualifying games are played by the given three teams
    in order (the first wins 6:5, the others lose 1:6), then each final with its score."""
    events = []
    plans = {
        "spring": ["A", "B", "C"],
        "summer": ["D", "E", "B"],
        "autumn": ["C", "E", "B"],
    }
    for (part, teams), (finalist, score) in zip(plans.items(), finals, strict=True):
        events.append(series(part, 3, "series_final"))
        events += [q(teams[0], "6:5"), q(teams[1], "1:6"), q(teams[2], "1:6")]
        events.append(final(finalist, score))
    return events


def test_four_winter_teams_by_best_final_score_4_qualifying_no_final_2_13_2_15():
    events = _three_finals(("A", "6:3"), ("D", "6:1"), ("C", "6:1")) + [enter("S", "sponsor")]
    j = state("2009", ABCDE, events + [series("winter", 4, "none")])
    # D 6:1 before C 6:1 (the earlier win), then A 6:3; the sponsor's team last (§2.14)
    assert j["rating"] == ["D", "C", "A", "S"]
    assert j["next"] == {"kind": "qualifying", "team": "S"}
    assert j["winter"] == ["A", "D", "C"]
    events += [
        series("winter", 4, "none"),
        q("S", "6:2"),
        q("D", "3:6"),
        q("C", "6:4"),
        q("A", "6:5"),
    ]
    j = state("2009", ABCDE, events)
    assert j["rating"] == ["A", "C", "S", "D"]
    assert j["next"] == {"kind": "year_final", "team": "A"}  # §2.18


def test_four_winter_teams_refuse_a_winter_final_2_15():
    events = _three_finals(("A", "6:3"), ("D", "6:1"), ("C", "6:1")) + [
        enter("S", "sponsor"),
        series("winter", 3, "series_final"),
    ]
    assert refusal("2009", ABCDE, events)[:2] == (16, f"{R09} §2.15")


def test_three_winter_teams_have_a_winter_final_2_16():
    events = _three_finals(("A", "6:3"), ("D", "6:1"), ("C", "6:1")) + [series("winter", 4, "none")]
    assert refusal("2009", ABCDE, events)[:2] == (15, f"{R09} §2.16")
    events[-1] = series("winter", 3, "series_final")
    j = state("2009", ABCDE, events)
    assert j["rating"] == ["D", "C", "A"]


def test_one_winner_and_the_sponsor_take_the_first_place_of_the_rating_2_17():
    # spring: A wins (rating D, E, B, C); summer: D loses its final; autumn: C loses its final
    events = _three_finals(("A", "6:3"), ("D", "1:6"), ("C", "6:2"))
    events[-1] = final("C", "2:6")
    j = state("2009", ABCDE, events)
    rating_at_autumn_end = j["rating"]
    assert rating_at_autumn_end == ["D", "E", "B", "C"]
    j = state("2009", ABCDE, events + [enter("S", "sponsor"), series("winter", 3, "series_final")])
    assert j["rating"] == ["A", "D", "S"]  # the winner, the first place, the sponsor's team


def test_only_the_sponsor_takes_the_first_two_places_2_17():
    events = _three_finals(("A", "1:6"), ("D", "1:6"), ("C", "1:6"))
    rating = state("2009", ABCDE, events)["rating"]
    assert rating == ["A", "D", "E", "B", "C"]
    j = state("2009", ABCDE, events + [enter("S", "sponsor"), series("winter", 3, "series_final")])
    assert j["rating"] == ["A", "D", "S"]
    assert j["winter"] == []


def test_sponsor_plays_the_first_winter_game_2_14():
    events = load("season_2009.json")["events"][:19] + [q("Козлов", "6:1")]
    event, rule, message = refusal("2009", FIVE, events)
    assert (event, rule) == (19, f"{R09} §2.14")
    assert "«МТС»" in message


def test_sponsor_losing_its_first_game_is_out_2_14():
    events = events_2009()[:19] + [q("МТС", "5:6")]
    j = state("2009", FIVE, events)
    assert j["out"] == [{"team": "МТС", "rule": f"{R09} §2.14"}]
    assert j["rating"] == ["Козлов", "Поташев"]


def test_sponsor_enters_once_and_before_winter_2_13():
    events = [enter("S", "sponsor"), enter("T", "sponsor")]
    assert refusal("2009", FIVE, events)[:2] == (1, f"{R09} §2.13")
    assert refusal("2009", FIVE, [enter("R", "reserve")])[:2] == (0, f"{R09} §2.13")
    events = events_2009()[:18] + [enter("T", "sponsor")]
    assert refusal("2009", FIVE, events)[:2] == (18, f"{R09} §2.13")


def test_year_final_by_another_team_is_refused_2_18():
    events = events_2009()[:23] + [game("year_final", "Козлов", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (23, f"{R09} §2.18")
    assert state("2009", FIVE, events_2009()[:23])["next"] == {"kind": "year_final", "team": "МТС"}


def test_nothing_after_the_year_final_2_18():
    events = events_2009() + [q("Козлов", "6:1")]
    assert refusal("2009", FIVE, events)[:2] == (24, f"{R09} §2.18")


def test_unfinished_score_is_refused_1_8():
    events = [series("spring", 3, "series_final"), q("Друзь", "4:5")]
    assert refusal("2009", FIVE, events)[:2] == (1, f"{R09} §1.8")


# --------------------------------------------------------------------------- withdrawals §2.3


def test_withdrawal_between_two_series_applies_to_the_next_series_2_3():
    events = events_2009()[:6] + [withdraw("Бялко")]  # after the spring final
    season = replay_season({**load("season_2009.json"), "events": events})
    assert season.refusing == ("Бялко",)
    events.append(series("summer", 3, "series_final"))
    j = state("2009", FIVE, events)
    assert j["rating"] == ["Гришин", "Друзь", "Бялко", "Поташев"]  # §2.3: it keeps its place
    assert refusal("2009", FIVE, events + [q("Бялко", "6:1")]) == (
        8,
        f"{R09} §2.3",
        "«Бялко» withdrew from the summer series and plays no game in it",
    )


def test_withdrawal_between_series_refused_with_its_fault_2_3_2_6_2_12_2_13():
    after_spring = events_2009()[:6]
    assert refusal("2009", FIVE, after_spring + [withdraw("Козлов")]) == (
        6,
        f"{R09} §2.12",
        "«Козлов» cannot withdraw from the coming summer series: it has no place in it, having "
        "won a series final it left the rating for the winter series",
    )
    assert refusal("2009", FIVE, after_spring + [withdraw("Бялко"), withdraw("Друзь")]) == (
        7,
        f"{R09} §2.6",
        "«Друзь» cannot withdraw from the coming summer series: without it and the teams that "
        "withdrew before, 2 teams are left for at least 3 qualifying games",
    )
    event, rule, _ = refusal("2009", FIVE, events_2009()[:17] + [withdraw("Гришин")])
    assert (event, rule) == (17, f"{R09} §2.13")


def test_withdrawal_after_the_opening_until_the_teams_first_game_2_3():
    events = [series("spring", 3, "series_final"), q("Гришин", "6:4"), withdraw("Друзь")]
    j = state("2009", FIVE, events)
    assert j["rating"] == ["Гришин", "Друзь", "Козлов", "Поташев", "Бялко"]
    assert refusal("2009", FIVE, events[:2] + [withdraw("Гришин")]) == (
        2,
        f"{R09} §2.3",
        "«Гришин» has already played in the spring series and can no longer withdraw from it",
    )
    # the first place that has not played may give up the final it would play (§2.9)
    events = [
        series("spring", 3, "series_final"),
        q("Козлов", "1:6"),
        q("Поташев", "1:6"),
        q("Бялко", "1:6"),
    ]
    assert state("2009", FIVE, events)["next"] == {"kind": "series_final", "team": "Друзь"}
    j = state("2009", FIVE, events + [withdraw("Друзь")])
    assert j["next"] == {"kind": "series_final", "team": "Гришин"}


def test_rematch_is_not_granted_to_a_team_that_withdrew_from_the_next_series_2_10():
    events = events_2009()[:11] + [withdraw("Поташев"), rematch("Поташев")]
    assert refusal("2009", FIVE, events) == (
        12,
        f"{R09} §2.10",
        "«Поташев» cannot be granted a rematch: it withdrew from the coming series, where the "
        "rematch would be played",
    )


# --------------------------------------------------------------------------- §2.15 cited


def _four_in_winter() -> list[dict]:
    return _three_finals(("A", "6:3"), ("D", "6:1"), ("C", "6:1")) + [enter("S", "sponsor")]


def test_winter_declared_with_a_final_when_all_four_are_in_names_the_cancelled_final_2_15():
    with pytest.raises(SeasonViolation) as info:
        replay_season(doc("2009", ABCDE, _four_in_winter() + [series("winter", 4, "series_final")]))
    v = info.value
    assert (v.event_index, v.rule) == (16, f"{R09} §2.15")
    assert v.message == (
        "the winter series has 4 qualifying games and no series final, not 4 qualifying games "
        "and a series final: all 4 teams are in, so the final of the winter series is cancelled"
    )
    assert v.ru == (
        "в зимней серии — 4 отборочные игры без финала серии, а не 4 отборочные игры и финал "
        "серии: право играть получили все 4 команды, и финал Зимней серии отменён"
    )


@pytest.mark.parametrize("played", [0, 1, 4])
def test_a_winter_final_with_all_four_teams_in_is_refused_under_2_15_not_2_6(played):
    games = [q("S", "6:2"), q("D", "3:6"), q("C", "6:4"), q("A", "6:5")][:played]
    events = _four_in_winter() + [series("winter", 4, "none"), *games, final("A", "6:1")]
    assert refusal("2009", ABCDE, events) == (
        17 + played,
        f"{R09} §2.15",
        "the winter series has no final: all 4 teams are in, so the final of the winter series "
        "is cancelled",
    )
