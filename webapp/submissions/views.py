"""Viewer pages: the submission form, the status page, "my questions", the live form,
and the editors' intake of paper letters and packets."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError
from itsdangerous import BadSignature
from sqlalchemy.exc import IntegrityError

from webapp.app_lang import LANG_COOKIE, LANGUAGES
from webapp.core.access import access, current_staff
from webapp.core.edge import discard, on_refusal
from webapp.extensions import db, limiter
from webapp.jobs import commit, enqueue
from webapp.submissions.forms import SubmitForm
from webapp.submissions.images import MAX_BYTES
from webapp.submissions.links import my_link_token, read_confirm_token, read_my_link, signer
from webapp.submissions.models import CHANNEL_LABELS, Author, Question
from webapp.submissions.operations import (
    AuthorInput,
    SubmissionError,
    SubmissionInput,
    author_by_email,
    normalise_email,
    receive,
    withdraw,
)
from webapp.submissions.queries import by_token, public_history

bp = Blueprint("submissions", __name__)
SUBMIT_MAX_BODY = 64 * 1024 * 1024  # bytes of a submit form's body read (issue 13)


def status_labels() -> dict[str, str]:
    return {
        "received": _("Получен"),
        "in_review": _("На рассмотрении редакции"),
        "accepted": _("Принят редакцией"),
        "not_accepted": _("Не принят"),
        "used": _("Сыгран в игре"),
        "prize_owed": _("Вам положен денежный приз"),
        "paid": _("Приз выплачен"),
        "withdrawn": _("Отозван автором"),
        "archived": _("В архиве"),
    }


def uploads_folder() -> Path:
    return Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"


@bp.route("/")
@access("public")
def index():
    return render_template("submissions/index.html")


@bp.route("/lang/<code>")
@access("public")
def set_language(code: str):
    """Remember the viewer's language (cookie, one year) and go back."""
    if code not in LANGUAGES:
        abort(404)
    target = request.args.get("next", "/")
    if not target.startswith("/") or target.startswith("//"):
        target = "/"
    resp = redirect(target)
    resp.set_cookie(
        LANG_COOKIE,
        code,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
        httponly=True,
    )
    return resp


def _fresh_form_fields(form: SubmitForm) -> None:
    form.started.data = signer("form-started").dumps(time.time())
    if not form.idempotency_key.data:
        form.idempotency_key.data = secrets.token_urlsafe(24)


def _too_fast(form: SubmitForm) -> bool:
    minimum = current_app.config.get("SOVA_MIN_FILL_SECONDS", 3)
    if not minimum:
        return False
    try:
        started = signer("form-started").loads(form.started.data or "", max_age=86400)
    except BadSignature:
        return True
    return time.time() - float(started) < minimum


def viewer_language() -> str:
    """The page's language ("ru", "be" or "en"): the locale Flask-Babel picked for this
    request (``?lang=``, the ``sova_lang`` cookie, Accept-Language; Russian by default).
    Never an unchecked code, so the worker can always render the e-mail."""
    lang = str(get_locale())
    return lang if lang in LANGUAGES else "ru"


def submission_from(form: SubmitForm, channel: str = "web") -> SubmissionInput:
    upload = form.handout_image.data
    authors = [AuthorInput(name=form.name.data, city=form.city.data)]
    authors += [
        AuthorInput(name=c.form.name.data, city=c.form.city.data)
        for c in form.coauthors.entries
        if (c.form.name.data or "").strip()
    ]
    return SubmissionInput(
        question=form.question.data,
        answer=form.answer.data,
        accepted=form.accepted.data,
        comment=form.comment.data,
        handout=form.handout.data,
        sources=[s for s in (form.sources.data or "").splitlines() if s.strip()],
        authors=authors,
        email=form.email.data,
        consent=form.consent.data,
        consent_on_air=form.consent_on_air.data,
        age_confirmed=form.age_confirmed.data,
        idempotency_key=form.idempotency_key.data or None,
        handout_image=upload.read() if upload and getattr(upload, "filename", "") else None,
        language=viewer_language(),
        channel=channel,
    )


