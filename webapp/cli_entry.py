"""The ``sova`` console script (``pyproject.toml`` ``[project.scripts]``); also
``python -m webapp.cli_entry``.

A click group holding Sova's commands (:data:`webapp.cli.COMMANDS`) and Flask's ``db``,
``shell`` and ``routes``, without Flask's generic options (``--app``, ``--debug``,
``--env-file``). The group imports a command's module only when that command runs
(:class:`webapp.cli.LazyGroup`) and builds nothing: a command that needs the app (one
decorated with ``flask.cli.with_appcontext``) gets it from :func:`build_app` on first use,
which says on stderr which instance folder it uses; replay-style commands (``sova game
replay``) never ask, so they read no configuration, write nothing and import neither the
features, the models nor Flask-Migrate. ``sova --help`` builds no app and imports no command.

Errors: an instance folder that cannot be created or written, or a configuration refused at
start-up (:class:`webapp.config.ConfigError`): ``Error: …`` on stderr, exit code 2.

Imports :mod:`webapp.app` (and so :mod:`webapp.cli`) when building the app; :mod:`webapp.cli`
never imports this module or the app factory, so there is no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from webapp.cli import (
    COMMANDS,
    WITHOUT_PAGES,
    LazyGroup,
    announce_instance,
    fail,
    missing_schema,
    no_tables_message,
)

if TYPE_CHECKING:
    from flask import Flask

#: Flask's and Flask-Migrate's commands that ``sova`` offers besides its own, as
#: :data:`webapp.cli.COMMANDS` names those.
FLASK_COMMANDS = {
    "db": ("flask_migrate.cli:db", "Perform database migrations."),
    "shell": ("flask.cli:shell_command", "Run a shell in the app context."),
    "routes": ("flask.cli:routes_command", "Show the routes for the app."),
}


def build_app(pages: bool = True) -> Flask:
    """The app for a command that needs one (announcing its instance folder); ``pages``:
    with its views (:func:`webapp.app.create_app`)."""
    from webapp.app import create_app
    from webapp.config import ConfigError

    path = announce_instance()
    try:
        return create_app(pages=pages)
    except ConfigError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(
            f"cannot use the instance folder {path}: {exc.strerror or exc} "
            f"({getattr(exc, 'filename', None) or path}); set SOVA_INSTANCE_PATH to a "
            "folder this user may create and write"
        )


@click.group(
    "sova",
    cls=LazyGroup,
    lazy_subcommands={**COMMANDS, **FLASK_COMMANDS},
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Sova: the viewer-question pipeline of «Что? Где? Когда?».

    Files (SQLite database, embedded broker, uploads, documents, generated secrets) live in
    SOVA_INSTANCE_PATH, else in the per-user data directory (~/.local/share/sova); the
    command says which on stderr. Configuration: SOVA_* environment variables
    (docs/operations.md)."""
    from functools import partial

    from flask.cli import ScriptInfo  # Flask alone, not the app or its features

    pages = ctx.invoked_subcommand not in WITHOUT_PAGES
    ctx.obj = ScriptInfo(
        create_app=partial(build_app, pages=pages), set_debug_flag=False, load_dotenv_defaults=False
    )


def main() -> None:
    """Entry point of the ``sova`` console script. A command run on a database without
    Sova's tables ends with ``Error: …`` and exit code 2, not a traceback."""
    try:
        cli.main(prog_name="sova")
    except Exception as exc:
        if not missing_schema(exc):
            raise
        orig = exc.orig  # type: ignore[attr-defined]  # a DBAPIError (missing_schema)
        fail(no_tables_message(f"{type(orig).__name__}: {str(orig).splitlines()[0]}"))


if __name__ == "__main__":
    main()
