"""The submission form: the page, its anti-bot checks, its rate-limit keys, and the form again
for a body too large (413), an expired CSRF token, a rate limit (429), an outage (503).

Two pages render this form (:data:`VIEWER_FORMS`): ``/submit`` (channel ``web``) and the 2009
live form ``/live`` (channel ``live``, :mod:`webapp.live.views`). Every rendering of either —
first page, field errors, 413/429/503/expired-token pages, ``?lang=`` — posts back to the
page it came from (:func:`form_page`), so a live question stays a live question."""

from __future__ import annotations

import secrets
import time
from typing import Any

from flask import (
    abort,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFError
from itsdangerous import BadSignature
from sqlalchemy.exc import IntegrityError

from webapp.app_lang import LANGUAGES
from webapp.core.access import access
from webapp.core.redirects import local_path
from webapp.extensions import db, limiter
from webapp.security import retry_after
from webapp.submissions.forms import SubmitForm
from webapp.submissions.images import (
    KEPT_IMAGE_AGE,
    MAX_BYTES,
    PENDING,
    ImageError,
    discard_kept_image,
    keep_image,
    kept_image_path,
)
from webapp.submissions.links import signer
from webapp.submissions.models import Question
from webapp.submissions.operations import (
    AuthorInput,
    SubmissionError,
    SubmissionInput,
    normalise_email,
    receive,
)
from webapp.submissions.views.common import SUBMIT_MAX_BODY, bp, uploads_folder
from webapp.tasks.outbox import commit

#: Endpoints whose page is the viewer's submission form → the channel its questions get.
VIEWER_FORMS = {"submissions.submit": "web", "live.live": "live"}


def form_endpoint() -> str:
    """The form page this request belongs to (a key of :data:`VIEWER_FORMS`): the request's
    own endpoint when it is one, else ``/submit``'s."""
    return request.endpoint if request.endpoint in VIEWER_FORMS else "submissions.submit"


#: Seconds a form's signed start time is read (a page left open longer starts anew).
FORM_STARTED_AGE = 86400


def _started_at(form: SubmitForm) -> float | None:
    """When the viewer first opened this form (seconds since the epoch): the signed
    ``started`` field, if Sova signed it less than :data:`FORM_STARTED_AGE` ago; else None."""
    try:
        started = signer("form-started").loads(form.started.data or "", max_age=FORM_STARTED_AGE)
    except BadSignature:
        return None
    return float(started) if isinstance(started, int | float) else None


def _fresh_form_fields(form: SubmitForm) -> None:
    """The anti-bot fields of a page of the form: the start time stays the first opening's
    (an error page does not start the minimum fill time again), and the idempotency key
    stays the form's."""
    if _started_at(form) is None:
        form.started.data = signer("form-started").dumps(time.time())
    if not form.idempotency_key.data:
        form.idempotency_key.data = secrets.token_urlsafe(24)


def _too_fast(form: SubmitForm) -> bool:
    """Sent less than ``SOVA_MIN_FILL_SECONDS`` (default 3) after the form was first
    opened, or without a valid start time: a robot's timing."""
    minimum = current_app.config.get("SOVA_MIN_FILL_SECONDS", 3)
    if not minimum:
        return False
    started = _started_at(form)
    return started is None or time.time() - started < minimum


def viewer_language() -> str:
    """The page's language ("ru", "be" or "en"): the locale Flask-Babel picked for this
    request (``?lang=``, the ``sova_lang`` cookie, Accept-Language; Russian by default).
    Never an unchecked code, so the worker can always render the e-mail."""
    lang = str(get_locale())
    return lang if lang in LANGUAGES else "ru"


KEPT_IMAGE_SALT = "kept-image"


def kept_image_token(name: str, form_key: str) -> str:
    """The signed token of the hidden field ``handout_upload``: the kept image ``name``,
    bound to the form's ``idempotency_key``. The page never carries a path: a token names a
    file only if Sova signed it."""
    return signer(KEPT_IMAGE_SALT).dumps({"f": name, "k": form_key})


def kept_image_name(token: str | None, form_key: str | None = None) -> str | None:
    """The kept image a token names (:func:`kept_image_token`): signed by Sova, younger
    than ``images.KEPT_IMAGE_AGE``, of this form (``form_key``; None: any form) and
    still stored; else None."""
    if not token:
        return None
    try:
        data = signer(KEPT_IMAGE_SALT).loads(token, max_age=KEPT_IMAGE_AGE)
    except BadSignature:
        return None
    if not isinstance(data, dict) or (form_key is not None and data.get("k") != form_key):
        return None
    name = data.get("f")
    if not isinstance(name, str) or kept_image_path(uploads_folder(), name) is None:
        return None
    return name


def _keep_handout_image(form: SubmitForm) -> str | None:
    """The handout image of this send, kept server-side so that an error page does not
    lose it: a newly attached file (verified, re-encoded and kept; it replaces the one
    kept before; a bad file is the field's error), else the image kept from an earlier
    send unless the viewer ticked «убрать». Sets the form's ``handout_upload`` to the
    kept image's token (empty without one) and returns its name."""
    uploads = uploads_folder()
    if not form.idempotency_key.data:  # the kept image is bound to the form's key
        form.idempotency_key.data = secrets.token_urlsafe(24)
    key = form.idempotency_key.data
    kept = kept_image_name(form.handout_upload.data, key)
    upload = form.handout_image.data
    if upload and getattr(upload, "filename", "") and not form.handout_image.errors:
        try:
            new = keep_image(upload.read(), uploads)
        except ImageError as exc:
            form.handout_image.errors = [*form.handout_image.errors, str(exc)]
        else:
            discard_kept_image(uploads, kept)
            kept = new
    elif form.handout_image_remove.data and kept:
        discard_kept_image(uploads, kept)
        kept = None
    form.handout_image_remove.data = False
    form.handout_upload.data = kept_image_token(kept, key) if kept else ""
    return kept


@bp.route("/submit/image/<token>")
@access("public")
def kept_image(token: str):
    """The image kept on the viewer's form (``<img>`` of the form page), to whoever holds
    its token (only that page has it); 404 for any other token. Never cached."""
    name = kept_image_name(token)
    if name is None:
        abort(404)
    response = send_from_directory(uploads_folder() / PENDING, name, max_age=0)
    response.headers["Cache-Control"] = "private, no-store"
    return response


def submission_from(
    form: SubmitForm,
    channel: str = "web",
    live_game_id: int | None = None,
    kept: str | None = None,
) -> SubmissionInput:
    """The submission of a validated form; ``kept``: the name of its kept handout image
    (:func:`_keep_handout_image`), which then stands for the attached file."""
    upload = None if kept else form.handout_image.data
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
        handout_image_kept=kept,
        language=viewer_language(),
        channel=channel,
        live_game_id=live_game_id,
    )


