"""The queue's exports too large for a request (``webapp.moderation.export_jobs``): the
editor asks with the queue page's button, follows the progress page (it refreshes itself
without JavaScript; with it, ``export.js`` polls the JSON status), then downloads the file.
Only the editor who asked, a chief editor and an admin see a job; for anyone else it does
not exist (404)."""

from __future__ import annotations

from flask import abort, flash, jsonify, redirect, render_template, url_for
from flask_babel import gettext as _

from webapp.core.access import access, current_staff
from webapp.core.filenames import send_path
from webapp.moderation import export_jobs
from webapp.moderation.forms import ExportForm
from webapp.moderation.views.common import bp
from webapp.moderation.views.listing import export_name, queue_request

#: The download's media type per format (Werkzeug adds «; charset=utf-8» to a text type).
MIMETYPES = {
    "csv": "text/csv",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@bp.route("/exports", methods=["POST"])
@access("editor+")
def export_request():
    """Queue a worker export of the queue for the filters in the query arguments (the
    queue page's form carries them in its ``action``) in the posted format; then the
    progress page."""
    form = ExportForm()
    _form, f, keep = queue_request()
    if not form.validate_on_submit():
        flash(_("Не удалось начать выгрузку: выберите формат на странице очереди."), "error")
        return redirect(url_for("moderation.queue", **keep))
    fmt = form.fmt.data
    job = export_jobs.request_export(current_staff().id, fmt, f, export_name(f, fmt))
    return redirect(url_for("moderation.export_job", job_id=job.id))


def _job(job_id: int):
    job = export_jobs.visible_job(job_id, current_staff())
    if job is None:
        abort(404)
    return job


def _status(job) -> dict:
    """What the progress page and its JSON say of ``job`` (a ready job whose file is gone —
    a restored backup holds no exports — is expired)."""
    total, status = job.total, job.status
    if status == "ready" and not export_jobs.job_path(job).is_file():
        status = "expired"
    return {
        "status": status,
        "done": job.done,
        "total": total,
        "percent": (100 * job.done // total if total else (100 if status == "ready" else 0)),
        "download": url_for("moderation.export_file", job_id=job.id) if status == "ready" else None,
    }


@bp.route("/exports/<int:job_id>")
@access("editor+")
def export_job(job_id: int):
    """The progress of an export: a progress bar (rows written of all), refreshed every
    two seconds while it runs (a ``<meta refresh>`` without JavaScript; with it, the JSON
    status is polled), then the download link."""
    job = _job(job_id)
    return render_template("moderation/export_job.html", job=job, s=_status(job))


@bp.route("/exports/<int:job_id>/status")
@access("editor+")
def export_job_status(job_id: int):
    """The progress of an export as JSON: ``status``, ``done``, ``total``, ``percent``,
    ``download`` (the file's URL once ready, else null)."""
    resp = jsonify(_status(_job(job_id)))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.route("/exports/<int:job_id>/file")
@access("editor+")
def export_file(job_id: int):
    """The export's file, while it is kept (404 before it is ready and after it expired)."""
    job = _job(job_id)
    path = export_jobs.job_path(job)
    if _status(job)["status"] != "ready":
        abort(404)
    resp = send_path(path, job.download_name, MIMETYPES[job.fmt])
    resp.headers["Cache-Control"] = "private, no-store"
    return resp
