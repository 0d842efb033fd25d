"""Viewer pages: the submission form and the status page behind an unguessable link."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for

from webapp.core.access import access
from webapp.jobs import commit
from webapp.submissions.forms import SubmitForm
from webapp.submissions.operations import AuthorInput, SubmissionError, SubmissionInput, receive
from webapp.submissions.queries import by_token, public_history

bp = Blueprint("submissions", __name__)

STATUS_LABELS = {
    "received": "Получен",
    "in_review": "На рассмотрении редакции",
    "accepted": "Принят редакцией",
    "not_accepted": "Не принят",
    "used": "Сыгран в игре",
    "withdrawn": "Отозван автором",
    "archived": "В архиве",
}


@bp.route("/")
@access("public")
def index():
    return render_template("submissions/index.html")


@bp.route("/submit", methods=["GET", "POST"])
@access("public")
def submit():
    form = SubmitForm()
    if form.validate_on_submit():
        data = SubmissionInput(
            question=form.question.data, answer=form.answer.data,
            accepted=form.accepted.data, comment=form.comment.data,
            sources=[s for s in (form.sources.data or "").splitlines() if s.strip()],
            authors=[AuthorInput(name=form.name.data, city=form.city.data)],
            email=form.email.data, consent=form.consent.data, channel="web",
        )
        try:
            question = receive(data)
        except SubmissionError as exc:
            for name, messages in exc.errors.items():
                field = getattr(form, name, None)
                if field is not None:
                    field.errors = list(field.errors) + messages
                else:
                    form.form_errors.extend(messages)
        else:
            token = question.public_token
            commit()
            return redirect(url_for("submissions.status", token=token, new=1))
    status_code = 422 if form.is_submitted() else 200
    return render_template("submissions/submit.html", form=form), status_code


@bp.route("/status/<token>")
@access("public")
def status(token: str):
    question = by_token(token)
    if question is None:
        abort(404)
    history = public_history(question)
    return render_template("submissions/status.html", question=question, history=history,
                           labels=STATUS_LABELS)