def counts_toward_limit(response) -> bool:
    """Rate limits count only submissions that were stored (the redirect to the status
    page, or the API's 201), not a viewer correcting mistakes (422), a bot page, or the
    repeat of a double click (``g.sova_new_question`` False)."""
    return response.status_code in (201, 302) and g.get("sova_new_question", False)


def _email_bucket(typed: str) -> str:
    """Key of the per-address limit: the e-mail typed, normalised as the author is (IDN,
    case: one mailbox spelt three ways is one bucket), or the client's IP when there is no
    address (never one shared bucket for everyone without an address)."""
    typed = typed.strip()[:254]
    email = normalise_email(typed, "email", {}, required=False) or typed.lower()
    return f"email:{email}" if email else f"email-ip:{get_remote_address()}"


def email_key() -> str:
    """:func:`_email_bucket` of the form's ``email`` field."""
    return _email_bucket(request.form.get("email", ""))


def api_email_limit_key() -> str:
    """:func:`_email_bucket` of the JSON API's ``{"email": …}``."""
    body = request.get_json(silent=True)
    return _email_bucket(str(body.get("email") or "") if isinstance(body, dict) else "")


def form_page(form: SubmitForm, code: int, notice: str | None = None, endpoint: str | None = None):
    """``(page, code)``: the submission form with fresh anti-bot fields. It posts back to
    ``endpoint`` (a key of :data:`VIEWER_FORMS`; default :func:`form_endpoint`, the page
    this request came to), keeping ``?lang=`` when the viewer chose a language; the live
    form (``live.live``) says so in its heading."""
    endpoint = endpoint or form_endpoint()
    _fresh_form_fields(form)
    lang: dict[str, Any] = {"lang": viewer_language()} if request.args.get("lang") else {}
    action = url_for(endpoint, **lang)
    token = form.handout_upload.data
    if not kept_image_name(token, form.idempotency_key.data):
        token = form.handout_upload.data = ""
    return render_template(
        "submissions/submit.html",
        form=form,
        notice=notice,
        action=action,
        live=VIEWER_FORMS.get(endpoint) == "live",
        image_max_bytes=MAX_BYTES,
        kept_image=url_for("submissions.kept_image", token=token) if token else None,
    ), code


@bp.route("/submit", methods=["GET", "POST"])
@limiter.limit("30/hour;5/minute", methods=["POST"], deduct_when=lambda r: counts_toward_limit(r))
@limiter.limit(
    "10/hour",
    methods=["POST"],
    key_func=lambda: email_key(),
    deduct_when=lambda r: counts_toward_limit(r),
)
@access("public")
def submit():
    # The body is read up to SUBMIT_MAX_BODY (see _submit_body_limit).
    return handle_form("web")


