"""Staff intake pages: handout images, paper letters and partner questions, packet upload."""

from __future__ import annotations

from pathlib import Path

from flask import abort, flash, redirect, render_template, request, send_from_directory, url_for

from webapp.core.access import access, current_staff
from webapp.core.edge import discard
from webapp.submissions.forms import IMPORT_MAX_BYTES, LetterForm, PacketUploadForm
from webapp.submissions.images import ImageError
from webapp.submissions.models import CHANNEL_LABELS
from webapp.submissions.operations import (
    AuthorInput,
    SubmissionError,
    SubmissionInput,
    import_upload,
    receive,
)
from webapp.submissions.scans import MAX_PDF_BYTES, store_scan
from webapp.submissions.views.common import bp, uploads_folder

# --- staff: handout images ------------------------------------------------------------


@bp.route("/uploads/<name>")
@access("editor+|producer|host")
def upload(name: str):
    """A viewer's handout image, to staff only (never from the web root)."""
    if not current_staff() or "/" in name or name.startswith("."):
        abort(404)
    return send_from_directory(uploads_folder(), name)


# --- staff: paper letters, partner questions, packet upload ---------------------------


@bp.route("/editor/letters/new", methods=["GET", "POST"])
@access("editor+")
def new_letter():
    """An editor types in a paper letter (channel ``mail``, postmark date, scan) or a
    partner's question (channel ``partner``); the same pipeline as the web form."""
    # a PDF scan may be up to 10 MB, more than the app's request limit
    request.max_content_length = MAX_PDF_BYTES + 1024 * 1024
    form = LetterForm()
    if not form.is_submitted() and request.args.get("channel") in ("mail", "partner"):
        form.channel.data = request.args["channel"]  # the header's «Вопрос партнёра» link
    if form.validate_on_submit():
        data = SubmissionInput(
            question=form.question.data,
            answer=form.answer.data,
            accepted=form.accepted.data,
            comment=form.comment.data,
            handout=form.handout.data,
            sources=[s for s in (form.sources.data or "").splitlines() if s.strip()],
            authors=[AuthorInput(name=form.name.data, city=form.city.data)],
            email=form.email.data or None,
            consent=True,
            channel=form.channel.data,
            postmark_date=form.postmark_date.data,
        )
        try:
            if form.scan.data and getattr(form.scan.data, "filename", ""):
                # removed by receive() if the letter is refused
                scan = form.scan.data
                data.letter_scan = store_scan(scan.read(), uploads_folder(), scan.filename)
            question = receive(data, uploads=uploads_folder())
        except ImageError as exc:
            form.scan.errors = [str(exc)]
        except SubmissionError as exc:
            for name, messages in exc.errors.items():
                field = getattr(form, name, None)
                (field.errors if field is not None else form.form_errors).extend(messages)
        else:
            qid = question.id
            label = CHANNEL_LABELS.get(form.channel.data, form.channel.data)
            flash(f"Вопрос № {qid} внесён ({label}).", "success")
            return redirect(url_for("submissions.new_letter"))
    code = 422 if form.is_submitted() else 200
    return render_template("submissions/letter.html", form=form), code


@bp.route("/editor/import", methods=["GET", "POST"])
@access("editor+")
def upload_packet():
    """Import a 4s / db.chgk.info packet from the browser (one transaction): a packet text,
    or a zip with the packet and its images, and optionally a zip of images."""
    request.max_content_length = 2 * IMPORT_MAX_BYTES + 1024 * 1024
    form = PacketUploadForm()
    if form.validate_on_submit():
        upload, images = form.packet.data, form.images.data
        name = Path(upload.filename or "packet").name[:100]
        result = import_upload(
            name,
            upload.read(),
            images.read() if images and getattr(images, "filename", "") else None,
            as_=form.as_.data,
            channel=form.channel.data,
            uploads=uploads_folder(),
            again=bool(form.again.data),
        )
        if result.already is not None:
            # nothing was imported: the page says how many are there and offers «again»
            # (the browser cannot keep the chosen file: it is chosen again)
            return render_template(
                "submissions/upload.html",
                form=form,
                imported=None,
                already=result.already,
                name=name,
            ), 409
        if result.error:
            discard()  # nothing of a refused packet is kept (its questions were flushed)
            field = form.images if result.error_in_images else form.packet
            field.errors = [f"{name}: {result.error}"]
        else:
            flash(result.message, "error" if result.missing else "success")
            return redirect(
                url_for(
                    "submissions.upload_packet",
                    imported=name,
                    status="archived" if form.as_.data == "archive" else "",
                    channel=form.channel.data,
                )
            )
    code = 422 if form.is_submitted() else 200
    return render_template("submissions/upload.html", form=form, imported=_imported()), code


def _imported() -> str | None:
    """After an import (the redirect's arguments ``imported``, ``status``, ``channel``): the
    queue's address listing that packet's questions, else None."""
    name = request.args.get("imported", "").strip()
    if not name or request.method != "GET":
        return None
    return url_for(
        "moderation.queue",
        status=request.args.get("status", ""),
        channel=request.args.get("channel", ""),
        origin=name,
    )
