"""``sova uploads …``: the files viewers and editors uploaded (``<instance>/uploads``);
``sova stats recount``: the statistics' day counts of viewer questions made again."""

from __future__ import annotations

import time
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext

from webapp.core.transaction import transactional
from webapp.extensions import db
from webapp.submissions.day_counts import recount_day_counts
from webapp.submissions.models import Question, QuestionImage


def orphan_uploads(folder: Path, older_than_seconds: float) -> list[Path]:
    """Files under ``folder`` (handout images at its top, letter scans in ``letters/``)
    that no question names in ``handout_image``, ``letter_scan`` or an image of its packet
    (``QuestionImage.file``) and that were last
    modified more than ``older_than_seconds`` ago (a file written for a submission still
    being committed is younger). Sorted by path; an absent folder gives []."""
    if not folder.is_dir():
        return []
    named: set[str] = set()
    for image, scan in db.session.execute(
        db.select(Question.handout_image, Question.letter_scan).where(
            (Question.handout_image.is_not(None)) | (Question.letter_scan.is_not(None))
        )
    ):
        named.update(n for n in (image, scan) if n)
    named.update(db.session.scalars(db.select(QuestionImage.file)))
    cutoff = time.time() - older_than_seconds
    files = [*folder.glob("*"), *(folder / "letters").glob("*")]
    return sorted(
        f
        for f in files
        if f.is_file()
        and f.relative_to(folder).as_posix() not in named
        and f.stat().st_mtime < cutoff
    )


@click.group("uploads")
def uploads():
    """Uploaded handout images and letter scans."""


@uploads.command("orphans")
@click.option("--delete", is_flag=True, help="Remove them (otherwise only list them).")
@click.option(
    "--older-than-hours",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="Only files at least this old.",
)
@with_appcontext
def uploads_orphans(delete: bool, older_than_hours: float):
    """List (or with --delete remove) uploaded files no question refers to: an image whose
    submission failed after the file was written, e.g. the database went away mid-request."""
    folder = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    found = orphan_uploads(folder, older_than_hours * 3600)
    for path in found:
        if delete:
            path.unlink(missing_ok=True)
        click.echo(path.relative_to(folder).as_posix())
    click.echo(f"{len(found)} orphan file(s){' removed' if delete else ''}", err=True)


@click.group("stats")
def stats():
    """The editors' statistics (/editor/stats)."""


@stats.command("recount")
@with_appcontext
@transactional()
def stats_recount():
    """Count the viewer questions per local day and month again (every count table of the
    statistics) in SOVA_TIMEZONE as it is set now: run it once after changing
    SOVA_TIMEZONE on a database with questions (the statistics' days and months stay in
    the zone they were counted in until then), and the queue's counts by status and
    author's city with them. One transaction."""
    counted = recount_day_counts(db.session.connection())
    zone = current_app.config["SOVA_TIMEZONE"]
    click.echo(f"{counted} viewer question(s) counted by day in {zone}")
