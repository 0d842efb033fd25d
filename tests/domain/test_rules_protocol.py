"""The protocol file ``sova.game-protocol/1`` and malformed input (ProtocolError)."""

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.rules import (
    FORMAT,
    ProtocolError,
    RuleViolation,
    allowed_actions,
    load_protocol,
    replay,
)

TABLE = {"blitz": 7, "superblitz": 10, "sector13": 13}
GOOD = {
    "format": "sova.game-protocol/1",
    "ruleset": "2023",
    "table": TABLE,
    "context": {"series_best": "6:1", "sector13_options_used": ["one"]},
    "events": [{"type": "spin", "sector": 3}, {"type": "answer", "correct": False}],
}


def test_load_protocol_returns_what_replay_takes():
    book, table, context, events = load_protocol(GOOD, BOOKS)
    assert FORMAT == GOOD["format"]
    assert (book, table, context, events) == (BOOKS["2023"], TABLE, GOOD["context"], GOOD["events"])
    assert replay(book, table, context, events)["score"] == "0:1"


def test_load_protocol_fills_the_table_and_context_is_optional():
    data = {**GOOD, "table": {"blitz": 2}}
    del data["context"]
    ruleset, table, context, events = load_protocol(data, BOOKS)
    assert table == {"blitz": 2, "superblitz": None, "sector13": None}
    assert context is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"format": "sova.game-protocol/2"}, "format"),
        ({"ruleset": "2024"}, "ruleset"),
        ({"ruleset": 2023}, "ruleset"),
        ({"table": [7, 10, 13]}, "table"),
        ({"table": {"blitz": 7, "superblitz": 7, "sector13": None}}, "distinct"),
        ({"table": {"blitz": 14}}, "1..13"),
        ({"table": {"blitz": 0}}, "1..13"),
        ({"table": {"blitz": True}}, "table.blitz"),
        ({"table": {"blitz": "7"}}, "table.blitz"),
        ({"table": {"blitz": 7, "triple": 3}}, "unknown"),
        ({"context": {"series_best": "6-1"}}, "series_best"),
        ({"context": {"series_best": "13:1"}}, "series_best"),
        ({"context": {"sector13_options_used": ["two"]}}, "sector13_options_used"),
        ({"context": {"sector13_options_used": "one"}}, "sector13_options_used"),
        ({"context": {"sector13_options_used": ["one", "one"]}}, "repeats"),
        ({"context": "6:1"}, "context"),
        ({"events": {"type": "spin"}}, "events"),
    ],
)
def test_malformed_protocol(change, words):
    with pytest.raises(ProtocolError) as info:
        load_protocol({**GOOD, **change}, BOOKS)
    assert words in str(info.value)
    assert info.value.to_json()["error"]["rule"] is None


def test_missing_keys():
    for key in ("ruleset", "table", "events"):
        data = dict(GOOD)
        del data[key]
        with pytest.raises(ProtocolError, match=key):
            load_protocol(data, BOOKS)
    with pytest.raises(ProtocolError):
        load_protocol([GOOD], BOOKS)


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"type": "jump"}, "неизвестный тип события 'jump'"),
        ({"sector": 3}, "неизвестный тип события None"),
        ("spin", "событие — объект JSON, получено str"),
        ({"type": "spin"}, "sector"),
        ({"type": "spin", "sector": 3.0}, "spin.sector"),
        ({"type": "spin", "sector": True}, "spin.sector"),
        ({"type": "answer"}, "correct"),
        ({"type": "answer", "correct": "yes"}, "answer.correct"),
        ({"type": "answer", "correct": 1}, "answer.correct"),
        ({"type": "answer", "correct": True, "early": "no"}, "answer.early"),
        ({"type": "answer", "correct": True, "expert": 5}, "answer.expert"),
        ({"type": "answer", "correct": True, "expert": " "}, "expert"),
        ({"type": "sector13_option"}, "option"),
        ({"type": "sector13_option", "option": "two"}, "option"),
        ({"type": "minute"}, "событию minute нужно поле «action»"),
        ({"type": "minute", "action": "pause"}, "minute.action — одно из: start, stop"),
        ({"type": "minute", "action": "start", "at": "20:00"}, "minute.at — время ISO 8601"),
        ({"type": "minute", "action": "stop", "at": "2026-12-05T20:00:00"}, "со смещением"),
        ({"type": "minute", "action": "stop", "at": 1733428800}, "minute.at: нужен тип str"),
    ],
)
def test_malformed_event(event, words):
    events = [{"type": "spin", "sector": 3}, event]
    with pytest.raises(ProtocolError) as info:
        replay(BOOKS["2023"], TABLE, None, events)
    assert words in str(info.value)
    assert info.value.event_index == 1
    assert info.value.to_json() == {
        "error": {"event": 1, "rule": None, "message": info.value.message}
    }


def test_malformed_events_are_found_before_rules_are_applied():
    """A malformed event anywhere is a ProtocolError even after a refused one."""
    events = [{"type": "answer", "correct": True}, {"type": "jump"}]
    with pytest.raises(ProtocolError):
        replay(BOOKS["2023"], TABLE, None, events)


def test_protocol_error_is_a_value_error():
    with pytest.raises(ValueError):
        load_protocol({**GOOD, "ruleset": "1999"}, BOOKS)


def test_unknown_event_fields_are_ignored():
    events = [{"type": "spin", "sector": 3, "at": "2023-05-01T20:00:00Z"}]
    assert replay(BOOKS["2023"], TABLE, None, events)["rounds"][0]["sector"] == 3


def test_early_defaults_to_false_and_may_be_null():
    events = [{"type": "spin", "sector": 3}, {"type": "answer", "correct": True, "early": None}]
    assert replay(BOOKS["2023"], TABLE, None, events)["rounds"][0]["questions"][0]["early"] is False


def test_rule_violation_json():
    error = RuleViolation(5, "000_90d7c8192601ed3a.txt §3.7.1", "club help only while behind")
    assert error.to_json() == {
        "error": {
            "event": 5,
            "rule": "000_90d7c8192601ed3a.txt §3.7.1",
            "message": "club help only while behind",
        }
    }


MINUTE = [
    {"type": "minute", "action": "start", "at": "2026-12-05T20:00:00+03:00"},
    {"type": "minute", "action": "stop", "at": "2026-12-05T20:01:00+03:00"},
]


def test_minute_taps_change_nothing_the_rules_derive_and_are_never_refused():
    """The contract's ``minute`` (the host's taps): the rules ignore it, before the first
    spin, inside a round, between rounds and after the game is over alike."""
    to_six = [
        ev
        for sector in (1, 2, 3, 4, 5, 6)
        for ev in ({"type": "spin", "sector": sector}, {"type": "answer", "correct": True})
    ]
    plain = replay(BOOKS["2023"], TABLE, None, to_six)
    tapped = [MINUTE[0], to_six[0], *MINUTE, *to_six[1:], MINUTE[0]]
    assert plain["finished"] is True and plain["score"] == "6:0"
    assert replay(BOOKS["2023"], TABLE, None, tapped) == plain
    assert replay(BOOKS["2009"], TABLE, None, [to_six[0], MINUTE[0], to_six[1], MINUTE[1]]) == (
        replay(BOOKS["2009"], TABLE, None, to_six[:2])
    )
    assert allowed_actions(BOOKS["2023"], TABLE, None, [to_six[0], MINUTE[0]]) == allowed_actions(
        BOOKS["2023"], TABLE, None, [to_six[0]]
    )
