"""The viewer's pages besides the form: the index, the language, the authorship link."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from webapp.app_lang import LANG_COOKIE, LANGUAGES
from webapp.core.access import access
from webapp.core.redirects import local_path
from webapp.domain.text import quantity
from webapp.extensions import db, limiter
from webapp.submissions.links import CONFIRM_LINK_AGE, read_confirm_token
from webapp.submissions.models import Question
from webapp.submissions.operations import confirm_authorship
from webapp.submissions.views.common import bp, lang_arg


@bp.route("/")
@access("public")
def index():
    return render_template("submissions/index.html")


@bp.route("/lang/<code>")
@access("public")
def set_language(code: str):
    """Remember the viewer's language (cookie, one year) and go back to ``next`` when it is a
    path of this site (:func:`webapp.core.redirects.local_path`), else to the home page."""
    if code not in LANGUAGES:
        abort(404)
    resp = redirect(local_path(request.args.get("next")) or "/")
    resp.set_cookie(
        LANG_COOKIE,
        code,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
        httponly=True,
    )
    return resp


@bp.route("/confirm/<token>")
@limiter.limit("30/hour")
@access("public")
def confirm(token: str):
    """The e-mailed link of a new question: confirms that the question is by the owner of
    the address (its link to the author), so it shows in their «Мои вопросы»; then the
    question's status page, saying so, in the e-mail's language (its ``?lang=``). Valid
    ``links.CONFIRM_LINK_AGE``, as often as opened (repeating it changes nothing); a bad
    or older link: 410, a page that says how long the link works."""
    data = read_confirm_token(token)
    question = db.session.get(Question, data.get("q")) if data is not None else None
    if question is None or not confirm_authorship(question, data.get("a") if data else None):
        days = CONFIRM_LINK_AGE // 86400
        forms = CONFIRM_DAYS.get(str(get_locale()), CONFIRM_DAYS["ru"])
        return render_template("submissions/confirm_expired.html", days=quantity(days, forms)), 410
    flash(_("Адрес подтверждён: этот вопрос теперь есть в разделе «Мои вопросы»."), "success")
    return redirect(url_for("viewer.status", token=question.public_token, **lang_arg()))


#: Days as each language counts them (:func:`webapp.domain.text.quantity`).
CONFIRM_DAYS = {
    "ru": ("день", "дня", "дней"),
    "be": ("дзень", "дні", "дзён"),
    "en": ("day", "days"),
}
