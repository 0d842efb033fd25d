"""The ``sova`` console script leaves the current directory alone
(contracts/api.md "Configuration"): replay-style commands build no app, read no configuration
and write nothing; other commands use SOVA_INSTANCE_PATH, else the per-user data directory,
and say which on stderr; bad input is a message and exit code 2 with nothing written.

Each test runs ``python -m webapp.cli_entry`` (the console script's module) in an empty
temporary current directory with HOME pointing into the temporary folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from webapp.cli_entry import cli

PROTOCOL = {
    "format": "sova.game-protocol/1",
    "ruleset": "2023",
    "table": {"blitz": 7, "superblitz": None, "sector13": 13},
    "events": [
        {"type": "spin", "sector": 13},
        {"type": "sector13_option", "option": "six"},
        {"type": "answer", "correct": False},
    ],
}


@pytest.fixture
def place(tmp_path):
    """``(cwd, home, env)``: an empty current directory, a HOME and an environment without
    any SOVA_* variable."""
    cwd, home = tmp_path / "cwd", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SOVA_", "XDG_")) and k != "PYTHONPATH"
    }
    env["HOME"] = str(home)
    return cwd, home, env


def sova(place, *args, **extra_env) -> subprocess.CompletedProcess:
    cwd, _home, env = place
    return subprocess.run(
        [sys.executable, "-m", "webapp.cli_entry", *args],
        cwd=cwd,
        env=env | extra_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_game_replay_builds_no_app_and_writes_nothing(place, tmp_path):
    cwd, home, _env = place
    protocol = tmp_path / "game.json"
    protocol.write_text(json.dumps(PROTOCOL), encoding="utf-8")
    # a configuration that would fail if it were read: the replay never reads it
    run = sova(
        place,
        "game",
        "replay",
        str(protocol),
        SOVA_ENV="production",
        SOVA_INSTANCE_PATH=str(tmp_path / "never"),
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["score"] == "0:1"
    assert run.stderr == ""  # no "instance folder" line: no app was built
    assert tree(cwd) == [] and tree(home) == []
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("content", [None, b"\xff\xfe not utf-8", b"{not json"])
def test_game_replay_bad_protocol_file_exit_2_writes_nothing(place, tmp_path, content):
    cwd, home, _env = place
    path = tmp_path / "protocol.json"
    if content is not None:
        path.write_bytes(content)
    run = sova(place, "game", "replay", str(path))
    assert run.returncode == 2, (run.stdout, run.stderr)
    if content is None:
        assert "No such file or directory" in run.stderr
        assert "Invalid value for 'PROTOCOL'" in run.stderr
    else:
        error = json.loads(run.stdout)["error"]
        assert error["message"].startswith("not JSON: ")
    assert "Traceback" not in run.stderr
    assert tree(cwd) == [] and tree(home) == []


def test_help_lists_sovas_commands_without_flask_options(place):
    cwd, home, _env = place
    run = sova(place, "--help")
    assert run.returncode == 0, run.stderr
    commands = run.stdout.split("Commands:")[1].split()
    for name in (
        "db",
        "game",
        "season",
        "import",
        "users",
        "run",
        "worker",
        "beat",
        "seed-demo",
        "outbox",
        "precheck",
        "mail",
        "keys",
        "uploads",
    ):
        assert name in commands, name
    for flask_option in ("--app", "--debug", "--env-file", "-e,", "--version"):
        assert flask_option not in run.stdout
    assert tree(cwd) == [] and tree(home) == []


@pytest.mark.slow
def test_commands_default_to_the_per_user_data_directory_and_say_so(place):
    cwd, home, _env = place
    instance = home / ".local" / "share" / "sova"
    for args, new in (
        (("db", "upgrade", "heads"), "; it does not exist yet, so it starts empty"),
        (("outbox", "status"), ""),
    ):
        run = sova(place, *args)
        assert run.returncode == 0, run.stderr
        assert run.stderr.splitlines()[0] == (
            f"sova: instance folder {instance} (per-user data directory{new})"
        )
    assert json.loads(run.stdout) == {
        "waiting": 0,
        "oldest_seconds": 0.0,
        "in_flight": 0,
        "overdue": 0,
        "given_up": 0,
        "questions_received": 0,
        "documents_pending": 0,
        "mail_sending": 0,
        "mail_in_doubt": 0,
    }
    assert tree(cwd) == []
    assert {"secret_key", "encryption_keys", "sova.sqlite"} <= set(os.listdir(instance))


@pytest.mark.slow
def test_sova_instance_path_wins_and_is_announced(place, tmp_path):
    cwd, home, _env = place
    instance = tmp_path / "inst"
    run = sova(place, "db", "upgrade", "heads", SOVA_INSTANCE_PATH=str(instance))
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[0] == (
        f"sova: instance folder {instance} "
        "(SOVA_INSTANCE_PATH; it does not exist yet, so it starts empty)"
    )
    assert (instance / "sova.sqlite").is_file()
    assert tree(cwd) == [] and tree(home) == []
    again = sova(place, "outbox", "status", SOVA_INSTANCE_PATH=str(instance))
    assert again.stderr.splitlines()[0] == f"sova: instance folder {instance} (SOVA_INSTANCE_PATH)"


def test_export_on_a_new_per_user_instance_says_it_is_empty_and_where_make_run_keeps_one(place):
    """Run from a checkout without SOVA_INSTANCE_PATH, ``sova export`` reads the per-user
    instance: it says the folder is new and empty, and the refusal says how to reach the
    instance ``make run`` keeps (exit 2, no traceback)."""
    _cwd, home, _env = place
    instance = home / ".local" / "share" / "sova"
    run = sova(place, "export", "game", "1", "--format", "4s")
    assert run.returncode == 2, run.stderr
    lines = run.stderr.splitlines()
    assert lines[0] == (
        f"sova: instance folder {instance} "
        "(per-user data directory; it does not exist yet, so it starts empty)"
    )
    assert lines[-1] == (
        "Error: the database has no Sova tables yet; run `sova db upgrade` first "
        "(OperationalError: no such table: game); the instance folder is "
        f"{instance} (per-user data directory): to use the instance `make run` keeps in a "
        "checkout, set SOVA_INSTANCE_PATH to that checkout's instance/ folder"
    )


@pytest.mark.slow
def test_instance_folder_that_cannot_be_created_exit_2_writes_nothing(place, tmp_path):
    cwd, home, _env = place
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    run = sova(place, "db", "upgrade", SOVA_INSTANCE_PATH=str(blocker / "instance"))
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert (
        f"Error: cannot use the instance folder {blocker / 'instance'}: Not a directory"
        in run.stderr
    )
    assert "Traceback" not in run.stderr
    assert blocker.read_text() == "a file, not a folder"
    assert tree(cwd) == [] and tree(home) == []


@pytest.mark.slow
def test_production_without_secrets_exit_2_writes_nothing(place, tmp_path):
    cwd, home, _env = place
    run = sova(
        place, "outbox", "status", SOVA_ENV="production", SOVA_INSTANCE_PATH=str(tmp_path / "inst")
    )
    assert run.returncode == 2
    assert "Error: SOVA_SECRET_KEY is required when SOVA_ENV=production" in run.stderr
    assert not (tmp_path / "inst").exists()
    assert tree(cwd) == [] and tree(home) == []


def test_console_script_module_has_no_import_cycle():
    """webapp.cli (the commands, imported by the app factory; a package, each module read)
    never imports the app factory or the console script's module."""
    import ast

    package = Path(sys.modules["webapp.cli"].__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(package.glob("*.py")))
    imported = {
        node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
    }
    imported |= {
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not imported & {"webapp.app", "webapp.cli_entry", "webapp"}
    assert "__import__(" not in source
    assert cli.name == "sova"


@pytest.mark.slow
def test_seed_demo_is_refused_in_production_and_writes_no_account(place, tmp_path):
    """The demo accounts' passwords are published (README): a production instance never
    gets them, whatever the order of commands."""
    from cryptography.fernet import Fernet

    production = {
        "SOVA_ENV": "production",
        "SOVA_SECRET_KEY": "k" * 64,
        "SOVA_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "SOVA_INSTANCE_PATH": str(tmp_path / "inst"),
    }
    assert sova(place, "db", "upgrade", "heads", **production).returncode == 0
    run = sova(place, "seed-demo", **production)
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "Error: seed-demo is refused when SOVA_ENV=production: its accounts' passwords are "
        "published; create staff with `sova users create` or the admin's «Сотрудники» page"
    )
    import sqlite3

    with sqlite3.connect(tmp_path / "inst" / "sova.sqlite") as con:
        assert con.execute('SELECT count(*) FROM "user"').fetchone() == (0,)


