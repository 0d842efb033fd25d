"""Editor pages: the queue (filters, search, claims, shortcuts), a question with its
pre-check report and duplicates, claiming, and the chief editor's audited author reveal."""

from __future__ import annotations

import difflib

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from webapp.core.access import access, current_staff
from webapp.jobs import commit
from webapp.moderation import queries
from webapp.moderation.forms import (
    STATUS_LABELS,
    ButtonForm,
    DecisionForm,
    QueueFilterForm,
)
from webapp.moderation.operations import (
    ClaimConflict,
    ModerationError,
    claim,
    claim_holder,
    decide,
    release,
    reveal_authors,
)

bp = Blueprint("moderation", __name__, url_prefix="/editor")

# (key, what it does) — listed on the pages and handled by static/moderation.js.
SHORTCUTS = [("j", "следующий вопрос"), ("k", "предыдущий вопрос"), ("c", "взять в работу"),
             ("a", "одобрить"), ("r", "отклонить"), ("q", "к очереди")]


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


def queue_filter(form: QueueFilterForm) -> queries.QueueFilter:
    """The validated filters of the GET form (invalid fields are ignored)."""
    form.validate()
    def ok(field):
        return None if field.errors or field.data in (None, "") else field.data
    return queries.QueueFilter(
        status=ok(form.status), channel=ok(form.channel),
        city=(form.city.data or "").strip() or None if not form.city.errors else None,
        flag=ok(form.flag), min_score=ok(form.min_score),
        older_than_days=ok(form.older_than_days), newer_than_days=ok(form.newer_than_days),
        search=(form.q.data or "").strip() or None if not form.q.errors else None,
        sort=ok(form.sort) or "oldest")


@bp.route("/queue")
@access("editor+")
def queue():
    args = request.args.copy()
    if "status" not in args:
        args["status"] = "in_review"
    form = QueueFilterForm(formdata=args)
    f = queue_filter(form)
    page = request.args.get("page", 1, type=int)
    items, pages = queries.queue(page=page, filters=f)
    page = min(max(1, page), pages)
    ids = [q.id for q in items]
    keep = {k: v for k, v in args.items() if k != "page" and v != ""}
    return render_template("moderation/queue.html", items=items, pages=pages, page=page,
                           form=form, reports=queries.reports_for(ids),
                           claims=queries.claims_for(ids), keep=keep,
                           labels=STATUS_LABELS, shortcuts=SHORTCUTS,
                           me=current_staff().id)


def _render_question(q, form, revealed=None):
    report = queries.latest_report(q.id)
    duplicates = []
    for cand in (report.duplicates if report else []):
        other = queries.question(cand["question_id"])
        if other is not None:
            left, right = marked_diff(q.text, other.text)
            duplicates.append({"score": cand["score"], "other": other, "left": left,
                               "right": right})
    prev_id, next_id = queries.neighbours(q)
    holder = claim_holder(q.id)
    return render_template("moderation/question.html", q=q, report=report, form=form,
                           duplicates=duplicates, prev_id=prev_id, next_id=next_id,
                           holder=holder, me=current_staff().id, button=ButtonForm(),
                           revealed=revealed, labels=STATUS_LABELS, shortcuts=SHORTCUTS,
                           can_reveal=current_staff().role in ("chief_editor", "admin"))


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
    return _render_question(q, form)


@bp.route("/questions/<int:question_id>/claim", methods=["POST"])
@access("editor+")
def claim_question(question_id: int):
    if queries.question(question_id) is None or not ButtonForm().validate_on_submit():
        abort(404 if queries.question(question_id) is None else 400)
    try:
        claim(question_id, current_staff().id)
    except ClaimConflict:
        flash("Вопрос уже взят другим редактором.", "error")
    else:
        commit()
        flash("Вопрос взят в работу.", "success")
    return redirect(url_for("moderation.question", question_id=question_id))


@bp.route("/questions/<int:question_id>/release", methods=["POST"])
@access("editor+")
def release_question(question_id: int):
    if queries.question(question_id) is None:
        abort(404)
    if not ButtonForm().validate_on_submit():
        abort(400)
    release(question_id, current_staff().id)
    commit()
    flash("Вопрос освобождён.", "success")
    return redirect(url_for("moderation.question", question_id=question_id))


@bp.route("/questions/<int:question_id>/reveal", methods=["POST"])
@access("chief_editor")
def reveal(question_id: int):
    """Blind moderation: only a chief editor sees the authors, and each reveal is audited."""
    q = queries.question(question_id)
    if q is None:
        abort(404)
    if not ButtonForm().validate_on_submit():
        abort(400)
    revealed = reveal_authors(q, current_staff().id)
    commit()
    return _render_question(q, DecisionForm(formdata=None), revealed=revealed)
