"""How a command says no: the message on stderr and exit code 2 (``contracts/api.md``
"Command line"). Imports nothing of Sova, so the light commands (``sova game replay``,
``sova --help``) can use it without loading the features or the database models."""

from __future__ import annotations

import sys
from typing import NoReturn

import click


def fail(message: str) -> NoReturn:
    """Print ``Error: <message>`` to stderr and exit with code 2."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)
