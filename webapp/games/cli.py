"""``sova export game|season ID --format 4s|db [-o FILE]``: a game's or a season's packet
(:mod:`webapp.games.packet`)."""

from __future__ import annotations

from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from webapp.core.refusal import fail
from webapp.extensions import db


@click.group("export")
def export():
    """Packets of the questions as they were asked (chgksuite 4s or db.chgk.info text)."""


_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["4s", "db"]),
    required=True,
    help="4s: chgksuite's format; db: the db.chgk.info text format.",
)
_OUTPUT = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write here: the packet text, or a zip of the text and its images when there are "
    "images. Without it the text goes to standard output (images are not written then).",
)


def _write(made, output: str | None) -> None:
    images = made.mimetype == "application/zip"
    if output is None:
        click.echo(made.text, nl=False)
        if images:
            click.echo("note: the packet has images; -o FILE writes them in a zip", err=True)
        return
    Path(output).write_bytes(made.data)
    what = "zip: the packet text and its images" if images else "packet text"
    click.echo(f"wrote {output} ({what})", err=True)


def _run(make):
    """``make(uploads folder)``; a refusal (:class:`GameConflict`) is the message and exit 2."""
    from webapp.games.operations import GameConflict

    try:
        made = make(Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads")
    except GameConflict as exc:
        fail(str(exc))
    finally:
        db.session.rollback()  # an export writes nothing
    return made


@export.command("game")
@click.argument("game_id", type=click.IntRange(1, 2**31 - 1))
@_FORMAT
@_OUTPUT
@with_appcontext
def export_game(game_id, fmt, output):
    """A game's packet: its questions as they were asked, in order."""
    from webapp.games.models import Game
    from webapp.games.packet import game_packet

    game = db.session.get(Game, game_id)
    if game is None:
        fail(f"no game {game_id}")
    _write(_run(lambda uploads: game_packet(game, fmt, uploads)), output)


@export.command("season")
@click.argument("season_id", type=click.IntRange(1, 2**31 - 1))
@_FORMAT
@_OUTPUT
@with_appcontext
def export_season(season_id, fmt, output):
    """A season's packet: its games that are over, in play order, one tour each."""
    from webapp.games.models import Season
    from webapp.games.packet import season_packet

    season = db.session.get(Season, season_id)
    if season is None:
        fail(f"no season {season_id}")
    _write(_run(lambda uploads: season_packet(season, fmt, uploads)), output)
