"""Every prize of both rule books (000_90d7c8192601ed3a.txt §4.11, 002_e025d5ded135c1c4.txt
§1.2.2 and §3) with exact amounts, recipients and refusals citing the clause."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from webapp.domain.books import BOOKS, award_label, trophy_label
from webapp.domain.money import Money
from webapp.domain.prizes import (
    Award,
    PrizeRefused,
    award_to_author,
    award_to_each_expert,
    award_to_expert,
    awards_available,
    awards_of,
    unanswered_question_prizes,
)

A2023 = BOOKS["2023"].awards
A2009 = BOOKS["2009"].awards

BYN2000 = Money(Decimal("2000.00"), "BYN")
TEAM = ["Алёна Повышева", "Илья Новиков", "Максим Поташев"]
MINUTES = ("commission_minutes", "gift_agreement")


def test_unanswered_2023_300_each_and_co_authors_split_to_the_kopeck():
    out = unanswered_question_prizes(
        BOOKS["2023"].unanswered_rule,
        [(1, [10]), (2, [11, 12, 13]), (3, [])],
        Money(Decimal("100.00"), "BYN"),
    )
    assert [(e.question_key, e.author_key, e.money.amount) for e in out] == [
        (1, 10, Decimal("100.00")),
        (2, 11, Decimal("33.34")),
        (2, 12, Decimal("33.33")),
        (2, 13, Decimal("33.33")),
    ]
    assert {e.rule for e in out} == {"000_90d7c8192601ed3a.txt §4.11.1"}
    out = unanswered_question_prizes(
        BOOKS["2023"].unanswered_rule, [(5, [7])], Money(Decimal("300.00"), "BYN")
    )
    assert out[0].money == Money(Decimal("300.00"), "BYN")


def test_unanswered_2009_season_amount():
    out = unanswered_question_prizes(
        BOOKS["2009"].unanswered_rule, [(5, [7, 8])], Money(Decimal("41000.00"), "RUB")
    )
    assert [(e.author_key, e.money) for e in out] == [
        (7, Money(Decimal("20500.00"), "RUB")),
        (8, Money(Decimal("20500.00"), "RUB")),
    ]
    assert out[0].rule == "002_e025d5ded135c1c4.txt §1.2.2"


def test_4_11_2_best_participant_of_winning_team():
    award = award_to_expert(
        A2023["best_participant_of_series"],
        game_kind="series_final",
        winner="experts",
        recipient="  илья  новиков ",
        team=TEAM,
        prize=BYN2000,
    )
    assert award == Award(
        "best_participant_of_series",
        "илья новиков",
        None,
        BYN2000,
        "small_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.2",
        MINUTES,
    )


def test_4_11_2_refuses_someone_not_of_the_winning_team_and_a_lost_final():
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            A2023["best_participant_of_series"],
            game_kind="series_final",
            winner="experts",
            recipient="Автор Зрителей",
            team=TEAM,
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.2"
    assert str(exc.value) == (
        "«Автор Зрителей» не входит в состав команды знатоков этой игры:"
        " приз вручается только её участнику"
    )
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            A2023["best_participant_of_series"],
            game_kind="series_final",
            winner="viewers",
            recipient=TEAM[0],
            team=TEAM,
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.2"
    assert "выиграли знатоки" in str(exc.value)


def test_4_11_3_best_author_must_be_an_unanswered_question_author():
    award = award_to_author(
        A2023["best_author_of_series"],
        game_kind="series_final",
        winner="viewers",
        author_key=11,
        author_name="Иван Сапего",
        unanswered_authors=[10, 11],
        prize=BYN2000,
    )
    assert award == Award(
        "best_author_of_series",
        "Иван Сапего",
        11,
        BYN2000,
        "small_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.3",
        MINUTES,
    )
    with pytest.raises(PrizeRefused) as exc:
        award_to_author(
            A2023["best_author_of_series"],
            game_kind="series_final",
            winner="viewers",
            author_key=99,
            author_name="Чужой",
            unanswered_authors=[10, 11],
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.3"
    assert str(exc.value) == (
        "«Чужой» не автор ни одного вопроса, на который знатоки не ответили в этой игре"
    )
    with pytest.raises(PrizeRefused) as exc:
        award_to_author(
            A2023["best_author_of_series"],
            game_kind="series_final",
            winner="experts",
            author_key=11,
            author_name="Иван Сапего",
            unanswered_authors=[11],
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.3"


def test_4_11_4_and_4_11_5_year_final():
    award = award_to_expert(
        A2023["best_expert_of_year"],
        game_kind="year_final",
        winner="experts",
        recipient="Максим Поташев",
        team=TEAM,
        prize=BYN2000,
    )
    assert (award.kind, award.recipient, award.money, award.trophy, award.rule) == (
        "best_expert_of_year",
        "Максим Поташев",
        BYN2000,
        "big_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.4",
    )
    award = award_to_author(
        A2023["best_author_of_year"],
        game_kind="year_final",
        winner="viewers",
        author_key=3,
        author_name="А. Б.",
        unanswered_authors=[3],
        prize=BYN2000,
    )
    assert (award.kind, award.author_key, award.money, award.trophy, award.rule) == (
        "best_author_of_year",
        3,
        BYN2000,
        "big_crystal_owl",
        "000_90d7c8192601ed3a.txt §4.11.5",
    )
    with pytest.raises(PrizeRefused) as exc:
        award_to_author(
            A2023["best_author_of_year"],
            game_kind="year_final",
            winner="viewers",
            author_key=4,
            author_name="В. Г.",
            unanswered_authors=[3],
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.5"
    with pytest.raises(PrizeRefused) as exc:
        award_to_author(
            A2023["best_author_of_year"],
            game_kind="series_final",
            winner="viewers",
            author_key=3,
            author_name="А. Б.",
            unanswered_authors=[3],
            prize=BYN2000,
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.5"
    assert str(exc.value) == (
        "приз «Лучший автор вопроса финальной игры года» присуждается "
        "только в игре вида year_final, а эта игра — series_final"
    )


def test_4_11_6_special_game_200_to_each_expert():
    out = award_to_each_expert(
        A2023["special_game_expert"],
        game_kind="special",
        winner="viewers",
        team=TEAM + ["илья новиков", " "],
        prize=Money(Decimal("200.00"), "BYN"),
    )
    assert [(a.recipient, a.money.amount, a.money.currency, a.rule) for a in out] == [
        (name, Decimal("200.00"), "BYN", "000_90d7c8192601ed3a.txt §4.11.6") for name in TEAM
    ]
    with pytest.raises(PrizeRefused) as exc:
        award_to_each_expert(
            A2023["special_game_expert"],
            game_kind="qualifying",
            winner=None,
            team=TEAM,
            prize=Money(Decimal("200.00"), "BYN"),
        )
    assert exc.value.rule == "000_90d7c8192601ed3a.txt §4.11.6"


def test_2009_best_player_of_game_recorded_without_amount():
    award = award_to_expert(
        A2009["best_player_of_game"],
        game_kind="qualifying",
        winner="viewers",
        recipient="Александр Друзь",
        team=["Александр Друзь"],
        prize=None,
    )
    assert award == Award(
        "best_player_of_game",
        "Александр Друзь",
        None,
        None,
        None,
        "002_e025d5ded135c1c4.txt §3.1",
        (),
    )


def test_2009_crystal_and_diamond_owl():
    rub = Money(Decimal("300000.00"), "RUB")
    award = award_to_expert(
        A2009["best_player_of_series"],
        game_kind="series_final",
        winner="experts",
        recipient="Ровшан Аскеров",
        team=["Ровшан Аскеров"],
        prize=rub,
    )
    assert (award.money, award.trophy, award.rule) == (
        rub,
        "crystal_owl",
        "002_e025d5ded135c1c4.txt §3.2",
    )
    million = Money(Decimal("1000000.00"), "RUB")
    award = award_to_expert(
        A2009["best_player_of_year"],
        game_kind="year_final",
        winner="experts",
        recipient="Ровшан Аскеров",
        team=["Ровшан Аскеров"],
        prize=million,
    )
    assert (award.money, award.trophy, award.rule) == (
        million,
        "diamond_owl",
        "002_e025d5ded135c1c4.txt §3.3",
    )
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            A2009["best_player_of_year"],
            game_kind="year_final",
            winner="viewers",
            recipient="Ровшан Аскеров",
            team=["Ровшан Аскеров"],
            prize=million,
        )
    assert exc.value.rule == "002_e025d5ded135c1c4.txt §3.3"
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            A2009["best_player_of_series"],
            game_kind="series_final",
            winner="experts",
            recipient="Никто",
            team=["Ровшан Аскеров"],
            prize=rub,
        )
    assert exc.value.rule == "002_e025d5ded135c1c4.txt §3.2"


def test_missing_season_amount_is_refused():
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            A2023["best_participant_of_series"],
            game_kind="series_final",
            winner="experts",
            recipient=TEAM[0],
            team=TEAM,
            prize=None,
        )
    assert str(exc.value) == "у сезона не задана сумма приза «Лучший участник серии»"


def test_awards_available():
    assert [r.kind for r in awards_available(BOOKS["2023"], "series_final", "experts")] == [
        "best_participant_of_series"
    ]
    assert [r.kind for r in awards_available(BOOKS["2023"], "year_final", "viewers")] == [
        "best_author_of_year"
    ]
    assert [r.kind for r in awards_available(BOOKS["2023"], "special", "viewers")] == [
        "special_game_expert"
    ]
    assert [r.kind for r in awards_available(BOOKS["2009"], "series_final", "experts")] == [
        "best_player_of_game",
        "best_player_of_series",
    ]
    assert [r.kind for r in awards_available(BOOKS["2009"], "qualifying", "viewers")] == [
        "best_player_of_game"
    ]


def test_each_book_declares_its_prizes_and_the_amounts_they_pay():
    assert {name: list(b.awards) for name, b in BOOKS.items()} == {
        "2023": [
            "best_participant_of_series",
            "best_author_of_series",
            "best_expert_of_year",
            "best_author_of_year",
            "special_game_expert",
        ],
        "2009": ["best_player_of_game", "best_player_of_series", "best_player_of_year"],
    }
    assert {
        name: {k: (a.default, a.label("en")) for k, a in b.amounts.items()}
        for name, b in BOOKS.items()
    } == {
        "2023": {
            "series_final": (Decimal("2000.00"), "Series final prize (Small Crystal Owl)"),
            "year_final": (Decimal("2000.00"), "Year final prize (Big Crystal Owl)"),
            "special_game": (Decimal("200.00"), "Reward to each expert of a special game"),
        },
        "2009": {
            "series_final": (Decimal("300000.00"), "Best player of the series (Crystal Owl)"),
            "year_final": (Decimal("1000000.00"), "Best player of the year (Diamond Owl)"),
        },
    }
    assert (BOOKS["2023"].unanswered_prize, BOOKS["2009"].unanswered_prize) == (
        Decimal("300.00"),
        None,
    )
    # what differs between prizes is the rule's, never its kind's name
    assert [k for b in BOOKS.values() for k, r in b.awards.items() if r.decided_by_vote] == [
        "best_player_of_game"
    ]
    assert [k for b in BOOKS.values() for k, r in b.awards.items() if r.one_per_person] == [
        "special_game_expert"
    ]
    assert [trophy_label(k) for k in ("small_crystal_owl", "diamond_owl", None, "x")] == [
        "Малая Хрустальная Сова",
        "Бриллиантовая сова",
        "",
        "",
    ]
    assert award_label("best_player_of_year") == "Лучший игрок года"
    assert award_label("unknown") == "unknown"


def test_a_book_s_prizes_are_checked_when_declared():
    rule = BOOKS["2023"].awards["special_game_expert"]
    with pytest.raises(ValueError, match="prize kind 'special_game_expert' given twice"):
        awards_of(rule, rule)
    with pytest.raises(ValueError, match="unknown recipient 'jury' of prize 'x'"):
        replace(rule, kind="x", recipient="jury")
    with pytest.raises(PrizeRefused) as exc:
        award_to_expert(
            rule, game_kind="special", winner=None, recipient="И", team=["И"], prize=None
        )
    assert str(exc.value) == "приз «Вознаграждение участнику специальной игры» вручается не знатоку"
