"""Builders of ``sova.season-protocol/1`` documents for the season tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webapp.domain.books import replay_season
from webapp.domain.rules import ProtocolError
from webapp.domain.season import FORMAT, SeasonViolation

DATA = Path(__file__).parent / "data"
R23 = "000_90d7c8192601ed3a.txt"
R09 = "002_e025d5ded135c1c4.txt"


def doc(ruleset: str, teams: list[str], events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": FORMAT, "ruleset": ruleset, "teams": teams, "events": events}


def series(part: str, qualifying: int, closing: str, teams: list[str] | None = None) -> dict:
    event = {"type": "series", "part": part, "qualifying": qualifying, "closing": closing}
    if teams is not None:
        event["teams"] = teams
    return event


def game(kind: str, team: str, score: str, decisive: bool = False) -> dict:
    event = {"type": "game", "kind": kind, "team": team, "score": score}
    if decisive:
        event["decisive_round"] = True
    return event


def q(team: str, score: str, decisive: bool = False) -> dict:
    return game("qualifying", team, score, decisive)


def final(team: str, score: str) -> dict:
    return game("series_final", team, score)


def withdraw(team: str) -> dict:
    return {"type": "withdraw", "team": team}


def enter(team: str, as_: str) -> dict:
    return {"type": "enter", "team": team, "as": as_}


def state(ruleset: str, teams: list[str], events: list[dict]) -> dict[str, Any]:
    return replay_season(doc(ruleset, teams, events)).to_json()


def refusal(ruleset: str, teams: list[str], events: list[dict]) -> tuple[int, str, str]:
    """``(event, rule, message)`` of the refusal; fails the test when there is none."""
    with pytest.raises(SeasonViolation) as info:
        replay_season(doc(ruleset, teams, events))
    error = info.value.to_json()["error"]
    return error["event"], error["rule"], error["message"]


def malformed(document: Any) -> dict[str, Any]:
    with pytest.raises(ProtocolError) as info:
        replay_season(document)
    return info.value.to_json()["error"]


def load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))
