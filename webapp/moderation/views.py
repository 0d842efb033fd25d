"""Editor pages: the queue, a question with its pre-check report and duplicates."""

from __future__ import annotations

import difflib

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from webapp.core.access import access, current_staff
from webapp.jobs import commit
from webapp.moderation import queries
from webapp.moderation.forms import DecisionForm
from webapp.moderation.operations import ModerationError, decide

bp = Blueprint("moderation", __name__, url_prefix="/editor")


def marked_diff(a: str, b: str) -> tuple[Markup, Markup]:
    """Both texts, escaped, with word differences wrapped in <del>/<ins>."""
    wa, wb = a.split(), b.split()
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=wa, b=wb, autojunk=False).get_opcodes():
        ta, tb = escape(" ".join(wa[i1:i2])), escape(" ".join(wb[j1:j2]))
        if op == "equal":
            left.append(ta)
            right.append(tb)
        else:
            if ta:
                left.append(Markup("<del>%s</del>") % ta)
            if tb:
                right.append(Markup("<ins>%s</ins>") % tb)
    return Markup(" ").join(left), Markup(" ").join(right)


@bp.route("/queue")
@access("editor+")
def queue():
    status = request.args.get("status", "in_review") or None
    channel = request.args.get("channel") or None
    page = request.args.get("page", 1, type=int)
    items, pages = queries.queue(status=status, channel=channel, page=page)
    reports = queries.reports_for([q.id for q in items])
    return render_template("moderation/queue.html", items=items, pages=pages, page=page,
                           status=status, channel=channel, reports=reports)


@bp.route("/questions/<int:question_id>", methods=["GET", "POST"])
@access("editor+")
def question(question_id: int):
    q = queries.question(question_id)
    if q is None or q.status == "archived" and request.method == "POST":
        abort(404)
    form = DecisionForm()
    if form.validate_on_submit():
        try:
            decide(q, form.decision.data, current_staff().id, form.reason.data)
        except ModerationError as exc:
            flash(str(exc), "error")
        else:
            commit()
            flash("Вопрос одобрен." if form.decision.data == "approve" else "Вопрос отклонён.",
                  "success")
            nxt, _ = queries.queue(status="in_review", per_page=1)
            if nxt:
                return redirect(url_for("moderation.question", question_id=nxt[0].id))
            return redirect(url_for("moderation.queue"))
    report = queries.latest_report(q.id)
    duplicates = []
    for cand in (report.duplicates if report else []):
        other = queries.question(cand["question_id"])
        if other is not None:
            left, right = marked_diff(q.text, other.text)
            duplicates.append({"score": cand["score"], "other": other, "left": left,
                               "right": right})
    return render_template("moderation/question.html", q=q, report=report, form=form,
                           duplicates=duplicates)
