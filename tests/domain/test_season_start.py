"""Sova's ``start`` event: a season joined under way (``docs/protocols.md``, «start»).

The exactness check cuts each whole season of ``tests/domain/data`` at every series opening
and after each of that series' games and withdrawals (2023 §4.8.1: «Стишенок» in autumn;
2009 §2.3: «Бялко» in spring), writes what was known at that point as one ``start``
event, and replays the rest of the season after it: every state that follows is the one the
whole season's replay gives (the games before the cut are in ``results``, not ``history``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.domain.season_helpers import R09, R23, doc, load, refusal, state
from webapp.domain.books import BOOKS, replay_season
from webapp.domain.rules import ProtocolError
from webapp.domain.season import Season

COMPARED = ("ruleset", "series", "rating", "next", "order", "series_best", "rules")
COMPARED += ("finals", "winter", "out")


def _result(r: Any) -> dict[str, Any]:
    out = {"part": r.part, "kind": r.kind, "team": r.team, "score": r.score}
    if r.decisive_round:
        out["decisive_round"] = True
    return out


def _cuts(document: dict[str, Any]):
    """``(cut, start event, events after it)`` for each series opening and each game of the
    series after it (up to its first event that is not a game)."""
    events = document["events"]
    for i, event in enumerate(events):
        if event["type"] != "series":
            continue
        before = Season.start(BOOKS[document["ruleset"]], document["teams"])
        for j, e in enumerate(events[:i]):
            before.apply(e, j)
        opened = Season.start(BOOKS[document["ruleset"]], document["teams"])
        for j, e in enumerate(events[: i + 1]):
            opened.apply(e, j)
        assert opened.series is not None
        current: list[dict[str, Any]] = []
        for k in range(i + 1, len(events) + 1):
            entries = [{"part": event["part"], "withdraw": t} for t in before.refusing]
            start = {
                "type": "start",
                "part": event["part"],
                "qualifying": event["qualifying"],
                "closing": event["closing"],
                "rating": list(opened.series.opened_rating),
                "results": [_result(r) for r in before.results]
                + entries
                + [{**g, "part": event["part"]} for g in current],
                "winter": list(before.winter),
                "note": "записано при переходе на Сову",
            }
            if before.rematch_pending is not None:
                start["rematch"] = before.rematch_pending
            if before.sponsor is not None:
                start["sponsor"] = before.sponsor
            for g in start["results"]:
                g.pop("type", None)
            yield k, start, before.teams, events[k:]
            if k == len(events) or events[k]["type"] not in ("game", "withdraw"):
                break
            if events[k]["type"] == "withdraw":
                current.append({"withdraw": events[k]["team"]})
            else:
                current.append(events[k])


@pytest.mark.parametrize("name", ["season_2023.json", "season_2009.json"])
def test_a_season_started_at_any_series_replays_exactly(name):
    document = load(name)
    full = Season.start(BOOKS[document["ruleset"]], document["teams"])
    after: list[dict[str, Any]] = []
    for j, e in enumerate(document["events"]):
        full.apply(e, j)
        after.append(full.state().to_json())
    cuts = 0
    for k, start, teams, rest in _cuts(document):
        cuts += 1
        season = Season.start(BOOKS[document["ruleset"]], teams)
        season.apply(start, 0)
        assert {key: season.state().to_json()[key] for key in COMPARED} == {
            key: after[k - 1][key] for key in COMPARED
        }, (k, start)
        for n, e in enumerate(rest, start=1):
            season.apply(e, n)
            got = season.state().to_json()
            assert {key: got[key] for key in COMPARED} == {
                key: after[k - 1 + n][key] for key in COMPARED
            }, (k, n, e)
        assert season.over == full.over
        assert [_result(r) for r in season.results] == [_result(r) for r in full.results]
    assert cuts == {"season_2023.json": 29, "season_2009.json": 22}[name]


T23 = ["Орлова", "Свинтицкий", "Буян", "Наталевич", "Стишенок", "Антипов", "Потапова"]


def _start(**fields: Any) -> dict[str, Any]:
    return {"type": "start", "part": "autumn", "qualifying": 5, "closing": "series_final", **fields}


SPRING_23 = [
    {"part": "spring", "kind": "qualifying", "team": "Потапова", "score": "4:6"},
    {"part": "spring", "kind": "qualifying", "team": "Буян", "score": "6:3"},
    {"part": "spring", "kind": "series_final", "team": "Буян", "score": "6:2"},
    {"part": "summer", "kind": "qualifying", "team": "Потапова", "score": "2:6"},
    {"part": "summer", "kind": "series_final", "team": "Свинтицкий", "score": "3:6"},
]


def test_autumn_start_2023_winter_out_order_and_the_next_game():
    """2023: the finalists so far are through to winter (§4.7.2), a second loss put
    «Потапова» out (§4.4), the autumn series opens with the rating given and its order
    (§4.8), and a game of it already played moves the rating by §4.5."""
    rating = ["Орлова", "Наталевич", "Стишенок", "Антипов", "Королёва"]
    results = [
        *SPRING_23,
        {"part": "autumn", "kind": "qualifying", "team": "Королёва", "score": "6:1"},
    ]
    got = state("2023", [*T23, "Королёва"], [_start(rating=rating, results=results)])
    assert got["series"] == {
        "part": "autumn",
        "qualifying_played": 1,
        "qualifying": 5,
        "closing": "series_final",
    }
    assert got["rating"] == ["Королёва", "Орлова", "Наталевич", "Стишенок", "Антипов"]
    assert got["order"] == ["Королёва", "Антипов", "Стишенок", "Наталевич", "Орлова"]
    assert got["next"] == {"kind": "qualifying", "team": "Антипов"}
    assert got["series_best"] == {"team": "Королёва", "score": "6:1"}
    assert got["winter"] == ["Буян", "Свинтицкий"]
    assert got["out"] == [{"team": "Потапова", "rule": f"{R23} §4.4"}]
    assert got["finals"] == [
        {"part": "spring", "team": "Буян", "score": "6:2", "won": True},
        {"part": "summer", "team": "Свинтицкий", "score": "3:6", "won": False},
    ]
    assert [h["team"] for h in got["history"]] == ["Королёва"]


@pytest.mark.parametrize(
    ("fields", "rule", "message"),
    [
        (
            {"rating": ["Орлова", "Буян", "Стишенок", "Антипов", "Наталевич"]},
            f"{R23} §4.7.2",
            "«Буян» cannot be in the rating of the autumn series: it is through to the winter "
            "series",
        ),
        (
            {"rating": ["Орлова", "Потапова", "Стишенок", "Антипов", "Наталевич"]},
            f"{R23} §4.4",
            "«Потапова» lost its second game of the season and is out",
        ),
        (
            {"qualifying": 3, "rating": ["Орлова", "Стишенок", "Антипов"]},
            f"{R23} §4.1",
            "the autumn series has 4 qualifying games and a special game or 5 qualifying "
            "games and a series final (at most 5 qualifying games), not 3 qualifying games "
            "and a series final",
        ),
        (
            {"winter": ["Буян"]},
            f"{R23} §4.7.2",
            "the winter places given, «Буян», are not the series finalists so far: «Буян», "
            "«Свинтицкий»",
        ),
        (
            {"rematch": "Свинтицкий"},
            f"{R23} §4.1",
            "a rematch is a 2009 event: the 2023 rules have none",
        ),
        (
            {
                "results": [
                    *SPRING_23,
                    {"part": "autumn", "kind": "qualifying", "team": "Орлова", "score": "6:1"},
                ]
            },
            f"{R23} §4.8",
            "line 6 of the results so far (autumn series): «Орлова» plays out of turn: "
            "qualifying game 1 of the autumn series is «Наталевич»'s (the team lowest in the "
            "rating plays first, the first place last)",
        ),
        (
            {"results": [{"part": "spring", "kind": "qualifying", "team": "Буян", "score": "6:6"}]},
            f"{R23} §3.10",
            "line 1 of the results so far («Буян», spring series): 6:6 is not the score of a "
            "finished game",
        ),
    ],
)
def test_start_refusals_2023(fields, rule, message):
    base = {
        "rating": ["Орлова", "Стишенок", "Антипов", "Королёва", "Наталевич"],
        "results": SPRING_23,
    }
    assert refusal("2023", [*T23, "Королёва"], [_start(**{**base, **fields})]) == (
        0,
        rule,
        message,
    )


def test_start_comes_first_only_an_amendment_before_it():
    events = [
        {"type": "amend", "set": {"losses_to_out": 3}, "note": "объявлено до перехода"},
        _start(
            rating=["Орлова", "Стишенок", "Антипов", "Потапова", "Наталевич"], results=SPRING_23
        ),
    ]
    got = state("2023", [*T23, "Королёва"], events)
    assert got["out"] == []  # two losses of «Потапова» are not three (§4.12.1)
    assert got["rating"][3] == "Потапова"
    spring = {"type": "series", "part": "spring", "qualifying": 3, "closing": "series_final"}
    assert refusal("2009", ["А", "Б", "В"], [spring, _start(rating=["А"])]) == (
        1,
        f"{R09} §2.5",
        "the starting point of a season joined under way comes before any other event (only "
        "an amendment of the rules may precede it)",
    )


def test_start_2009_rematch_declined_winter_place_and_sponsor():
    """2009: the summer final's loser granted a rematch plays it in autumn (§2.10); a
    winner that gave its winter place up is not in ``winter`` (§2.12); the sponsor's team
    is the last of the winter rating and plays its first game (§2.13–§2.14)."""
    teams = ["Друзь", "Козлов", "Поташев", "Бялко", "Гришин", "МТС"]
    results = [
        {"part": "spring", "kind": "series_final", "team": "Козлов", "score": "6:2"},
        {"part": "summer", "kind": "series_final", "team": "Поташев", "score": "4:6"},
    ]
    autumn = {
        "type": "start",
        "part": "autumn",
        "qualifying": 3,
        "closing": "series_final",
        "rating": ["Друзь", "Гришин", "Бялко", "Поташев"],
        "results": results,
        "rematch": "Поташев",
    }
    got = state("2009", teams, [autumn])
    assert got["winter"] == ["Козлов"]
    got = state("2009", teams, [{**autumn, "winter": [], "rating": [*autumn["rating"], "Козлов"]}])
    assert got["winter"] == []
    assert refusal("2009", teams, [{**autumn, "rematch": "Друзь"}]) == (
        0,
        f"{R09} §2.10",
        "«Друзь» has no rematch in the autumn series: it did not lose the final of the "
        "series just before it",
    )
    winter = {
        "type": "start",
        "part": "winter",
        "qualifying": 3,
        "closing": "series_final",
        "rating": ["Козлов", "Поташев", "МТС"],
        "results": results,
        "sponsor": "МТС",
    }
    got = state("2009", teams, [winter])
    assert got["next"] == {"kind": "qualifying", "team": "МТС"}
    assert refusal("2009", teams, [{**winter, "sponsor": "Поташев"}]) == (
        0,
        f"{R09} §2.13",
        "«Поташев» cannot be the sponsor's team here: it joins the winter rating, last",
    )


@pytest.mark.parametrize(
    ("results", "ru", "be"),
    [
        (
            [{"part": "winter", "kind": "qualifying", "team": "Орлова", "score": "6:1"}],
            "строка 1 сыгранного: серия — одна из: весенняя, летняя, осенняя; получено 'winter'",
            "радок 1 згуланага: серыя — адна з: вясновая, летняя, восеньская; атрымана 'winter'",
        ),
        (
            [SPRING_23[3], SPRING_23[0]],
            "строка 2 сыгранного: игры идут от старых к новым, а весенняя серия предшествует "
            "летней",
            "радок 2 згуланага: гульні ідуць ад старых да новых, а вясновая серыя папярэднічае "
            "летняй",
        ),
        (
            [{"part": "spring", "withdraw": "Стишенок"}],
            "строка 1 сыгранного: отказ называет команду («withdraw») и записывается только от "
            "осенней серии, с которой сезон ведётся в Сове",
            "радок 1 згуланага: адмова называе каманду («withdraw») і запісваецца толькі ад "
            "восеньскай серыі, з якой сезон вядзецца ў Саве",
        ),
        (
            [{"part": "spring", "kind": "qualifying", "team": "Орлова"}],
            "строка 1 сыгранного: в событии «game» нет поля «score»",
            "радок 1 згуланага: у падзеі «game» няма поля «score»",
        ),
    ],
)
def test_start_results_faults_read_in_russian_and_belarusian(results, ru, be):
    """What the staff pages and the API show of a malformed list of games played before
    Sova: each fault in the page's language, never the English of the protocol."""
    from webapp.domain.books import season_refusal_text

    with pytest.raises(ProtocolError) as info:
        replay_season(doc("2023", T23, [_start(rating=["Орлова"], results=results)]))
    assert season_refusal_text(info.value, "ru") == ru
    assert season_refusal_text(info.value, "be") == be


def test_start_malformed_is_a_protocol_error():
    with pytest.raises(ProtocolError) as info:
        replay_season(
            doc(
                "2023",
                T23,
                [
                    _start(
                        rating=["Орлова"],
                        results=[
                            {
                                "part": "winter",
                                "kind": "qualifying",
                                "team": "Орлова",
                                "score": "6:1",
                            }
                        ],
                    )
                ],
            )
        )
    assert info.value.to_json()["error"] == {
        "event": 0,
        "rule": None,
        "message": "start.results[0].part must be one of spring, summer, autumn; got 'winter'",
    }
    with pytest.raises(ProtocolError) as info:
        replay_season(doc("2023", T23, [_start(rating=["Никто"])]))
    assert info.value.to_json()["error"]["message"] == "unknown team «Никто»"
