"""Sova's commands (``contracts/api.md`` "Command line"), attached by
:func:`register_commands` to ``app.cli`` (``flask --app webapp …``, the tests' CLI runner)
and offered by the ``sova`` console script (:mod:`webapp.cli_entry`, which builds the app only
for a command that needs it: one decorated with ``with_appcontext``).

Replay-style commands (``sova game replay``) take no ``with_appcontext``: they build no app,
read no configuration and write nothing. Bad input ends with a message on stderr and exit
code 2; nothing of it is written. A command that writes is one transaction
(:func:`webapp.core.transaction.transactional`, under ``with_appcontext``).

The commands live in this package's modules: ``content`` (users, import, seed-demo),
``replay`` (game and season replay), ``processes`` (worker, beat, run, outbox, precheck,
health), ``maintenance`` (mail, backup, restore); the features' own in ``webapp/*/cli.py``.
:data:`COMMANDS` names them without importing them: ``sova`` imports a command's module only
when that command runs (:class:`LazyGroup`), so ``sova season replay`` and ``sova --help``
import neither the features nor the database models.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import Any

import click

from webapp.core.refusal import fail

#: Sova's commands: name → ("module:attribute" of the click command, the first sentence of
#: its help as ``sova --help`` lists it, before shortening to the terminal's width). A new
#: command belongs here; tests/webapp/test_cli_lazy.py checks each help against the command's.
COMMANDS: dict[str, tuple[str, str]] = {
    "backup": (
        "webapp.cli.maintenance:backup_cmd",
        "Back up the database and the documents and uploads folders into one archive, "
        "encrypted and signed with the backup key (SOVA_BACKUP_KEY, else "
        "<instance>/backup_key, made on first use: keep a copy apart from the archives).",
    ),
    "beat": ("webapp.cli.processes:beat", "Run Celery beat (the outbox sweeper)."),
    "export": (
        "webapp.games.cli:export",
        "Packets of the questions as they were asked (chgksuite 4s or db.chgk.info text).",
    ),
    "game": ("webapp.cli.replay:game", "Games."),
    "health": (
        "webapp.cli.processes:health",
        "Liveness of the processes (exit 0 alive, 1 not; JSON on stdout).",
    ),
    "import": (
        "webapp.cli.content:import_cmd",
        "Import question packets (chgksuite 4s or db.chgk.info text; UTF-8, KOI8-R, cp1251).",
    ),
    "keys": (
        "webapp.prizes.cli:keys",
        "Encryption keys of personal data (SOVA_ENCRYPTION_KEYS, newest first).",
    ),
    "mail": ("webapp.cli.maintenance:mail", 'The sent-mail ledger (docs/operations.md "E-mail").'),
    "outbox": (
        "webapp.cli.processes:outbox",
        "The transactional outbox (tasks requested by committed transactions).",
    ),
    "precheck": ("webapp.cli.processes:precheck", "Pre-checks of questions awaiting a decision."),
    "restore": (
        "webapp.cli.maintenance:restore_cmd",
        "Replace the database and the documents and uploads folders by a backup's.",
    ),
    "rules": (
        "webapp.cli.replay:rules",
        "The rule sets' amendable parameters (2023 §4.12.1).",
    ),
    "run": (
        "webapp.cli.processes:run_all",
        "Web, worker and beat together (the package's Procfile + honcho); Ctrl-C stops all three.",
    ),
    "season": ("webapp.cli.replay:season", "Seasons."),
    "seed-demo": (
        "webapp.cli.content:seed_demo",
        "Prepare a demo instance; safe to run again (``make run`` runs it every time).",
    ),
    "stats": ("webapp.submissions.cli:stats", "The editors' statistics (/editor/stats)."),
    "uploads": ("webapp.submissions.cli:uploads", "Uploaded handout images and letter scans."),
    "users": ("webapp.cli.content:users", "Staff users."),
    "vote": ("webapp.votes.cli:vote", "The 2009 §3.1 audience vote."),
    "worker": (
        "webapp.cli.processes:worker",
        "Run a Celery worker (and nothing else; ``webapp.tasks.celery.WORKER_FLAGS``).",
    ),
}

#: The commands whose app is built without its pages (``create_app(pages=False)``): they
#: serve no request and build no URL, and their start-up is part of what an operator
#: waits for with every run (a folder of packets imported in seconds).
WITHOUT_PAGES = frozenset({"import"})


#: What a command says when the database has no Sova tables (:func:`missing_schema`).
NO_TABLES = "the database has no Sova tables yet; run `sova db upgrade` first"


def missing_schema(exc: BaseException) -> bool:
    """Whether ``exc`` is the database saying Sova's tables are not there (an instance
    never upgraded: SQLite's "no such table", PostgreSQL's undefined_table 42P01)."""
    if "sqlalchemy" not in sys.modules:  # no database was used: it cannot be that
        return False
    from sqlalchemy.exc import DBAPIError

    if not isinstance(exc, DBAPIError):
        return False
    orig = exc.orig
    return getattr(orig, "sqlstate", None) == "42P01" or "no such table" in str(orig)


def announce_instance() -> Path:
    """Say on stderr which instance folder this command uses and why (``SOVA_INSTANCE_PATH``
    or the per-user data directory), and return it. Creates nothing. A folder that does not
    exist yet is said to be new and empty: a command run from a checkout without
    ``SOVA_INSTANCE_PATH`` (``make run`` sets it to the checkout's ``instance/``) would
    otherwise read an empty instance without a word."""
    from webapp.config import instance_path

    path, source = instance_path()
    new = "" if path.exists() else "; it does not exist yet, so it starts empty"
    click.echo(f"sova: instance folder {path} ({source}{new})", err=True)
    return path


def no_tables_message(detail: str) -> str:
    """The refusal of a command run on a database without Sova's tables: :data:`NO_TABLES`,
    the database's own words (``detail``), the instance folder in use and, when it came from
    the per-user default, where ``make run`` keeps its instance."""
    from webapp.config import instance_path

    path, source = instance_path()
    hint = f"; the instance folder is {path} ({source})"
    if "SOVA_INSTANCE_PATH" not in source:
        hint += (
            ": to use the instance `make run` keeps in a checkout, set "
            "SOVA_INSTANCE_PATH to that checkout's instance/ folder"
        )
    return f"{NO_TABLES} ({detail}){hint}"


def import_command(import_path: str) -> click.Command:
    """The click command at ``import_path`` ("module:attribute"), its module imported."""
    module, _, attribute = import_path.partition(":")
    command = getattr(import_module(module), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{import_path} is not a click command")
    return command


class LazyGroup(click.Group):
    """A click group whose commands are imported when used (click's "Lazily Loading
    Subcommands"): ``lazy_subcommands`` maps a command's name to ("module:attribute", the
    first sentence of its help), as :data:`COMMANDS` does. Running a command, or its own
    ``--help``, imports its module alone; the group's ``--help`` lists the helps given here
    and imports none."""

    def __init__(
        self,
        *args: Any,
        lazy_subcommands: Mapping[str, tuple[str, str]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return import_command(self.lazy_subcommands[cmd_name][0])
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.NoSuchCommand as exc:
            # click suggests close names from ``self.commands``, which lacks the lazy ones
            raise click.NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own listing, of stand-ins that carry the lazy commands' helps
        listing = click.Group(
            commands={
                **{
                    name: click.Command(name, help=h)
                    for name, (_, h) in self.lazy_subcommands.items()
                },
                **self.commands,
            }
        )
        listing.format_commands(ctx, formatter)


def register_commands(group: click.Group) -> None:
    """Attach Sova's commands (:data:`COMMANDS`, each module imported) to ``group``:
    ``app.cli`` (``flask --app webapp …``), whose app has imported the features anyway."""
    for name, (import_path, _help) in COMMANDS.items():
        group.add_command(import_command(import_path), name)


__all__ = [
    "COMMANDS",
    "LazyGroup",
    "announce_instance",
    "fail",
    "import_command",
    "NO_TABLES",
    "missing_schema",
    "no_tables_message",
    "register_commands",
]
