"""``sova game replay`` and ``sova season replay``: a protocol in, its state out; ``sova rules
show``: the amendable parameters of a rule set. No app, no configuration, nothing written."""

from __future__ import annotations

import json
import sys

import click


@click.group("game")
def game():
    """Games."""


def _replay(protocol, replay) -> None:
    """Shared body of the replay commands: read ``protocol`` as JSON, print
    ``replay(data)`` (a JSON-ready state) and exit 0, or print the refusal's error JSON
    (``{"error": {"event", "rule", "message"}}``; a file that is not JSON has
    ``event``/``rule`` null) and exit 2. Reads no configuration, writes no file."""
    from webapp.domain.rules import ProtocolError, RuleViolation

    try:
        data = json.load(protocol)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: ~1 000 nested arrays, the decoder's limit (was a traceback)
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        error = {"event": None, "rule": None, "message": f"not JSON: {why}"}
        click.echo(json.dumps({"error": error}, ensure_ascii=False))
        sys.exit(2)
    try:
        state = replay(data)
    except (RuleViolation, ProtocolError) as exc:
        click.echo(json.dumps(exc.to_json(), ensure_ascii=False))
        sys.exit(2)
    click.echo(json.dumps(state, ensure_ascii=False, indent=2))


@game.command("replay")
@click.argument("protocol", type=click.File("r", encoding="utf-8"))
def game_replay(protocol):
    """Replay a ``sova.game-protocol/1`` file: the state as JSON (exit 0), or the refusal
    as JSON (exit 2). Needs no database."""
    from webapp.domain.books import BOOKS
    from webapp.domain.rules import load_protocol, load_protocol_rules, replay

    _replay(
        protocol,
        lambda data: replay(*load_protocol(data, BOOKS), rules=load_protocol_rules(data, BOOKS)),
    )


@click.group("season")
def season():
    """Seasons."""


@season.command("replay")
@click.argument("protocol", type=click.File("r", encoding="utf-8"))
def season_replay(protocol):
    """Replay a ``sova.season-protocol/1`` file: the state as JSON (exit 0), or the refusal
    as JSON (exit 2). Needs no database; reads no configuration."""
    from webapp.domain.books import replay_season

    _replay(protocol, lambda data: replay_season(data).to_json())


@click.group("rules")
def rules():
    """The rule sets' amendable parameters (2023 §4.12.1)."""


@rules.command("show")
@click.argument("ruleset")
def rules_show(ruleset):
    """Print RULESET's (``2023`` or ``2009``) amendable parameters as JSON: name, type, range
    ``[low, high]``, default, clause (``shared/contracts/season-protocol.md``, "Amendable
    parameters"); an unknown rule set: message on stderr, exit 2. Needs no database."""
    from webapp.cli import fail
    from webapp.domain.books import BOOKS
    from webapp.domain.rules.parameters import describe

    if ruleset not in BOOKS:
        fail(f"unknown ruleset {ruleset!r}; expected one of {', '.join(sorted(BOOKS))}")
    table = describe(BOOKS[ruleset])
    click.echo(json.dumps(table, ensure_ascii=False, indent=2))
