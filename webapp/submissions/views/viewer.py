"""The viewer's pages besides the form: the index, the language, the status page, the
authorship link."""

from __future__ import annotations

from flask import abort, current_app, redirect, render_template, request, url_for

from webapp.app_lang import LANG_COOKIE, LANGUAGES
from webapp.core.access import access
from webapp.core.redirects import local_path
from webapp.extensions import db, limiter
from webapp.submissions.links import read_confirm_token
from webapp.submissions.models import Question
from webapp.submissions.operations import confirm_authorship
from webapp.submissions.queries import by_token, public_history
from webapp.submissions.views.common import bp, status_labels


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

    question = db.session.get(Question, data.get("q"))
    if question is None or not confirm_authorship(question, data.get("a")):
        return render_template("submissions/my_expired.html"), 410
    return redirect(url_for("submissions.status", token=question.public_token))
