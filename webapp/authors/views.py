"""The chief editor's author pages: likely matches, one author, the
merge (preview, then the audited merge), and the confirmation of a question's author line.
Blind moderation: author data is for chief editors (and admins) only,
like the reveal on the question page (``webapp.moderation.views.sees_authors``)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from webapp.authors import queries
from webapp.authors.forms import ButtonForm, MergeForm
from webapp.authors.operations import AuthorError, confirm_author, merge_authors, plan_merge
from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.redirects import local_path
from webapp.domain.authors import REASONS_RU
from webapp.extensions import db
from webapp.submissions.models import Author, Question

bp = Blueprint("authors", __name__, url_prefix="/editor/authors")


@bp.route("/")
@access("chief_editor")
def index():
    """Likely matches among the authors not merged (``PAIRS_PER_PAGE`` pairs a page,
    ``?page=``), and the latest merges."""
    matches, page, pages = queries.suggestions_page(request.args.get("page", 1, type=int))
    return render_template(
        "authors/index.html",
        matches=matches,
        page=page,
        pages=pages,
        reasons=REASONS_RU,
        merges=queries.merges(),
        form=MergeForm(formdata=None),
    )


@bp.route("/<int:author_id>")
@access("chief_editor")
def author(author_id: int):
    """One author: questions (bylines as given, confirmed or not), prizes, games, the rows
    merged into it, and its likely matches with merge buttons."""
    a = db.session.get(Author, author_id)
    if a is None:
        abort(404)
    return render_template(
        "authors/author.html",
        s=queries.summary(a, request.args.get("links_after", type=int)),
        matches=queries.matches_of(a) if a.merged_into_id is None else [],
        reasons=REASONS_RU,
        form=MergeForm(formdata=None),
    )


@bp.route("/merge", methods=["POST"])
@access("chief_editor")
def merge():
    """First the preview (what moves, or why it is refused), then — with ``confirm=1`` —
    the merge; back to the surviving author's page."""
    form = MergeForm()
    if not form.validate_on_submit():
        flash("Укажите номера двух авторов.", "error")
        return redirect(url_for("authors.index"))
    source, target = form.source.data, form.target.data
    try:
        plan = plan_merge(source, target)
    except AuthorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("authors.index"))
    if form.confirm.data == "1" and not plan.problems:
        on_refusal("Авторы не объединены: ", url_for("authors.index"))
        record = merge_authors(source, target, current_staff().id)
        flash(
            f"Автор №{record.from_author_id} объединён с автором №{record.into_author_id}: "
            f"вопросов {len(record.moved['questions'])}, призов {len(record.moved['prizes'])}.",
            "success",
        )
        return redirect(url_for("authors.author", author_id=record.into_author_id))
    form.confirm.data = "1"
    return render_template(
        "authors/merge.html",
        plan=plan,
        form=form,
        source=queries.summary(plan.source),
        target=queries.summary(plan.target),
    ), (409 if plan.problems else 200)


@bp.route("/questions/<int:question_id>/<int:position>/confirm", methods=["POST"])
@access("chief_editor")
def confirm(question_id: int, position: int):
    """Confirm that the author line at ``position`` of the question is its author row (the
    question's history records who confirmed it); back to the question page."""
    q = db.session.get(Question, question_id)
    if q is None:
        abort(404)
    if not ButtonForm().validate_on_submit():
        abort(400)
    back = local_path(request.form.get("next")) or ""
    if not back.startswith("/editor/"):
        back = url_for("moderation.question", question_id=q.id)
    on_refusal("Автор не подтверждён: ", back)
    link = confirm_author(q, position, current_staff().id)
    flash(f"Автор подтверждён: «{link.byline.display}» — автор №{link.author_id}.", "success")
    return redirect(back)