def counts_toward_limit(response) -> bool:
    """Rate limits count only submissions that were stored (the redirect to the status
    page, or the API's 201), not a viewer correcting mistakes (422), a bot page, or the
    repeat of a double click (``g.sova_new_question`` False; found by QA)."""
    return response.status_code in (201, 302) and g.get("sova_new_question", False)


def _email_bucket(typed: str) -> str:
    """Key of the per-address limit: the e-mail typed, normalised as the author is (IDN,
    case: one mailbox spelt three ways is one bucket), or the client's IP when there is no
    address (never one shared bucket for everyone without an address)."""
    typed = typed.strip()[:254]
    email = normalise_email(typed, "email", {}, required=False) or typed.lower()
    return f"email:{email}" if email else f"email-ip:{get_remote_address()}"


def _email_key() -> str:
    """:func:`_email_bucket` of the form's ``email`` field."""
    return _email_bucket(request.form.get("email", ""))


def api_email_limit_key() -> str:
    """:func:`_email_bucket` of the JSON API's ``{"email": …}``."""
    body = request.get_json(silent=True)
    return _email_bucket(str(body.get("email") or "") if isinstance(body, dict) else "")


def form_page(form: SubmitForm, code: int, notice: str | None = None):
    _fresh_form_fields(form)
    lang: dict[str, Any] = {"lang": viewer_language()} if request.args.get("lang") else {}
    action = url_for("submissions.submit", **lang)
    return render_template(
        "submissions/submit.html",
        form=form,
        notice=notice,
        action=action,
        image_max_bytes=MAX_BYTES,
    ), code


@bp.route("/submit", methods=["GET", "POST"])
@limiter.limit("30/hour;5/minute", methods=["POST"], deduct_when=lambda r: counts_toward_limit(r))
@limiter.limit(
    "10/hour",
    methods=["POST"],
    key_func=lambda: _email_key(),
    deduct_when=lambda r: counts_toward_limit(r),
)
@access("public")
def submit():
    # The form's body is read up to SUBMIT_MAX_BODY (files spool to disk), so that an image
    # over 5 MB is a field error with the text kept, not a bare 413 (JavaScript off).
    request.max_content_length = SUBMIT_MAX_BODY
    form = SubmitForm()
    if not form.is_submitted():
        return form_page(form, 200)
    if form.website.data:  # honeypot: a bot; pretend all is well, store nothing
        return render_template("submissions/thanks_bot.html"), 200
    if form.validate():
        if _too_fast(form):
            return form_page(
                form,
                422,
                _(
                    "Форма отправлена слишком быстро после открытия страницы (меньше "
                    "%(n)s с) — так делают программы-роботы, поэтому вопрос не сохранён. "
                    "Проверьте вопрос ещё раз и отправьте его.",
                    n=current_app.config.get("SOVA_MIN_FILL_SECONDS", 3),
                ),
            )
        try:
            question = receive(submission_from(form), uploads=uploads_folder())
            g.sova_new_question = question.created
        except SubmissionError as exc:
            for name, messages in exc.errors.items():
                field = getattr(form, name, None)
                if field is not None:
                    field.errors = list(field.errors) + messages
                else:
                    form.form_errors.extend(messages)
        else:
            token = question.public_token
            # The one view that ends its transaction itself (webapp.core.edge): a double
            # click's second request is refused by the database *at commit* (the unique
            # idempotency key) and answered with the first request's question.
            try:
                commit()
            except IntegrityError:
                db.session.rollback()
                again = db.session.scalar(
                    db.select(Question).filter_by(idempotency_key=form.idempotency_key.data)
                )
                if again is None:
                    raise
                token = again.public_token
            return redirect(url_for("submissions.status", token=token, new=1))
    return form_page(form, 422)


