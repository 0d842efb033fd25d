"""The game engine's refusals in the people's words (``webapp.domain.rules.refusals`` and each book's own wording): every
code the engine can raise has its sentence in Russian, Belarusian and English, with the
placeholders its raiser fills; a real refusal reads as a person reads it, while the English
``message`` and the error JSON of ``sova game replay`` stay as the contract shows."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from webapp.domain.books import BOOKS, refusal_text
from webapp.domain.rules import RuleViolation, replay
from webapp.domain.rules.refusals import LANGUAGES, TERM_PARAMS, TERMS, WORDING

RULES = Path(__file__).resolve().parents[2] / "webapp" / "domain" / "rules"
TABLE = {"blitz": 4, "superblitz": None, "sector13": 13}


def _raised_codes() -> dict[str, set[str]]:
    """``{code: names of the params its raisers pass}``, read from the engine's source: every
    ``self._refuse(topic, "code", message, **params)`` of ``game.py`` and every
    ``RuleViolation(index, rule, message, "code", {params})`` of ``table.py``."""
    found: dict[str, set[str]] = {}
    calls = 0
    for name in ("game.py", "table.py"):
        for node in ast.walk(ast.parse((RULES / name).read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if callee == "_refuse":
                code, params = node.args[1], {k.arg for k in node.keywords}
            elif callee == "RuleViolation" and name == "table.py":  # game.py: in _refuse
                code = node.args[3]
                keys = node.args[4].keys if isinstance(node.args[4], ast.Dict) else []
                params = {k.value for k in keys if isinstance(k, ast.Constant)}
            else:
                continue
            calls += 1
            assert isinstance(code, ast.Constant), f"{name}:{node.lineno}: a literal code"
            found.setdefault(code.value, set()).update(params)
    assert calls >= 45  # every refusal of the engine, none skipped
    return found


def test_every_code_the_engine_raises_is_worded_in_three_languages() -> None:
    """A code is worded once: in the shared wording, or in the one book that raises it."""
    raised = _raised_codes()
    own = [set(b.rules.wording) for b in BOOKS.values()]
    assert not set(WORDING) & set().union(*own)  # a book's own code is not also shared
    assert not set.intersection(*own)  # nor worded by two books
    wording = {**WORDING, **{c: w for b in BOOKS.values() for c, w in b.rules.wording.items()}}
    assert set(raised) == set(wording)  # no code without wording, no wording never raised
    for code, params in raised.items():
        assert set(wording[code]) == set(LANGUAGES), code
        placeholders = {
            lang: {f for _, f, _, _ in string.Formatter().parse(wording[code][lang]) if f}
            for lang in LANGUAGES
        }
        assert placeholders["ru"] == placeholders["be"] == placeholders["en"], code
        assert placeholders["ru"] <= params, code
        for lang in LANGUAGES:
            assert wording[code][lang].strip() and "  " not in wording[code][lang], code


def test_every_term_is_worded_in_three_languages() -> None:
    assert set(TERMS) == set(LANGUAGES)
    assert set(TERMS["ru"]) == set(TERMS["be"]) == set(TERMS["en"])
    assert {"kind", "aid", "option", "winner"} <= TERM_PARAMS


def _refusal(ruleset: str, events: list[dict], context: dict | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS[ruleset], TABLE, context, events)
    return info.value


def test_club_help_at_a_draw_reads_in_each_language_and_prints_as_before() -> None:
    exc = _refusal("2023", [{"type": "spin", "sector": 1}, {"type": "club_help"}])
    assert (exc.code, exc.params) == ("club_help_not_behind", {"score": "0:0"})
    assert refusal_text(exc) == (
        "Помощь клуба — только когда знатоки проигрывают (счёт 0:0). "
        "(п. 3.7.1 Правил сезона 2023 г.)"
    )
    assert refusal_text(exc, "be") == (
        "Дапамога клуба — толькі калі знаўцы прайграюць (лік 0:0). "
        "(п. 3.7.1 Правілаў сезона 2023 г.)"
    )
    assert refusal_text(exc, "en") == (
        "Club help only while the experts are behind (score 0:0). "
        "(clause 3.7.1 of the 2023 season rules)"
    )
    assert refusal_text(exc, "de") == refusal_text(exc, "ru")  # another language: Russian
    # the contract's error JSON and the exception's text are what they were
    assert exc.to_json() == {
        "error": {
            "event": 1,
            "rule": "000_90d7c8192601ed3a.txt §3.7.1",
            "message": "club help only while the experts are behind (score 0:0)",
        }
    }
    assert str(exc) == (
        "event 1: club help only while the experts are behind (score 0:0) "
        "(000_90d7c8192601ed3a.txt §3.7.1)"
    )


def test_terms_and_lists_read_in_the_readers_words() -> None:
    exc = _refusal(
        "2023",
        [{"type": "spin", "sector": 13}, {"type": "sector13_option", "option": "six"}],
        {"series_best": None, "sector13_options_used": ["six"]},
    )
    assert (exc.code, exc.params) == (
        "sector13_option_used",
        {"option": "six", "others": ["three", "one"], "available": ["three", "one"]},
    )
    assert exc.message == (
        "option 'six' was used already; it returns only after three and one (available: three, one)"
    )
    assert refusal_text(exc) == (
        "Вариант «шестеро» уже сыгран: он вернётся после вариантов «трое», «один знаток». "
        "Сейчас можно: «трое», «один знаток». (п. 3.4.3 Правил сезона 2023 г.)"
    )
    assert refusal_text(exc, "be") == (
        "Варыянт «шасцёра» ужо сыграны: ён вернецца пасля варыянтаў «трое», «адзін знаўца». "
        "Цяпер можна: «трое», «адзін знаўца». (п. 3.4.3 Правілаў сезона 2023 г.)"
    )
    blitz = _refusal(
        "2009",
        [
            {"type": "spin", "sector": 4},
            {"type": "answer", "correct": True},
            {"type": "spin", "sector": 1},
        ],
    )
    assert (blitz.code, blitz.params) == (
        "multi_in_play",
        {"action": "spin", "kind": "blitz", "sector": 4, "answered": 1},
    )
    assert refusal_text(blitz) == (
        "Идёт блиц в секторе 4 (отвечено 1 из 3): волчок — только после него. "
        "(п. 1.4.3 Правил сезона 2009 г.)"
    )
    assert refusal_text(blitz, "en") == (
        "The blitz in sector 4 is in play (1 of 3 questions answered): the spin only after "
        "it. (clause 1.4.3 of the 2009 season rules)"
    )


def test_a_sentence_that_starts_with_a_term_is_capitalised() -> None:
    exc = _refusal(
        "2023",
        [
            {"type": "spin", "sector": 4},
            {"type": "answer", "correct": False},
            {"type": "extra_minute"},
        ],
    )
    assert exc.code == "multi_lost"
    assert refusal_text(exc) == (
        "Блиц уже проигран (нужны были три верных ответа): дополнительная минута теперь не "
        "берётся. (п. 3.4.1 Правил сезона 2023 г.)"
    )
    assert exc.message == "no extra minute: the blitz is already lost (all three must be right)"


def test_a_table_plan_refusal_has_its_code() -> None:
    with pytest.raises(RuleViolation) as info:
        replay(BOOKS["2009"], {"blitz": 13, "superblitz": None, "sector13": None}, None, [])
    exc = info.value
    assert (exc.event_index, exc.code, exc.params) == (None, "plan_multi_on_13", {"kind": "blitz"})
    assert refusal_text(exc) == (
        "Блиц — один из двенадцати секторов с письмами, не 13-й. (п. 1.4.3 Правил сезона 2009 г.)"
    )


def test_a_refusal_without_a_code_reads_as_its_message() -> None:
    exc = RuleViolation(2, "002_e025d5ded135c1c4.txt §2.4", "the team is not in the series")
    assert (exc.code, exc.params) == (None, {})
    assert refusal_text(exc, "en") == (
        "the team is not in the series (clause 2.4 of the 2009 season rules)"
    )