def test_sova_import_runs_on_the_app_without_its_pages(place, tmp_path):
    """``sova import`` (:data:`webapp.cli.WITHOUT_PAGES`) builds ``create_app(pages=False)``:
    a packet goes in as with the full app."""
    instance = tmp_path / "inst"
    assert sova(place, "db", "upgrade", "heads", SOVA_INSTANCE_PATH=str(instance)).returncode == 0
    sample = Path(__file__).resolve().parents[2] / "webapp/submissions/sample_packet.4s"
    run = sova(place, "import", str(sample), "--as", "archive", SOVA_INSTANCE_PATH=str(instance))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "sample_packet.4s: imported 10 questions as archive",
        "total: 10 questions from 1 file(s); 0 file(s) failed",
    ]


def test_the_app_without_its_pages_maps_every_model_and_serves_no_view(tmp_path):
    """Every module defining tables is in :data:`webapp.app.MODEL_MODULES` (so that the app
    without its pages maps them all), and that app has no blueprint."""
    import sqlalchemy.orm

    from webapp.app import MODEL_MODULES, create_app

    root = Path(__file__).resolve().parents[2]
    found = {
        ".".join(p.relative_to(root).with_suffix("").parts)
        for p in (root / "webapp").rglob("models.py")
    }
    assert set(MODEL_MODULES) == found
    app = create_app({"SOVA_INSTANCE_PATH": str(tmp_path), "TESTING": True}, pages=False)
    sqlalchemy.orm.configure_mappers()
    assert app.blueprints == {}