def outage_form():
    """The submit form again after a database outage (503): the viewer's text kept, the
    message says nothing was saved. Called by ``webapp.security``'s 503 handler."""
    form = SubmitForm(meta={"csrf": False})
    page, _code = form_page(
        form,
        503,
        _(
            "База данных временно недоступна, вопрос не сохранён. Ваш текст остался на этой "
            "странице — отправьте его ещё раз через минуту."
        ),
    )
    return page


@bp.record_once
def _register_outage_form(state) -> None:
    state.app.extensions.setdefault("sova_outage_forms", {})["submissions.submit"] = outage_form


@bp.app_errorhandler(413)
def too_large(exc):
    """A body over even the submit form's own limit (``SUBMIT_MAX_BODY``, JavaScript off):
    the form again with a clear message instead of a bare 413. Its text could not be read
    (the body was refused unread)."""
    if request.endpoint == "submissions.submit":
        return form_page(
            SubmitForm(formdata=None, meta={"csrf": False}),
            413,
            _(
                "Отправка слишком большая (больше %(n)s МБ): вопрос не получен. Уменьшите "
                "изображение (до 5 МБ) и отправьте вопрос ещё раз.",
                n=SUBMIT_MAX_BODY // (1024 * 1024),
            ),
        )
    if request.path.startswith("/api/"):
        return current_app.extensions["sova_api_error"](exc)
    return render_template("error.html", error=exc), 413


@bp.errorhandler(CSRFError)
def csrf_expired(exc):
    """An expired or missing CSRF token on the viewer form: the form again, text kept."""
    if request.endpoint == "submissions.submit":
        form = SubmitForm()  # not validated: only re-rendered with a fresh token
        return form_page(
            form,
            400,
            _("Страница была открыта слишком долго. Проверьте вопрос и отправьте его ещё раз."),
        )
    return render_template("error.html", error=exc), 400


@bp.app_errorhandler(429)
def too_many(exc):
    """A rate-limited viewer gets the form back with their text."""
    if request.endpoint == "submissions.submit":
        form = SubmitForm(meta={"csrf": False})
        return form_page(
            form,
            429,
            _(
                "Слишком много отправок. Подождите немного и "
                "попробуйте снова — ваш текст сохранён на этой странице."
            ),
        )
    if request.path.startswith("/api/"):
        return current_app.extensions["sova_api_error"](exc)
    return render_template("error.html", error=exc), 429


@bp.route("/status/<token>")
@access("public")
def status(token: str):
    question = by_token(token)
    if question is None:
        abort(404)
    history = public_history(question)
    return render_template(
        "submissions/status.html", question=question, history=history, labels=status_labels()
    )


@bp.route("/confirm/<token>")
@limiter.limit("30/hour")
@access("public")
def confirm(token: str):
    """The e-mailed link of a new question: confirms that the question is by the owner of
    the address (its link to the author), so it shows in their «Мои вопросы»; then the
    question's status page. Valid ``links.CONFIRM_LINK_AGE``; repeating it changes nothing."""
    data = read_confirm_token(token)
    if data is None:
        return render_template("submissions/my_expired.html"), 410
    from webapp.submissions.operations import confirm_authorship

    question = db.session.get(Question, data.get("q"))
    if question is None or not confirm_authorship(question, data.get("a")):
        return render_template("submissions/my_expired.html"), 410
    return redirect(url_for("submissions.status", token=question.public_token))


# --- "my questions": a one-time e-mail link, no passwords -----------------------------


@bp.route("/my", methods=["GET", "POST"])
@limiter.limit("10/hour", methods=["POST"])
@limiter.limit(
    "3/hour",
    methods=["POST"],
    key_func=lambda: "my-email:" + (request.form.get("email", "").strip().lower()[:254]),
)
@access("public")
def my_request():
    from webapp.submissions.forms_my import MyLinkForm

    form = MyLinkForm()
    if form.validate_on_submit():
        author = author_by_email(form.email.data)
        if author is not None:
            # the page's language travels as its index in LANGUAGES (tasks take ints)
            enqueue("notify.my_link", author.id, LANGUAGES.index(viewer_language()))
        # the same answer whether or not the address is known (no enumeration)
        flash(
            _("Если этот адрес есть у нас, мы отправили на него ссылку на ваши вопросы."), "success"
        )
        return redirect(url_for("submissions.my_request"))
    return render_template("submissions/my_request.html", form=form)


