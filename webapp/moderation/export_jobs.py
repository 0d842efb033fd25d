"""The queue's exports too large for a request: an :class:`ExportJob` row asked for by an
editor, written by the worker (``moderation.export_queue``) with its progress in the row,
downloaded by that editor (or a chief editor, or an admin) until it expires
(``moderation.purge_exports``).

The file lists what the screen lists for the filters of the request (the same statement
as the streamed export, ``queries.queue_statement``): the worker reads the queue's ids in
its order once, then the rows by batches of :data:`queries.EXPORT_BATCH`, committing the
number written after each batch, so the progress page sees it move."""

from __future__ import annotations

import dataclasses
import os
import secrets
from datetime import timedelta
from pathlib import Path

from flask import current_app
from sqlalchemy import select

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import export, queries, tasks
from webapp.moderation.models import ExportJob
from webapp.tasks.outbox import enqueue

#: The formats of the queue's exports.
FORMATS = ("csv", "xlsx")
#: Roles that may download any editor's export (the others only their own).
SEES_ALL_EXPORTS = frozenset({"chief_editor", "admin"})


def inline_rows() -> int:
    """Up to this many rows an export is streamed in the request
    (``SOVA_EXPORT_INLINE_ROWS``, 50 000); more go to the worker."""
    return int(current_app.config["SOVA_EXPORT_INLINE_ROWS"])


def too_big(f: queries.QueueFilter) -> bool:
    """Whether the queue of ``f`` lists more than :func:`inline_rows` questions (counted up
    to one more, so never every row)."""
    limit = inline_rows()
    return queries.queue_count(f, cap=limit) > limit


def folder() -> Path:
    """``<instance>/exports``: where the worker writes the files."""
    return Path(current_app.config["SOVA_INSTANCE_PATH"]) / "exports"


def job_path(job: ExportJob) -> Path:
    """The job's file: a generated name (its token), never anything the user typed."""
    return folder() / f"{job.token}.{job.fmt}"


def request_export(user_id: int, fmt: str, f: queries.QueueFilter, download_name: str):
    """A new export job of the queue of ``f`` in ``fmt`` for ``user_id``, and its task
    queued through the outbox (sent after the caller's transaction commits). Returns the
    job (flushed: it has its id). ValueError for an unknown format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    job = ExportJob(
        user_id=user_id,
        fmt=fmt,
        filters=dataclasses.asdict(f),
        status="pending",
        done=0,
        token=secrets.token_hex(16),
        download_name=download_name,
        created_at=utcnow(),
    )
    db.session.add(job)
    db.session.flush()
    enqueue(tasks.EXPORT_QUEUE, job.id)
    return job


def visible_job(job_id: int, user) -> ExportJob | None:
    """Export job ``job_id`` if ``user`` may see it (the editor who asked, a chief editor or
    an admin), else None: another editor's job does not exist for them (404)."""
    job = db.session.get(ExportJob, job_id)
    if job is None or (job.user_id != user.id and user.role not in SEES_ALL_EXPORTS):
        return None
    return job


def run_export(job_id: int) -> ExportJob | None:
    """Write export job ``job_id``'s file (the worker's task). Idempotent: a ready job whose
    file is there, or an expired one, is left alone; a job found ``running`` (its worker
    was killed, the message redelivered) starts again from the first row. The file is
    written under a temporary name and renamed, so a killed worker leaves no half file.
    Commits the job's ``total`` and then ``done`` after every batch (the progress page
    reads them while it runs); flushes the ready row, which the task edge commits. A
    failure is committed as ``failed`` before the exception goes on."""
    job = db.session.get(ExportJob, job_id)
    if job is None or job.status == "expired":
        return job
    path = job_path(job)
    if job.status == "ready" and path.is_file():
        return job
    zone = current_app.config["SOVA_TIMEZONE"]
    received = export.local_minute(zone) if job.fmt == "xlsx" else None
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        ids = queries.queue_ids(queries.QueueFilter(**job.filters))
        job.status, job.total, job.done, job.error = "running", len(ids), 0, None
        # Kept on purpose: the commits of this task are its progress, which the editor's
        # page reads while the file is written (the task edge, webapp.tasks.celery.SovaTask,
        # commits the ready row at the end).
        db.session.commit()

        def batches():
            size = queries.EXPORT_BATCH
            for start in range(0, len(ids), size):
                chunk = ids[start : start + size]
                items = queries.export_rows(chunk)
                yield export.queue_rows(items, queries.export_reports(chunk), zone, received)
                # the writer asked for the next batch: this one is written
                job.done = start + len(chunk)
                db.session.commit()  # the progress (see above)

        path.parent.mkdir(parents=True, exist_ok=True)
        # 0600 like uploads and documents: personal data for the asking editor, not for
        # every account on the host (a fresh file: an old one would keep its mode)
        tmp.unlink(missing_ok=True)
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            (export.write_xlsx if job.fmt == "xlsx" else export.write_csv)(out, batches())
        os.replace(tmp, path)
    except Exception as exc:
        tmp.unlink(missing_ok=True)
        # Kept on purpose: the task raises and its edge rolls back what it wrote, so the
        # failure is committed here, on its own, for the editor's page.
        db.session.rollback()
        job = db.session.get_one(ExportJob, job_id)
        job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"[:500]
        db.session.commit()
        raise
    now = utcnow()
    keep = timedelta(hours=int(current_app.config["SOVA_EXPORT_KEEP_HOURS"]))
    job.status, job.done, job.finished_at, job.expires_at = "ready", job.total, now, now + keep
    db.session.flush()
    return job


def purge_exports() -> int:
    """Delete the files of export jobs past ``expires_at`` (and mark them ``expired``), and
    mark failed jobs older than the keeping time expired; the rows stay (who exported
    what, when). Idempotent. Returns how many jobs expired."""
    now = utcnow()
    keep = timedelta(hours=int(current_app.config["SOVA_EXPORT_KEEP_HOURS"]))
    jobs = db.session.scalars(
        select(ExportJob).where(
            ((ExportJob.status == "ready") & (ExportJob.expires_at <= now))
            | ((ExportJob.status == "failed") & (ExportJob.created_at <= now - keep))
        )
    ).all()
    for job in jobs:
        job_path(job).unlink(missing_ok=True)
        job.status = "expired"
    db.session.flush()
    return len(jobs)
