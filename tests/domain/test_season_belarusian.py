"""The season's refusals in Belarusian: each rule book's package holds its season refusals in
Russian, Belarusian and English (``SeasonViolation.texts``), as it holds its game refusals
(``RuleSet.wording``), and ``season_refusal_text`` gives them with the clause as pages cite it.

Exact texts for one refusal of each book's own clauses and one of the shared engine, per book;
then every refusal the engine and the books can raise: statically (every ``refuse`` call, every
``SeasonViolation`` and every fault tuple of the engine and the books has its Belarusian text)
and by walking the stored golden replays and seeded random seasons of both books (each refusal
met has ru/be/en, the Belarusian one written in Belarusian letters)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from tests.domain.season_helpers import doc, final, q, series, withdraw
from tests.domain.season_play import Draw, legal_step, random_event, team_count
from webapp.domain.books import BOOKS, replay_season, season_refusal_text
from webapp.domain.rules import ProtocolError
from webapp.domain.season import KINDS, Season, SeasonViolation

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_replays.json").read_text("utf-8"))

TEAMS_2023 = ["Друзь", "Поташев", "Бялко", "Козлов", "Гришин", "Потапова"]
TEAMS_2009 = ["Друзь", "Поташев", "Бялко", "Козлов"]


def _refused(ruleset: str, teams: list[str], events: list[dict]) -> SeasonViolation:
    with pytest.raises(SeasonViolation) as info:
        replay_season(doc(ruleset, teams, events))
    return info.value


def _texts(error: SeasonViolation) -> dict[str, str]:
    return {lang: season_refusal_text(error, lang) for lang in ("ru", "be", "en")}


# --------------------------------------------------------------------------- 2023


def test_2023_out_of_turn_reads_in_belarusian_4_8() -> None:
    """The book's own clause (§4.8: the lowest place plays first)."""
    error = _refused("2023", TEAMS_2023, [series("spring", 5, "series_final"), q("Друзь", "6:1")])
    assert _texts(error) == {
        "ru": "«Друзь» играет не в свою очередь: 1-ю отборочную игру весенней серии играет "
        "«Гришин» (первой играет команда с последнего места рейтинга, последней — с первого) "
        "(п. 4.8 Правил сезона 2023 г.)",
        "be": "«Друзь» гуляе не ў сваю чаргу: 1-ю адборачную гульню вясновай серыі гуляе "
        "«Гришин» (першай гуляе каманда з апошняга месца рэйтынгу, апошняй — з першага) "
        "(п. 4.8 Правілаў сезона 2023 г.)",
        "en": "«Друзь» plays out of turn: qualifying game 1 of the spring series is «Гришин»'s "
        "(the team lowest in the rating plays first, the first place last) "
        "(clause 4.8 of the 2023 season rules)",
    }


def test_2023_withdrawal_after_playing_reads_in_belarusian_4_8_1() -> None:
    """The shared engine (withdrawals, cited as the book's §4.8.1)."""
    error = _refused(
        "2023",
        TEAMS_2023,
        [series("spring", 5, "series_final"), q("Гришин", "6:1"), withdraw("Гришин")],
    )
    assert error.be == "«Гришин» ужо гуляла ў вясновай серыі і адмовіцца ад яе больш не можа"
    assert season_refusal_text(error, "be") == (
        "«Гришин» ужо гуляла ў вясновай серыі і адмовіцца ад яе больш не можа "
        "(п. 4.8.1 Правілаў сезона 2023 г.)"
    )
    assert season_refusal_text(error, "ru") == (
        "«Гришин» уже играла в весенней серии и отказаться от неё больше не может "
        "(п. 4.8.1 Правил сезона 2023 г.)"
    )


# --------------------------------------------------------------------------- 2009


def test_2009_rematch_of_a_winner_reads_in_belarusian_2_10() -> None:
    """The book's own clause (§2.10: only the loser of a series final asks for a rematch)."""
    error = _refused(
        "2009",
        TEAMS_2009,
        [
            series("spring", 3, "series_final"),
            q("Бялко", "6:2"),
            q("Козлов", "3:6"),
            q("Поташев", "6:4"),
            final("Поташев", "6:3"),
            {"type": "rematch", "team": "Поташев", "granted": True},
        ],
    )
    assert _texts(error) == {
        "ru": "«Поташев» выиграла финал весенней серии: о Матче-реванше просит только "
        "проигравшая (п. 2.10 Правил сезона 2009 г.)",
        "be": "«Поташев» выйграла фінал вясновай серыі: пра Матч-рэванш просіць толькі "
        "каманда, якая прайграла (п. 2.10 Правілаў сезона 2009 г.)",
        "en": "«Поташев» won the spring series final: only its loser may ask for a rematch "
        "(clause 2.10 of the 2009 season rules)",
    }


def test_2009_series_out_of_order_reads_in_belarusian_2_5() -> None:
    """The shared engine (the order of the series, cited as the book's §2.5)."""
    error = _refused("2009", TEAMS_2009, [series("summer", 3, "series_final")])
    assert _texts(error) == {
        "ru": "летняя серия ещё не может открыться: сначала весенняя; порядок серий — "
        "весенняя, летняя, осенняя, зимняя (п. 2.5 Правил сезона 2009 г.)",
        "be": "летняя серыя яшчэ не можа адкрыцца: спачатку вясновая; парадак серый — "
        "вясновая, летняя, восеньская, зімовая (п. 2.5 Правілаў сезона 2009 г.)",
        "en": "the summer series cannot open yet: the spring series comes first (spring, "
        "summer, autumn, winter) (clause 2.5 of the 2009 season rules)",
    }


