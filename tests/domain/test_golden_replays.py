"""Stored replays give the same output, byte for byte: ``data/golden_replays.json`` holds game
protocols of both books (legal games, refused events of every kind, amended rules) and season
protocols (played seasons and refused events) with what replaying them printed, each game
refusal's code, params and wording in ru/be/en, and ``sova rules show`` of each book. Moving
a rule from one module to another must leave all of it unchanged; a change of behaviour
shows here as a difference to review, not as a silent drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webapp.domain.books import BOOKS, refusal_text, replay_season
from webapp.domain.rules import (
    ProtocolError,
    RuleViolation,
    load_protocol,
    load_protocol_rules,
    replay,
)
from webapp.domain.rules.parameters import describe

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_replays.json").read_text("utf-8"))


def _game(protocol: dict[str, Any]) -> dict[str, Any]:
    try:
        rules = load_protocol_rules(protocol, BOOKS)
        return {"state": replay(*load_protocol(protocol, BOOKS), rules=rules)}
    except RuleViolation as exc:
        return {
            "error": exc.to_json(),
            "code": exc.code,
            "params": exc.params,
            "text": {lang: refusal_text(exc, lang) for lang in ("ru", "be", "en")},
        }
    except ProtocolError as exc:
        return {"error": exc.to_json()}


def _season(protocol: dict[str, Any]) -> dict[str, Any]:
    try:
        return {"state": replay_season(protocol).to_json()}
    except (RuleViolation, ProtocolError) as exc:
        out: dict[str, Any] = {"error": exc.to_json()}
        if isinstance(exc, RuleViolation):
            out.update(code=exc.code, params=exc.params)
        if hasattr(exc, "ru"):
            out["ru"] = exc.ru
        return out


def _same(got: Any, stored: Any) -> bool:
    """Equal as the files print them (JSON text, keys sorted): ``1`` is not ``True``."""
    as_text = {"ensure_ascii": False, "sort_keys": True}
    return json.dumps(got, **as_text) == json.dumps(stored, **as_text)


def test_the_store_covers_both_books_and_many_refusals() -> None:
    games = GOLDEN["games"]
    assert {g["protocol"]["ruleset"] for g in games} == {"2023", "2009"}
    assert len({g["replay"].get("code") for g in games}) >= 25
    assert sum("state" in g["replay"] and g["replay"]["state"]["finished"] for g in games) >= 20
    assert sum("error" in s["replay"] for s in GOLDEN["seasons"]) >= 10


@pytest.mark.parametrize("name", ["2023", "2009"])
def test_rules_show_is_unchanged(name: str) -> None:
    assert _same(describe(BOOKS[name]), GOLDEN["rules_show"][name])


def test_every_stored_game_replays_as_stored() -> None:
    changed = [
        i for i, g in enumerate(GOLDEN["games"]) if not _same(_game(g["protocol"]), g["replay"])
    ]
    assert changed == []


def test_every_stored_season_replays_as_stored() -> None:
    changed = [
        i for i, s in enumerate(GOLDEN["seasons"]) if not _same(_season(s["protocol"]), s["replay"])
    ]
    assert changed == []
