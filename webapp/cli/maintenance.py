"""Maintenance: the sent-mail ledger (``sova mail``), ``sova backup`` and ``sova restore``."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from flask.cli import with_appcontext

from webapp.cli import fail
from webapp.core.mail import MailError
from webapp.core.transaction import transactional


@click.group("mail")
def mail():
    """The sent-mail ledger (docs/operations.md "E-mail")."""


@mail.command("stuck")
@click.option(
    "--older-than",
    "minutes",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="also list claims older than this many minutes",
)
@with_appcontext
def mail_stuck(minutes):
    """List e-mails still ``sending``: every one in doubt, and claims older than
    ``--older-than`` minutes. One tab-separated line each (key, state, attempt, claimed at
    UTC, Message-ID), then a count."""
    from datetime import timedelta

    from webapp.core.mail import stuck

    rows = stuck(timedelta(minutes=minutes))
    for row in rows:
        state = (
            f"in doubt (end of data {row.end_of_data_at:%Y-%m-%d %H:%M:%S})"
            if row.in_doubt
            else "not delivered"
        )
        click.echo(
            f"{row.key}\t{state}\tattempt {row.attempt}\t"
            f"{row.claimed_at:%Y-%m-%d %H:%M:%S}\t{row.message_id}"
        )
    click.echo(f"{len(rows)} stuck e-mail(s)")


@mail.command("resend")
@click.argument("key")
@with_appcontext
@transactional(MailError)
def mail_resend(key):
    """Queue the task of a stuck e-mail again (same Message-ID). Exit 2: unknown key,
    already sent, or no recorded task."""
    from webapp.core.mail import resend

    row = resend(key)
    click.echo(
        f"queued {row.task}{''.join(f' {a}' for a in row.args or [])} for {key} "
        f"(Message-ID {row.message_id})"
    )


@mail.command("mark-sent")
@click.argument("key")
@with_appcontext
@transactional(MailError)
def mail_mark_sent(key):
    """Record a stuck e-mail as sent (found delivered in the mail server's log). Exit 2:
    unknown key or already sent."""
    from webapp.core.mail import mark_sent_by_operator

    mark_sent_by_operator(key)
    click.echo(f"marked {key} as sent")


@click.command("backup")
@click.argument("dest", type=click.Path(dir_okay=True, file_okay=True))
@with_appcontext
def backup_cmd(dest):
    """Back up the database and the documents and uploads folders into one archive,
    encrypted and signed with the backup key (SOVA_BACKUP_KEY, else <instance>/backup_key,
    made on first use: keep a copy apart from the archives). DEST: a new file name, or a
    folder (existing, or ending in "/" to create it) for sova-backup-<UTC time>.tar.gz.enc;
    that folder's archives older than SOVA_BACKUP_RETENTION_DAYS are then deleted. Exit 2
    when the backup cannot be made."""
    from flask import current_app
    from tqdm import tqdm

    from webapp.backup import BackupError, backup

    with tqdm(unit="file", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        try:
            path = backup(
                dest,
                progress=bar.update,
                keep_days=current_app.config["SOVA_BACKUP_RETENTION_DAYS"],
            )
        except BackupError as exc:
            fail(str(exc))
    click.echo(f"backup written: {path} ({path.stat().st_size} bytes)")


@click.command("restore")
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@with_appcontext
def restore_cmd(archive, yes):
    """Replace the database and the documents and uploads folders by a backup's. The whole
    archive is decrypted and checked first (the manifest's signature under the backup key,
    every file's SHA-256): a damaged, altered, unsigned or foreign archive, or one of
    another key, changes nothing (exit 2). Stop web, workers, relay and beat first."""
    from webapp.backup import BackupError, restore, verify

    if not yes:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            try:
                manifest = verify(archive, Path(tmp))
            except BackupError as exc:
                fail(str(exc))
        click.confirm(
            f"Replace this instance's database and files by the backup of "
            f"{manifest['created_at']} ({len(manifest['files'])} files)?",
            abort=True,
        )
    try:
        manifest = restore(archive)
    except BackupError as exc:
        fail(str(exc))
    click.echo(
        f"restored the backup of {manifest['created_at']}: database "
        f"({manifest['database']['dialect']}, revision "
        f"{manifest['database']['revision']}) and {len(manifest['files']) - 1} files"
    )
