"""`sova season replay` (shared/contracts/season-protocol.md): the state JSON with exit 0, the
refusal or the malformed-input error as JSON with exit 2; no configuration, no Flask app, no
file written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.webapp.season_replay import sova_season_replay
from webapp.domain.books import replay_season

DATA = Path(__file__).resolve().parent.parent / "domain" / "data"


@pytest.mark.parametrize("name", ["season_2023.json", "season_2009.json"])
def test_whole_season_replays_with_exit_0(name, tmp_path):
    code, state = sova_season_replay(DATA / name, tmp_path)
    assert code == 0
    document = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert state == replay_season(document).to_json()
    expected = {
        "season_2023.json": (["Антипов", "Мудрый", "Буян", "Королёва"], ["Буян", "Мудрый"]),
        "season_2009.json": (["МТС", "Козлов", "Поташев"], ["Козлов", "Поташев"]),
    }[name]
    assert (state["rating"], state["winter"]) == expected
    assert state["next"] is None


def test_refusal_prints_the_error_json_with_exit_2(tmp_path):
    document = json.loads((DATA / "season_2023.json").read_text(encoding="utf-8"))
    document["events"].insert(
        2, {"type": "game", "kind": "qualifying", "team": "Орлова", "score": "6:1"}
    )
    path = tmp_path / "season.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    code, output = sova_season_replay(path, tmp_path)
    assert code == 2
    assert output == {
        "error": {
            "event": 2,
            "rule": "000_90d7c8192601ed3a.txt §4.8",
            "message": "«Орлова» plays out of turn: qualifying game 2 of the spring series is "
            "«Потапова»'s (the team lowest in the rating plays first, the first place last)",
        }
    }


@pytest.mark.parametrize(
    ("content", "event", "message"),
    [
        ("{not json", None, "not JSON"),
        ("[" * 5000 + "]" * 5000, None, "not JSON: nested too deeply"),  # was a traceback
        (
            '{"format": "sova.game-protocol/1", "ruleset": "2023", "teams": ["A"], "events": []}',
            None,
            "format must be 'sova.season-protocol/1'",
        ),
        (
            '{"format": "sova.season-protocol/1", "ruleset": "2010", "teams": ["A"], "events": []}',
            None,
            "unknown ruleset '2010'",
        ),
        (
            '{"format": "sova.season-protocol/1", "ruleset": "2023", "teams": ["A"],'
            ' "events": [{"type": "party"}]}',
            0,
            "unknown event type 'party'",
        ),
        (
            '{"format": "sova.season-protocol/1", "ruleset": "2023", "teams": ["A","B","C","D","E"],'
            ' "events": [{"type": "series", "part": "spring", "qualifying": 5,'
            ' "closing": "series_final"}, {"type": "game", "kind": "qualifying", "team": "Z",'
            ' "score": "6:1"}]}',
            1,
            "unknown team «Z»",
        ),
        (
            '{"format": "sova.season-protocol/1", "ruleset": "2009", "teams": ["A"],'
            ' "events": [{"type": "game", "kind": "qualifying", "team": "A", "score": "13:1"}]}',
            0,
            'score must be "E:V" with 0..12 a side',
        ),
        (
            '{"format": "sova.season-protocol/1", "ruleset": "2009", "teams": ["A", "A"],'
            ' "events": []}',
            None,
            "teams names a team twice",
        ),
    ],
)
def test_malformed_input_is_an_error_json_with_exit_2(content, event, message, tmp_path):
    path = tmp_path / "season.json"
    path.write_text(content, encoding="utf-8")
    code, output = sova_season_replay(path, tmp_path)
    assert code == 2
    assert output["error"]["event"] == event
    assert output["error"]["rule"] is None
    assert output["error"]["message"].startswith(message), output


def test_amendment_replays_and_its_refusal_cites_4_12_1(tmp_path):
    """2023 §4.12.1: the amended points target holds from the next event on; an amendment of a
    parameter the 2009 book does not have is refused with exit 2."""
    document = {
        "format": "sova.season-protocol/1",
        "ruleset": "2023",
        "teams": ["Орлова", "Буян", "Стишенок", "Потапова", "Королёва"],
        "events": [
            {"type": "series", "part": "spring", "qualifying": 5, "closing": "series_final"},
            {"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"},
            {"type": "amend", "set": {"points_to_win": 7}, "note": "объявил ведущий"},
            {"type": "game", "kind": "qualifying", "team": "Потапова", "score": "7:3"},
        ],
    }
    path = tmp_path / "season.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    code, state = sova_season_replay(path, tmp_path)
    assert code == 0
    assert state["rating"] == ["Потапова", "Королёва", "Орлова", "Буян", "Стишенок"]
    assert state["rules"]["points_to_win"] == 7
    assert state["amendments"] == [
        {"event": 2, "set": {"points_to_win": 7}, "note": "объявил ведущий"}
    ]
    document["ruleset"] = "2009"
    document["events"][0]["qualifying"] = 3
    document["events"][2]["set"] = {"losses_to_out": 3}
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    code, output = sova_season_replay(path, tmp_path)
    assert code == 2
    assert output == {
        "error": {
            "event": 2,
            "rule": "000_90d7c8192601ed3a.txt §4.12.1",
            "message": "the amendment is refused: the 2009 rule book has no losses_to_out: "
            "it cannot be amended",
        }
    }
