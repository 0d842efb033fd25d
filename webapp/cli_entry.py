"""The ``sova`` console script (``pyproject.toml`` ``[project.scripts]``); also
``python -m webapp.cli_entry``.

A plain click group holding Sova's commands (:func:`webapp.cli.register_commands`), without
Flask's generic options (``--app``, ``--debug``, ``--env-file``). The group itself builds
nothing: a command that needs the app (one decorated with ``flask.cli.with_appcontext``) gets
it from :func:`build_app` on first use, which says on stderr which instance folder it uses;
replay-style commands (``sova game replay``) never ask, so they read no configuration and
write nothing. ``sova --help`` builds no app.

Errors: an instance folder that cannot be created or written, or a configuration refused at
start-up (:class:`webapp.config.ConfigError`): ``Error: …`` on stderr, exit code 2.

Imports :mod:`webapp.app` (and so :mod:`webapp.cli`); :mod:`webapp.cli` never imports this
module or the app factory, so there is no import cycle.
"""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import ScriptInfo, routes_command, shell_command
from flask_migrate.cli import db as db_command

from webapp.cli import announce_instance, fail, register_commands


def build_app() -> Flask:
    """The app for a command that needs one (announcing its instance folder)."""
    from webapp.app import create_app
    from webapp.config import ConfigError

    path = announce_instance()
    try:
        return create_app()
    except ConfigError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(
            f"cannot use the instance folder {path}: {exc.strerror or exc} "
            f"({getattr(exc, 'filename', None) or path}); set SOVA_INSTANCE_PATH to a "
            "folder this user may create and write"
        )


@click.group("sova", context_settings={"help_option_names": ["-h", "--help"]})
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Sova: the viewer-question pipeline of «Что? Где? Когда?».

    Files (SQLite database, embedded broker, uploads, documents, generated secrets) live in
    SOVA_INSTANCE_PATH, else in the per-user data directory (~/.local/share/sova); the
    command says which on stderr. Configuration: SOVA_* environment variables
    (docs/operations.md)."""
    ctx.obj = ScriptInfo(create_app=build_app, set_debug_flag=False, load_dotenv_defaults=False)


register_commands(cli)
cli.add_command(db_command)
cli.add_command(shell_command)
cli.add_command(routes_command)


def main() -> None:
    """Entry point of the ``sova`` console script."""
    cli.main(prog_name="sova")


if __name__ == "__main__":
    main()