@bp.route("/my/<token>")
@limiter.limit("30/hour")
@access("public")
def my_open(token: str):
    data = read_my_link(token)
    if data is None:
        return render_template("submissions/my_expired.html"), 410
    author = db.session.get(Author, data.get("a"))
    if author is None or author.link_version != data.get("v"):
        return render_template("submissions/my_expired.html"), 410
    author.link_version += 1  # one-time
    session["author_id"] = author.id
    return redirect(url_for("submissions.my_questions"))


@bp.route("/my/questions")
@access("public")
def my_questions():
    author_id = session.get("author_id")
    if not author_id:
        return redirect(url_for("submissions.my_request"))
    from webapp.submissions.forms_my import WithdrawForm
    from webapp.submissions.models import QuestionAuthor

    # only confirmed links: anyone can type this address into the form (issue 13)
    questions = db.session.scalars(
        db.select(Question)
        .join(QuestionAuthor)
        .where(QuestionAuthor.author_id == author_id, QuestionAuthor.confirmed_at.is_not(None))
        .order_by(Question.created_at.desc())
    ).all()
    return render_template(
        "submissions/my_questions.html",
        questions=questions,
        history={q.id: public_history(q) for q in questions},
        labels=status_labels(),
        form=WithdrawForm(),
    )


@bp.route("/my/questions/<int:question_id>/withdraw", methods=["POST"])
@access("public")
def my_withdraw(question_id: int):
    from webapp.submissions.forms_my import WithdrawForm

    author_id = session.get("author_id")
    question = db.session.get(Question, question_id)
    if not author_id or question is None:
        abort(404)
    if WithdrawForm().validate_on_submit():

        def refused(exc):
            flash("; ".join(m for ms in exc.errors.values() for m in ms), "error")
            return redirect(url_for("submissions.my_questions"))

        on_refusal(respond=refused)
        withdraw(question, author_id)
        flash(_("Вопрос отозван."), "success")
    return redirect(url_for("submissions.my_questions"))


# --- staff: handout images ------------------------------------------------------------


@bp.route("/uploads/<name>")
@access("editor+|producer|host")
def upload(name: str):
    """A viewer's handout image, to staff only (never from the web root)."""
    from flask import send_from_directory

    if not current_staff() or "/" in name or name.startswith("."):
        abort(404)
    return send_from_directory(uploads_folder(), name)


__all__ = ["bp", "my_link_token", "normalise_email"]


# --- staff: paper letters, partner questions, packet upload ---------------------------


@bp.route("/editor/letters/new", methods=["GET", "POST"])
@access("editor+")
def new_letter():
    """An editor types in a paper letter (channel ``mail``, postmark date, scan) or a
    partner's question (channel ``partner``); the same pipeline as the web form."""
    from webapp.submissions.forms import LetterForm
    from webapp.submissions.images import ImageError, store_image

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
                scan = store_image(form.scan.data.read(), uploads_folder() / "letters")
                data.letter_scan = f"letters/{scan}"  # removed by receive() if refused
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
    from webapp.submissions.forms import IMPORT_MAX_BYTES, PacketUploadForm
    from webapp.submissions.packet_images import import_upload

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
        )
        if result.error:
            discard()  # nothing of a refused packet is kept (its questions were flushed)
            field = form.images if result.error_in_images else form.packet
            field.errors = [f"{name}: {result.error}"]
        else:
            flash(result.message, "error" if result.missing else "success")
            return redirect(url_for("submissions.upload_packet"))
    code = 422 if form.is_submitted() else 200
    return render_template("submissions/upload.html", form=form), code
