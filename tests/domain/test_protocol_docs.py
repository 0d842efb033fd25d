"""docs/protocols.md describes both protocol formats for a clone without ../shared;
its examples are real: every ``<!-- example: X-in -->`` file replays to its
``X-out`` state or refusal, through the same code as ``sova game replay`` /
``sova season replay``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from webapp.domain.books import BOOKS, replay_season
from webapp.domain.rules import (
    ProtocolError,
    RuleViolation,
    load_protocol,
    load_protocol_rules,
    replay,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols.md"
_EXAMPLE = re.compile(r"<!-- example: ([\w-]+) -->\n```json\n(.*?)\n```", re.DOTALL)


def examples() -> dict[str, object]:
    return {name: json.loads(body) for name, body in _EXAMPLE.findall(DOC.read_text("utf-8"))}


def run(data: dict) -> dict:
    """What the replay command prints for ``data`` (state or ``{"error": …}``)."""
    try:
        if data["format"] == "sova.game-protocol/1":
            return replay(*load_protocol(data, BOOKS), rules=load_protocol_rules(data, BOOKS))
        return replay_season(data).to_json()
    except (RuleViolation, ProtocolError) as exc:
        return exc.to_json()


def test_the_doc_has_both_formats_and_is_linked() -> None:
    text = DOC.read_text("utf-8")
    for name in ("sova.game-protocol/1", "sova.season-protocol/1"):
        assert f"`{name}`" in text
    for event in ("spin", "sector13_option", "decisive_round", "extra_minute", "club_help",
                  "credit_minute", "answer", "red_card", "series", "game", "withdraw",
                  "rematch", "decline_winter", "enter", "amend"):  # fmt: skip
        assert f"| `{event}` |" in text, event
    root = DOC.parents[1]
    assert "docs/protocols.md" in (root / "README.md").read_text("utf-8")
    assert "(protocols.md)" in (root / "docs" / "rules.md").read_text("utf-8")


@pytest.mark.parametrize("name", ["game", "game-empty13", "season", "season-refusal"])
def test_every_example_replays_to_what_the_doc_shows(name: str) -> None:
    found = examples()
    assert run(found[f"{name}-in"]) == found[f"{name}-out"]
