"""Adding a rule book to the season engine is one module and one registry line.

The toy book below lives in this test alone: a :class:`RuleBook` subclass (what a new
``webapp/domain/books/bNNNN/season.py`` would hold) and one line in the registry. The engine
then replays a season under it — series in order, its own shapes, order, moves and year
final, the shared refusals citing its clauses, the events it lacks refused — with no other
change.

Toy rules (file ``toy.txt``): §1 every series is one qualifying game, the winter one then the
year final; §2 the rating goes on through the season; §3 the last place plays the qualifying
game; §4 a win goes first, a loss last; §5 the first place plays the year final; §6 a game goes
to 3 points; §7 withdrawals are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest

from tests.domain.season_helpers import doc, q, series
from webapp.domain.books import BOOKS
from webapp.domain.rules import ProtocolError
from webapp.domain.season import (
    NextGame,
    Result,
    RuleBook,
    Season,
    SeasonBook,
    SeasonViolation,
    replay_season,
)


class ToyBook(RuleBook):
    name = "toy"
    file = "toy.txt"
    clauses = MappingProxyType(
        {
            "year_final": "§5",
            "series_sequence": "§1",
            "series_shape": "§1",
            "withdraw": "§7",
            "not_listed": "§2",
            "winter_rating": "§2",
            "game_end": "§6",
        }
    )

    def parameters(self) -> dict[str, int | bool]:
        return {"points_to_win": 3}

    def form(self, season, part, qualifying, closing, named):
        shape = (1, "year_final" if part == "winter" else "none")
        if (qualifying, closing) != shape:
            raise season.refuse("§1", f"the {part} series is {shape}", f"серия {part}: {shape}")
        return list(season.rating), "§1"

    def shortage(self, season, withdrawing):
        return season.too_few(len(season.available()), 1, withdrawing)

    def next_qualifying(self, season) -> NextGame | None:
        return NextGame("qualifying", season.rating[-1])

    def check_game(self, season, kind, team, decisive_round) -> None:
        due = season.next_game()
        if due is not None and team != due.team:
            raise season.refuse(
                "§3" if kind == "qualifying" else "§5",
                f"«{team}» is not due: «{due.team}» is",
                f"играет не «{team}», а «{due.team}»",
            )

    def place(self, season, result: Result) -> str:
        rest = [t for t in season.rating if t != result.team]
        season.rating = [result.team, *rest] if result.won else [*rest, result.team]
        return "§4"

    def final(self, season, result: Result) -> str:
        raise AssertionError("the toy book has no series final")

    def coming(self, season, team, coming):
        raise season.refuse("§7", "no withdrawals", "без отказов")


TOY_BOOKS: Mapping[str, SeasonBook] = {**BOOKS, "toy": ToyBook}  # the one registry line


@pytest.fixture
def toy() -> Mapping[str, SeasonBook]:
    return TOY_BOOKS


TEAMS = ["Альфа", "Бета", "Гамма"]


def season_events() -> list[dict[str, Any]]:
    return [
        series("spring", 1, "none"),
        q("Гамма", "3:1"),  # §3 the last place plays; §4 a win goes first
        series("summer", 1, "none"),
        q("Бета", "0:3"),  # a loss goes last
        series("autumn", 1, "none"),
        q("Бета", "3:2"),
        series("winter", 1, "year_final"),
        q("Альфа", "3:0"),
        {"type": "game", "kind": "year_final", "team": "Альфа", "score": "1:3"},
    ]


def test_a_toy_book_plays_a_tiny_season(toy: Mapping[str, SeasonBook]) -> None:
    assert toy["toy"] is ToyBook and ToyBook.file == "toy.txt"
    state = replay_season(doc("toy", TEAMS, season_events()), toy)
    assert state.over
    assert state.to_json() == {
        "ruleset": "toy",
        "series": {"part": "winter", "qualifying_played": 1, "qualifying": 1, "closing": "year_final"},
        "rating": ["Альфа", "Бета", "Гамма"],
        "next": None,
        "order": None,
        "series_best": None,
        "rules": {"points_to_win": 3},
        "amendments": [],
        "finals": [],
        "winter": [],
        "out": [],
        "history": [
            {"event": 1, "team": "Гамма", "kind": "qualifying", "score": "3:1",
             "rating_after": ["Гамма", "Альфа", "Бета"]},
            {"event": 3, "team": "Бета", "kind": "qualifying", "score": "0:3",
             "rating_after": ["Гамма", "Альфа", "Бета"]},
            {"event": 5, "team": "Бета", "kind": "qualifying", "score": "3:2",
             "rating_after": ["Бета", "Гамма", "Альфа"]},
            {"event": 7, "team": "Альфа", "kind": "qualifying", "score": "3:0",
             "rating_after": ["Альфа", "Бета", "Гамма"]},
            {"event": 8, "team": "Альфа", "kind": "year_final", "score": "1:3",
             "rating_after": ["Альфа", "Бета", "Гамма"]},
        ],
    }  # fmt: skip
    assert [m.rule for m in state.history] == ["toy.txt §4"] * 4 + ["toy.txt §5"]


def refused(events: list[dict[str, Any]]) -> tuple[int | None, str, str]:
    with pytest.raises(SeasonViolation) as info:
        replay_season(doc("toy", TEAMS, events), TOY_BOOKS)
    return info.value.event_index, info.value.rule, info.value.message


def test_the_toy_books_own_rules_and_the_shared_refusals_cite_its_clauses(
    toy: Mapping[str, SeasonBook],
) -> None:
    events = season_events()
    assert refused([series("spring", 2, "none")]) == (
        0,
        "toy.txt §1",
        "the spring series is (1, 'none')",
    )
    assert refused([*events[:1], q("Альфа", "3:1")]) == (
        1,
        "toy.txt §3",
        "«Альфа» is not due: «Гамма» is",
    )
    # the engine's own refusals, with the toy book's clauses
    assert refused([*events[:1], q("Гамма", "6:1")]) == (
        1,
        "toy.txt §6",
        "6:1 is not the score of a finished game: the game goes to 3 points",
    )
    assert refused([series("summer", 1, "none")])[:2] == (0, "toy.txt §1")
    assert refused([*events, series("spring", 1, "none")])[:2] == (9, "toy.txt §5")
    assert refused([{"type": "withdraw", "team": "Бета"}]) == (0, "toy.txt §7", "no withdrawals")
    # the events the toy book lacks: refused by the base class
    assert refused([*events[:2], {"type": "rematch", "team": "Гамма", "granted": True}]) == (
        2,
        "toy.txt §1",
        "a rematch is not an event of the toy rules",
    )
    assert refused([{"type": "enter", "team": "Дельта", "as": "reserve"}])[:2] == (0, "toy.txt §2")


def test_step_by_step_under_the_toy_book(toy: Mapping[str, SeasonBook]) -> None:
    season = Season.start(toy["toy"], TEAMS)
    season.apply(series("spring", 1, "none"), 0)
    assert season.next_game() == NextGame("qualifying", "Гамма")
    season.check_game("qualifying", "Гамма", index=1)
    with pytest.raises(SeasonViolation):
        season.check_game("qualifying", "Бета", index=1)


def test_without_the_registry_line_the_toy_book_is_unknown() -> None:
    with pytest.raises(ProtocolError, match="unknown ruleset 'toy'; expected one of 2009, 2023"):
        replay_season(doc("toy", TEAMS, []), BOOKS)
