"""The ``sova`` console script imports a command's module only when that command runs
(``webapp.cli.LazyGroup``): ``sova season replay``, ``sova game replay`` and ``sova --help``
import neither the features, the models, SQLAlchemy, Flask-Migrate nor Flask (≈ 1.2 CPU s
per start before, ≈ 0.07 after), and ``sova --help`` lists the same commands with the same
one-line helps as the commands themselves give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webapp.cli import COMMANDS, import_command
from webapp.cli_entry import FLASK_COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
SEASON = ROOT / "tests" / "domain" / "data" / "season_2023.json"
GAME = {
    "format": "sova.game-protocol/1",
    "ruleset": "2023",
    "table": {"blitz": 7, "superblitz": None, "sector13": 13},
    "events": [{"type": "spin", "sector": 13}],
}

#: The only parts of Sova those three commands may import, besides ``webapp.domain.*``.
LIGHT = {
    "webapp",
    "webapp.cli",
    "webapp.cli_entry",
    "webapp.cli.replay",
    "webapp.core",  # an empty package
    "webapp.core.refusal",  # fail(): click and sys only
    "webapp.domain",
}
#: Third-party packages they must not import.
HEAVY = ("flask_migrate", "alembic", "sqlalchemy", "flask_sqlalchemy", "celery")

PROBE = """
import json, sys
from webapp.cli_entry import cli
codes = []
for args in json.loads(sys.argv[1]):
    try:
        cli.main(args, prog_name="sova")
    except SystemExit as exc:
        codes.append(exc.code)
print(json.dumps({"codes": codes, "modules": sorted(sys.modules)}))
"""


def test_replays_and_help_import_no_feature_model_or_migrations(tmp_path):
    """In one fresh process (so the modules are the union of the three commands')."""
    game = tmp_path / "game.json"
    game.write_text(json.dumps(GAME), encoding="utf-8")
    commands = [["--help"], ["season", "replay", str(SEASON)], ["game", "replay", str(game)]]
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(commands)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    probe = json.loads(run.stdout.splitlines()[-1])
    assert probe["codes"] == [0, 0, 0], run.stdout
    ours = {m for m in probe["modules"] if m == "webapp" or m.startswith("webapp.")}
    assert {m for m in ours if m not in LIGHT and not m.startswith("webapp.domain.")} == set()
    assert {m for m in ours if m.startswith("webapp.domain.")} and "webapp.cli.replay" in ours
    assert [m for m in probe["modules"] if m.split(".")[0] in HEAVY] == []


def test_each_lazy_command_is_the_named_command_with_the_listed_help():
    assert cli.lazy_subcommands == {**COMMANDS, **FLASK_COMMANDS}
    for name, (import_path, listed) in cli.lazy_subcommands.items():
        command = import_command(import_path)
        assert command.name == name, import_path
        assert not command.hidden and not command.deprecated, name
        # the first sentence of its help: what click shortens to the terminal's width
        assert command.get_short_help_str(10**6) == listed, name


def eager_sova() -> click.Group:
    """The ``sova`` group as it was before lazy loading: every command imported and added."""
    group = click.Group(
        "sova", callback=cli.callback, help=cli.help, context_settings=cli.context_settings
    )
    for name, (import_path, _listed) in cli.lazy_subcommands.items():
        group.add_command(import_command(import_path), name)
    return group


@pytest.mark.parametrize("width", [50, 63, 78, 120, 400])
def test_help_is_the_eager_groups_at_any_width(width):
    """A terminal gives click 50..78 columns; wider ones show the listed sentences whole.
    (Only a width under 46, which click never takes from a terminal, would shorten the
    stand-ins of ``shell`` and ``routes``, whose one-line help is a ``short_help``.)"""
    runner = CliRunner()
    lazy = runner.invoke(cli, ["--help"], prog_name="sova", terminal_width=width)
    eager = runner.invoke(eager_sova(), ["--help"], prog_name="sova", terminal_width=width)
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.output == eager.output
    assert "  worker " in lazy.output


@pytest.mark.parametrize("args", [["seasn"], ["kyes", "rotate"], ["nosuch"], []])
def test_unknown_or_missing_command_reads_as_the_eager_groups(args):
    runner = CliRunner()
    lazy = runner.invoke(cli, args, prog_name="sova")
    eager = runner.invoke(eager_sova(), args, prog_name="sova")
    assert (lazy.exit_code, lazy.output) == (eager.exit_code, eager.output)


@pytest.mark.parametrize(
    "args",
    [
        ["outbox", "status"],
        ["import", "--as", "archive", str(ROOT / "webapp" / "submissions" / "sample_packet.4s")],
    ],
    ids=["outbox-status", "import"],
)
@pytest.mark.slow
def test_a_command_on_a_database_without_tables_says_to_upgrade(tmp_path, args):
    """``sova outbox status`` or ``sova import`` on a fresh instance (no ``sova db upgrade``
    yet) says so in one line and exits 2, not with SQLAlchemy's traceback or raw error."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOVA_")}
    env["SOVA_INSTANCE_PATH"] = str(tmp_path / "instance")
    run = subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: the database has no Sova tables yet; run `sova db upgrade`")
