"""The author's own pages, beside the archive: a question's status page (``/status/<token>``)
and «Мои вопросы» (``/my``: a one-time e-mail link, no passwords; the list and withdrawing a
question). Blueprint ``viewer``. What they show of a question is its public history
(:mod:`webapp.archive.history`) and, once its game has aired, its archive entry
(:func:`webapp.archive.queries.archive_entry`)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

from webapp.app_lang import LANGUAGES
from webapp.archive.history import public_history, withdraw_offered
from webapp.archive.queries import archive_entry
from webapp.core.access import access
from webapp.core.edge import on_refusal
from webapp.extensions import db, limiter
from webapp.submissions.forms_my import MyLinkForm, WithdrawForm
from webapp.submissions.links import read_my_link
from webapp.submissions.models import Author, Question, QuestionAuthor
from webapp.submissions.operations import author_by_email, withdraw
from webapp.submissions.queries import by_token
from webapp.submissions.tasks import MY_LINK
from webapp.submissions.views import lang_arg, viewer_language
from webapp.tasks.outbox import enqueue

bp = Blueprint("viewer", __name__)


def status_labels() -> dict[str, str]:
    """The author's words for each public status (:data:`webapp.archive.history.PUBLIC_STATUS`)
    and prize event."""
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

    form = MyLinkForm()
    if form.validate_on_submit():
        author = author_by_email(form.email.data)
        if author is not None:
            # the page's language travels as its index in LANGUAGES (tasks take ints)
            enqueue(MY_LINK, author.id, LANGUAGES.index(viewer_language()))
        # the same answer whether or not the address is known (no enumeration)
        flash(
            _("Если этот адрес есть у нас, мы отправили на него ссылку на ваши вопросы."), "success"
        )
        return redirect(url_for("viewer.my_request"))
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
    return redirect(url_for("viewer.my_questions", **lang_arg()))  # the e-mail's language


@bp.route("/my/questions")
@access("public")
def my_questions():
    author_id = session.get("author_id")
    if not author_id:
        return redirect(url_for("viewer.my_request"))

    # only confirmed links: anyone can type this address into the form
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
        # once a question's game has aired: the game, the outcome, the viewer's prize
        aired={q.id: archive_entry(q, author_id) for q in questions},
        labels=status_labels(),
        # «Отозвать вопрос» changes only at the air, never when a game takes the question
        offered={q.id: withdraw_offered(q) for q in questions},
        form=WithdrawForm(),
    )


@bp.route("/my/questions/<int:question_id>/withdraw", methods=["GET", "POST"])
@access("public")
def my_withdraw(question_id: int):
    """GET: «Отозвать вопрос?» — the question, what withdrawing means (it cannot be undone)
    and the button that does it (the list's «Отозвать вопрос» only leads here). POST: the
    withdrawal (:func:`withdraw`), then the list with a message."""
    author_id = session.get("author_id")
    question = db.session.get(Question, question_id)
    if not author_id or question is None:
        abort(404)
    if request.method == "GET":
        if author_id not in {qa.author_id for qa in question.authors if qa.confirmed_at}:
            abort(404)
        if not withdraw_offered(question):
            return redirect(url_for("viewer.my_questions"))
        return render_template(
            "submissions/withdraw_confirm.html", question=question, form=WithdrawForm()
        )
    if WithdrawForm().validate_on_submit():

        def refused(exc):
            flash("; ".join(m for ms in exc.errors.values() for m in ms), "error")
            return redirect(url_for("viewer.my_questions"))

        on_refusal(respond=refused)
        withdraw(question, author_id)
        flash(_("Вопрос отозван."), "success")
    return redirect(url_for("viewer.my_questions"))