def test_a_language_without_a_text_reads_in_russian() -> None:
    """A refusal raised outside Sova's books may carry no Belarusian: it reads in Russian; an
    unknown language reads as Russian too."""
    error = SeasonViolation(0, "000_90d7c8192601ed3a.txt §4.4", "out", "выбыла")
    assert season_refusal_text(error, "be") == "выбыла (п. 4.4 Правил сезона 2023 г.)"
    assert season_refusal_text(error, "de") == "выбыла (п. 4.4 Правил сезона 2023 г.)"
    assert error.texts == {"ru": "выбыла", "be": None, "en": "out"}


# --------------------------------------------------------------------------- every refusal

SOURCES = [
    *sorted((ROOT / "webapp" / "domain" / "season").glob("*.py")),
    *sorted((ROOT / "webapp" / "domain" / "books").glob("*/season.py")),
]
#: The hooks returning a fault as ``(English, Russian, Belarusian)``.
FAULT_HOOKS = {"out_reason", "too_few", "shortage"}


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        == name
    ]


def test_every_refusal_in_the_code_carries_its_belarusian_text() -> None:
    """Statically: every ``refuse``/``refuse_for`` call of the engine and the books gives
    English, Russian and Belarusian, every ``SeasonViolation`` built there its five
    arguments, and every fault the hooks return is a triple."""
    seen = 0
    for path in SOURCES:
        tree = ast.parse(path.read_text("utf-8"))
        for name, size in (("refuse", 4), ("refuse_for", 4), ("SeasonViolation", 5)):
            for call in _calls(tree, name):
                if any(isinstance(a, ast.Starred) for a in call.args):
                    continue  # a fault triple, checked below
                seen += 1
                assert len(call.args) == size, f"{path.name}:{call.lineno} {name}"
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef) and func.name in FAULT_HOOKS:
                for ret in ast.walk(func):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                        assert len(ret.value.elts) == 3, f"{path.name}:{ret.lineno}"
    assert seen == 91  # the engine's and the two books' refusals (a new one adds to it)


RUSSIAN_ONLY = re.compile("[ищъ]", re.IGNORECASE)
QUOTED = re.compile("«[^»]*»")


def _check(error: SeasonViolation, met: dict[str, set[str]]) -> None:
    """ru/be/en all said; the Belarusian in Belarusian letters (no и, щ, ъ outside the team
    names in «»), not the Russian."""
    assert error.message and error.ru and error.be, (error.rule, error.message)
    assert error.be != error.ru, error.be
    assert not RUSSIAN_ONLY.search(QUOTED.sub("", error.be)), error.be
    met.setdefault(error.rule.split(" ", 1)[1], set()).add(error.be)


def test_every_refusal_met_in_the_golden_replays_has_ru_be_en() -> None:
    met: dict[str, set[str]] = {}
    for case in GOLDEN["seasons"]:
        try:
            replay_season(case["protocol"])
        except SeasonViolation as error:
            assert error.ru == case["replay"]["ru"]
            _check(error, met)
        except ProtocolError:
            pass
    assert sum(len(v) for v in met.values()) >= 20, sorted(met)


@pytest.mark.parametrize("ruleset", ["2023", "2009"])
def test_every_refusal_met_in_seeded_seasons_has_ru_be_en(ruleset: str) -> None:
    """Seeded legal seasons of each book, with every kind of game by every team checked and
    random events tried at each step: every refusal met has its three texts."""
    met: dict[str, set[str]] = {}
    for seed in range(12):
        data = Draw(seed=seed)
        size = team_count(data, BOOKS[ruleset].season)
        teams = [f"T{i}" for i in range(1, size + 1)]
        season = Season.start(BOOKS[ruleset], teams)
        events: list[dict] = []
        for _ in range(70):
            for kind in KINDS:
                for team in teams:
                    for decisive in (False, True):
                        try:
                            season.check_game(kind, team, decisive, index=len(events))
                        except SeasonViolation as error:
                            _check(error, met)
            for _ in range(3):
                try:
                    season.apply(random_event(data, teams), len(events))
                except SeasonViolation as error:
                    _check(error, met)
                except ProtocolError:
                    pass
                else:
                    break
            season.index = len(events) - 1
            if not legal_step(data, season, events):
                break
    assert len(met) >= 8, sorted(met)


def test_a_malformed_season_event_reads_in_belarusian_too() -> None:
    """A ProtocolError of the season's events (no clause) carries ru/be/en as well."""
    with pytest.raises(ProtocolError) as info:
        replay_season(doc("2023", TEAMS_2023, [{"type": "withdraw", "team": "Новая"}]))
    assert {lang: season_refusal_text(info.value, lang) for lang in ("ru", "be", "en")} == {
        "ru": "команды «Новая» нет в сезоне",
        "be": "каманды «Новая» няма ў сезоне",
        "en": "unknown team «Новая»",
    }


def test_every_protocol_error_of_the_season_with_russian_has_belarusian() -> None:
    """Statically: every ``ProtocolError`` of the season engine that gives its Russian gives
    its Belarusian."""
    seen = 0
    for path in SOURCES:
        for call in _calls(ast.parse(path.read_text("utf-8")), "ProtocolError"):
            words = {k.arg for k in call.keywords}
            if "ru" in words:
                seen += 1
                assert "be" in words, f"{path.name}:{call.lineno}"
    assert seen == 25
