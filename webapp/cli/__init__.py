"""Sova's commands (``contracts/api.md`` "Command line"), attached by
:func:`register_commands` to ``app.cli`` (``flask --app webapp …``, the tests' CLI runner)
and to the ``sova`` console script (:mod:`webapp.cli_entry`, which builds the app only for a
command that needs it: one decorated with ``with_appcontext``).

Replay-style commands (``sova game replay``) take no ``with_appcontext``: they build no app,
read no configuration and write nothing. Bad input ends with a message on stderr and exit
code 2; nothing of it is written.

The commands live in this package's modules: ``content`` (users, import, seed-demo),
``replay`` (game and season replay), ``processes`` (worker, beat, run, outbox, precheck,
health), ``maintenance`` (mail, backup, restore); the features' own in ``webapp/*/cli.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click


def fail(message: str) -> NoReturn:
    """Print ``message`` to stderr and exit with code 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def announce_instance() -> Path:
    """Say on stderr which instance folder this command uses and why (``SOVA_INSTANCE_PATH``
    or the per-user data directory), and return it. Creates nothing."""
    from webapp.config import instance_path

    path, source = instance_path()
    click.echo(f"sova: instance folder {path} ({source})", err=True)
    return path


def register_commands(group: click.Group) -> None:
    """Attach Sova's commands to ``group``: ``app.cli`` (``flask --app webapp …``) and the
    ``sova`` console script's group (:mod:`webapp.cli_entry`). A new command belongs here."""
    from webapp.cli.content import import_cmd, seed_demo, users
    from webapp.cli.maintenance import backup_cmd, mail, restore_cmd
    from webapp.cli.processes import beat, health, outbox, precheck, run_all, worker
    from webapp.cli.replay import game, season
    from webapp.prizes.cli import keys
    from webapp.submissions.cli import uploads
    from webapp.votes.cli import vote

    for cmd in (
        users,
        import_cmd,
        game,
        season,
        worker,
        beat,
        outbox,
        precheck,
        run_all,
        seed_demo,
        mail,
        keys,
        uploads,
        vote,
        backup_cmd,
        restore_cmd,
        health,
    ):
        group.add_command(cmd)


__all__ = ["fail", "register_commands"]