def handle_form(channel: str, live_game_id: int | None = None):
    """The viewer form's GET and POST on the current page (:func:`form_endpoint`): the
    honeypot, validation, the handout image kept for an error page
    (:func:`_keep_handout_image`), the too-fast check, :func:`receive` with ``channel`` (and
    ``live_game_id`` for a live question), the one commit, then the redirect to the
    status page; the form again (422) on any error."""
    form = SubmitForm()
    if not form.is_submitted():
        return form_page(form, 200)
    if form.website.data:  # honeypot: a bot; pretend all is well, store nothing
        return render_template("submissions/thanks_bot.html"), 200
    valid = form.validate()
    kept = _keep_handout_image(form)  # before any answer: an error page keeps the image
    if valid and not form.handout_image.errors:
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
            question = receive(
                submission_from(form, channel, live_game_id, kept), uploads=uploads_folder()
            )
            g.sova_new_question = question.created
        except SubmissionError as exc:
            for name, messages in exc.errors.items():
                field = getattr(form, name, None)
                # a hidden field's fault is the form's: the summary names no box for it
                if field is not None and field.type != "HiddenField":
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
            discard_kept_image(uploads_folder(), kept)  # the question has its own copy
            # a resend is told as one (the question was not stored twice); a double click
            # is the one question the viewer sent
            if question.resent:
                return redirect(url_for("viewer.status", token=token, again=1))
            return redirect(url_for("viewer.status", token=token, new=1))
    return form_page(form, 422)


def _submit_body_limit() -> None:
    """The submit form's body is read up to SUBMIT_MAX_BODY (files spool to disk), so that
    an image over 5 MB is a field error with the text kept, not a bare 413 (JavaScript
    off). Set before any other ``before_request`` function: the rate limit's e-mail key
    and the CSRF check read the form before the view runs, and under the app's 8 MB
    ``MAX_CONTENT_LENGTH`` a larger body would be a 413 with the text lost. A text field may be as long as the body (``max_form_memory_size``;
    Werkzeug's default refuses a field over 500 KB with a 413): a pasted 480 000-character
    question is the field's length error with the other fields kept."""
    if request.endpoint in VIEWER_FORMS:
        request.max_content_length = SUBMIT_MAX_BODY
        request.max_form_memory_size = SUBMIT_MAX_BODY


@bp.record_once
def _register_body_limit(state) -> None:
    state.app.before_request_funcs.setdefault(None, []).insert(0, _submit_body_limit)


def outage_form():
    """The submit form again after a database outage (503): the viewer's text kept, the
    message says nothing was saved. Called by ``webapp.security``'s 503 handler. Like every
    page of the form this one shows, it carries a fresh CSRF token, so sending it again
    works rather than failing the CSRF check with a 400."""
    form = SubmitForm()  # not validated: only re-rendered with a fresh token
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
    forms = state.app.extensions.setdefault("sova_outage_forms", {})
    for endpoint in VIEWER_FORMS:
        forms[endpoint] = outage_form


@bp.app_errorhandler(413)
def too_large(exc):
    """A body over even the submit form's own limit (``SUBMIT_MAX_BODY``, JavaScript off):
    the form again with a clear message instead of a bare 413. Its text could not be read
    (the body was refused unread)."""
    if request.endpoint in VIEWER_FORMS:
        return form_page(
            SubmitForm(formdata=None),
            413,
            _(
                "Отправка слишком большая (больше %(n)s МБ): вопрос не получен. Уменьшите "
                "изображение (до 5 МБ) и отправьте вопрос ещё раз.",
                n=SUBMIT_MAX_BODY // (1024 * 1024),
            ),
        )
    if request.path.startswith("/api/"):
        return current_app.extensions["sova_api_error"](exc)
    # any other form (a staff upload): the limit, and the way back to the page it was sent
    # from, when that is a page of ours (the one check of every target: local_path)
    referrer, ours = request.referrer or "", request.host_url
    here = referrer.startswith(ours) and local_path("/" + referrer[len(ours) :])
    back = referrer if here else None
    limit = current_app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
    return render_template("error.html", error=exc, limit_mb=limit, back=back), 413


@bp.errorhandler(CSRFError)
def csrf_expired(exc):
    """An expired or missing CSRF token on the viewer form: the form again, text kept
    (also the live form's handler, :mod:`webapp.live.views`)."""
    if request.endpoint in VIEWER_FORMS:
        form = SubmitForm()  # not validated: only re-rendered with a fresh token
        return form_page(
            form,
            400,
            _("Страница была открыта слишком долго. Проверьте вопрос и отправьте его ещё раз."),
        )
    return render_template("error.html", error=exc), 400


@bp.app_errorhandler(429)
def too_many(exc):
    """A rate-limited viewer gets the form back with their text; every 429 says when to
    come back (``Retry-After``, :func:`webapp.security.retry_after`)."""
    if request.endpoint in VIEWER_FORMS:
        form = SubmitForm()  # not validated: only re-rendered with a fresh token
        answer = form_page(
            form,
            429,
            _(
                "Слишком много отправок. Подождите немного и "
                "попробуйте снова — ваш текст сохранён на этой странице."
            ),
        )
    elif request.path.startswith("/api/"):
        answer = current_app.extensions["sova_api_error"](exc)
    else:
        answer = render_template("error.html", error=exc), 429
    response = make_response(answer)
    seconds = retry_after()
    if seconds is not None:
        response.headers["Retry-After"] = seconds
    return response
