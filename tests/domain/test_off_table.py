"""2023 §3.7.3: an expert of a season team who hinted (a red card naming him) starts his
team's next game off the table and returns only after a right answer (any question)."""

from __future__ import annotations

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.rules import ProtocolError, RuleViolation, replay

TABLE = {"blitz": None, "superblitz": None, "sector13": None}
R23 = "000_90d7c8192601ed3a.txt"


def test_expert_off_the_table_may_not_answer_until_a_right_answer():
    ctx = {"series_best": None, "off_table": ["Вера"]}
    events = [{"type": "spin", "sector": 1}]
    with pytest.raises(RuleViolation) as exc:
        replay(
            BOOKS["2023"],
            TABLE,
            ctx,
            events + [{"type": "answer", "correct": True, "expert": "Вера"}],
        )
    assert (exc.value.event_index, exc.value.rule) == (1, f"{R23} §3.7.3")
    # a wrong answer by another expert: Вера is still off
    events += [
        {"type": "answer", "correct": False, "expert": "Глеб"},
        {"type": "spin", "sector": 2},
    ]
    state = replay(BOOKS["2023"], TABLE, ctx, events)
    assert state["off_table"] == ["Вера"]
    with pytest.raises(RuleViolation):
        replay(
            BOOKS["2023"],
            TABLE,
            ctx,
            events + [{"type": "answer", "correct": False, "expert": "Вера"}],
        )
    # the team's right answer brings her back
    events += [
        {"type": "answer", "correct": True, "expert": "Глеб"},
        {"type": "spin", "sector": 3},
        {"type": "answer", "correct": True, "expert": "Вера"},
    ]
    state = replay(BOOKS["2023"], TABLE, ctx, events)
    assert state["off_table"] == [] and state["score"] == "2:1"


def test_red_card_names_the_hinter_and_the_2009_book_has_no_such_clause():
    events = [
        {"type": "spin", "sector": 1},
        {"type": "red_card", "expert": "Вера"},
        {"type": "spin", "sector": 2},
        {"type": "red_card", "expert": "Пётр", "team": "Гости"},
    ]
    state = replay(BOOKS["2023"], TABLE, None, events)
    assert state["red_cards"] == [
        {"expert": "Вера", "team": None},
        {"expert": "Пётр", "team": "Гости"},
    ]
    assert state["score"] == "0:2" and "off_table" not in state
    # without names the output is the contract's, unchanged
    assert "red_cards" not in replay(
        BOOKS["2023"], TABLE, None, [{"type": "spin", "sector": 1}, {"type": "red_card"}]
    )
    # 2009: no §3.7.3, the context's list is not a refusal
    state = replay(
        BOOKS["2009"],
        {"blitz": None, "superblitz": None, "sector13": 13},
        {"off_table": ["Вера"]},
        [{"type": "spin", "sector": 1}, {"type": "answer", "correct": True, "expert": "Вера"}],
    )
    assert state["score"] == "1:0"
    with pytest.raises(ProtocolError):
        replay(BOOKS["2023"], TABLE, {"off_table": "Вера"}, [])
