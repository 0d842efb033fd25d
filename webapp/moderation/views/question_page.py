"""One question: its page (pre-check report, duplicates, revisions), decisions, claiming and
releasing, the chief editor's audited author reveal, author corrections, images, edits,
comments, the sign-off."""

from __future__ import annotations

from pathlib import Path

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from webapp.core.access import access, current_staff
from webapp.core.edge import discard, on_refusal
from webapp.core.filenames import file_name, send_path
from webapp.core.formats import question_preview
from webapp.domain.handouts import without_leading_handout
from webapp.domain.text import matching_key
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.aids import highlight, stress_vowel, vowels, with_stress
from webapp.moderation.forms import (
    AttachImageForm,
    AuthorForm,
    ButtonForm,
    CommentForm,
    DecisionForm,
    EditForm,
    HoldBackForm,
    LeakMarkForm,
    StressForm,
)
from webapp.moderation.images import attach_image as attach
from webapp.moderation.images import image_choices
from webapp.moderation.operations import (
    CHECK_LABELS,
    ModerationError,
    add_comment,
    add_stress,
    approver_of,
    claim,
    claim_holder,
    correct_author,
    decide,
    decision_applies,
    edit_question,
    full_reason,
    hold_back,
    mark_leak_intended,
    open_letter_scan,
    release,
    reveal_authors,
    sign_off,
)
from webapp.moderation.operations.editing import AIRED_STATUSES
from webapp.moderation.reasons import REASON_LABELS, REJECTION_REASONS, decision_email
from webapp.moderation.views.common import SHORTCUTS, bp, marked_diff
from webapp.submissions.models import Question
from webapp.submissions.scans import MEDIA_TYPES


def _revision_diffs(q) -> list[dict]:
    out = []
    for rev in queries.revisions(q.id):
        fields = []
        for name in rev.after:
            left, right = marked_diff(rev.before.get(name, ""), rev.after[name])
            fields.append({"name": name, "left": left, "right": right})
        out.append({"rev": rev, "fields": fields})
    return out


def _leak_row(report) -> dict | None:
    """The report's ``answer_leak`` row (None in a report from before the check)."""
    return next((c for c in report.checks if c["name"] == "answer_leak"), None) if report else None


def _highlighted(parts: list[dict], found: list[str]) -> list[dict]:
    """``parts`` (``Question.image_parts``) with each text part's ``pieces``: the text cut
    at the leaked words (``webapp.moderation.aids.highlight``), which the page marks."""
    return [{**p, "pieces": highlight(p["text"], found)} if "text" in p else p for p in parts]


def _stress_choices(report) -> dict[str, list[dict]]:
    """For each word of the report's ``names_to_stress`` row, its stressed spellings, one
    per syllable: ``{"Муррен": [{"vowel": 0, "marked": "Му́ррен", "suggested": True}, …]}``
    (``suggested``: the stress dictionary's choice)."""
    row = (
        next((c for c in report.checks if c["name"] == "names_to_stress"), None) if report else None
    )
    out = {}
    for w in row["words"] if row else []:
        suggested = stress_vowel(w["suggestion"]) if w.get("suggestion") else None
        out[w["word"]] = [
            {"vowel": i, "marked": with_stress(w["word"], i), "suggested": i == suggested}
            for i in range(len(vowels(w["word"])))
        ]
    return out


def _render_question(q, form, revealed=None, email=None, edit_form=None):

    report = queries.latest_report(q.id)
    leak = _leak_row(report)
    leaked = {
        where: [w["found"] for w in leak["words"] if w["where"] == where] if leak else []
        for where in ("вопрос", "раздаточный материал")
    }
    attach_form = AttachImageForm(formdata=None)
    attach_form.ref.choices = image_choices(q)
    duplicates = []
    for cand in report.duplicates if report else []:
        other = queries.question(cand["question_id"])
        if other is not None:
            # words the duplicate check takes as the same (a stress mark, ё, case) unmarked
            left, right = marked_diff(
                question_preview(q.text), question_preview(other.text), same=matching_key
            )
            duplicates.append(
                {"score": cand["score"], "other": other, "left": left, "right": right}
            )
    prev_id, next_id = queries.neighbours(q)
    holder = claim_holder(q.id)
    return render_template(
        "moderation/question.html",
        q=q,
        report=report,
        form=form,
        duplicates=duplicates,
        prev_id=prev_id,
        next_id=next_id,
        holder=holder,
        me=current_staff().id,
        button=ButtonForm(),
        revealed=revealed,
        offers={d: decision_applies(q.status, d) for d in ("approve", "reject")},
        shortcuts=SHORTCUTS,
        check_labels=CHECK_LABELS,
        can_reveal=current_staff().role in ("chief_editor", "admin"),
        email=email,
        revisions=_revision_diffs(q),
        comments=queries.comments(q.id),
        signoff=queries.signoff(q.id),
        # the approver may not sign his own question's sources off: no button he cannot use
        approved_by_me=q.status == "approved" and approver_of(q) == current_staff().id,
        comment_form=CommentForm(formdata=None),
        hold_back_form=HoldBackForm(formdata=None),
        can_hold_back=q.status in AIRED_STATUSES and q.held_back_at is None,
        author_form=AuthorForm(formdata=None),
        edit_form=edit_form
        or EditForm(
            formdata=None,
            data={
                "question": q.text,
                "answer": q.answer,
                "accepted": q.accepted,
                "rejected": q.rejected,
                "comment": q.comment,
                "sources": "\n".join(q.sources or []),
                "handout": q.handout,
            },
        ),
        reasons=REJECTION_REASONS,
        attach_form=attach_form,
        # the handout once, under «Раздаточный материал», as the envelope prints it
        parts={
            "text": _highlighted(
                q.image_parts(without_leading_handout(q.text, q.handout)), leaked["вопрос"]
            ),
            "handout": _highlighted(q.image_parts(q.handout), leaked["раздаточный материал"]),
            "comment": q.image_parts(q.comment),
        },
        leak=leak,
        leak_form=LeakMarkForm(formdata=None),
        stress_form=StressForm(formdata=None),
        stress_choices=_stress_choices(report),
        missing_images=[r for r, _label in attach_form.ref.choices if r and r not in q.image_files],
        reason_labels=REASON_LABELS,
    )


@bp.route("/questions/<int:question_id>", methods=["GET", "POST"])
@access("editor+")
def question(question_id: int):
    q = queries.question(question_id)
    if q is None or q.status == "archived" and request.method == "POST":
        abort(404)
    form = DecisionForm()
    if form.validate_on_submit():

        def refused(exc):
            flash(str(exc), "error")
            return _render_question(q, form), exc.status

        on_refusal(respond=refused)
        reason = full_reason(q, form.reason_key.data, form.reason.data)
        if form.preview.data:
            subject, body = decision_email(form.decision.data, q.language, q.text, reason)
            discard()  # a preview decides nothing
            return _render_question(q, form, email={"subject": subject, "body": body})
        decide(q, form.decision.data, current_staff().id, reason, notify=True, repeat=False)
        flash(
            "Вопрос одобрен." if form.decision.data == "approve" else "Вопрос отклонён.", "success"
        )
        nxt = queries.first_id(queries.QueueFilter())
        if nxt is not None:
            return redirect(url_for("moderation.question", question_id=nxt))
        return redirect(url_for("moderation.queue"))
    return _render_question(q, form), 422 if form.is_submitted() else 200


@bp.route("/questions/<int:question_id>/claim", methods=["POST"])
@access("editor+")
def claim_question(question_id: int):
    if queries.question(question_id) is None or not ButtonForm().validate_on_submit():
        abort(404 if queries.question(question_id) is None else 400)
    back = url_for("moderation.question", question_id=question_id)

    def refused(_exc):
        flash("Вопрос уже взят другим редактором.", "error")
        return redirect(back)

    on_refusal(respond=refused)
    claim(question_id, current_staff().id)
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
    return _render_question(q, DecisionForm(formdata=None), revealed=revealed)


@bp.route("/questions/<int:question_id>/letter-scan", methods=["POST"])
@access("chief_editor")
def letter_scan(question_id: int):
    """A paper letter's scan (:mod:`webapp.submissions.scans`), for a chief editor (it shows
    the author: blind moderation), each download audited (``open_letter_scan``); a POST
    button with CSRF, like the reveal. A PDF always as a download (``application/pdf``,
    ``attachment``, and a sandboxing CSP, below, should a browser open it anyway: it is
    never rendered inline), an image inline with its own type (``nosniff`` on every response
    keeps the browser to it). 404 for a question without a scan or a file gone."""
    q = queries.question(question_id)
    if q is None or not q.letter_scan:
        abort(404)
    if not ButtonForm().validate_on_submit():
        abort(400)
    path = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads" / q.letter_scan
    suffix = path.suffix.lower()
    if suffix not in MEDIA_TYPES or not path.is_file():
        abort(404)
    open_letter_scan(q, current_staff().id)
    pdf = suffix == ".pdf"
    name = file_name("Скан письма", f"вопрос {q.id}", ext=suffix)
    resp = send_path(path, name, MEDIA_TYPES[suffix], attachment=pdf)
    resp.headers["Cache-Control"] = "private, no-store"
    return resp


#: Flask-Talisman's per-view options: a scan opened anyway (a browser that ignores the
#: attachment) is sandboxed — no script, no form, no request of its own.
letter_scan.talisman_view_options = {"content_security_policy": "sandbox; default-src 'none'"}


@bp.route("/questions/<int:question_id>/authors/<int:position>", methods=["POST"])
@access("chief_editor")
def correct(question_id: int, position: int):
    """Correct one author read from a packet or a letter (a credited co-author's
    nominative, a city); shown again with the authors revealed (audited)."""
    q = _question_or_404(question_id)
    form = AuthorForm()
    if not form.validate_on_submit():
        flash("Автор не исправлен: укажите имя (не длиннее 200 символов).", "error")
    else:
        try:
            changed = correct_author(
                q, position, form.name.data, form.city.data, current_staff().id
            )
        except ModerationError as exc:
            flash(f"Автор не исправлен: {exc}", "error")
        else:
            flash("Автор исправлен." if changed else "Изменений нет.", "success")
    # a refused correction still shows the authors; that reveal is audited and committed
    revealed = reveal_authors(q, current_staff().id)
    return _render_question(q, DecisionForm(formdata=None), revealed=revealed)


def _question_or_404(question_id: int) -> Question:
    return db.get_or_404(Question, question_id)


@bp.route("/questions/<int:question_id>/images", methods=["POST"])
@access("editor+")
def attach_image(question_id: int):
    """Attach an image to the question (the file of one of its references, or its handout
    image); back to the question page with a message."""
    q = _question_or_404(question_id)
    back = url_for("moderation.question", question_id=q.id)
    form = AttachImageForm()
    form.ref.choices = image_choices(q)
    if not form.validate_on_submit():
        errors = [e for field in (form.ref, form.image) for e in field.errors]
        flash(
            "Изображение не приложено: " + ("; ".join(map(str, errors)) or "выберите файл."),
            "error",
        )
        return redirect(back)
    on_refusal("Изображение не приложено: ", back)
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    attach(q, form.ref.data, form.image.data.read(), uploads, current_staff().id)
    flash(f"Изображение {form.ref.data or 'раздаточного материала'} приложено.", "success")
    return redirect(back)


@bp.route("/questions/<int:question_id>/edit", methods=["POST"])
@access("editor+")
def edit(question_id: int):
    """Save an edit; every change is kept as a revision (who, when, diff)."""
    q = _question_or_404(question_id)
    form = EditForm()
    if not form.validate_on_submit():
        flash("Правка не сохранена: проверьте поля.", "error")
        return _render_question(q, DecisionForm(formdata=None), edit_form=form)
    holder = claim_holder(q.id)
    if holder is not None and holder != current_staff().id:
        flash("Вопрос взят другим редактором.", "error")
        return redirect(url_for("moderation.question", question_id=q.id))
    on_refusal("", url_for("moderation.question", question_id=q.id))
    rev = edit_question(
        q,
        current_staff().id,
        {
            name: getattr(form, name).data or ""
            for name in (
                "question",
                "answer",
                "accepted",
                "rejected",
                "comment",
                "sources",
                "handout",
            )
        },
    )
    flash("Правка сохранена." if rev else "Изменений нет.", "success")
    return redirect(url_for("moderation.question", question_id=q.id))


@bp.route("/questions/<int:question_id>/leaks", methods=["POST"])
@access("editor+")
def mark_leak(question_id: int):
    """«Так задумано» on one answer word found in the question (audited); back to the
    question page with a message."""
    q = _question_or_404(question_id)
    back = url_for("moderation.question", question_id=q.id)
    form = LeakMarkForm()
    if not form.validate_on_submit():
        flash("Отметка не сохранена: форма устарела, обновите страницу.", "error")
        return redirect(back)
    on_refusal("Отметка не сохранена: ", back)
    mark_leak_intended(q, current_staff().id, form.word.data)
    flash(f"Слово «{form.word.data}» отмечено: так задумано.", "success")
    return redirect(back)


@bp.route("/questions/<int:question_id>/stress", methods=["POST"])
@access("editor+")
def stress(question_id: int):
    """One click per syllable: the stress mark on the word in the question's text (an edit,
    kept as a revision) and in the shared stress dictionary."""
    q = _question_or_404(question_id)
    back = url_for("moderation.question", question_id=q.id)
    form = StressForm()
    if not form.validate_on_submit():
        flash("Ударение не поставлено: форма устарела, обновите страницу.", "error")
        return redirect(back)
    holder = claim_holder(q.id)
    if holder is not None and holder != current_staff().id:
        flash("Вопрос взят другим редактором.", "error")
        return redirect(back)
    on_refusal("Ударение не поставлено: ", back)
    marked = add_stress(q, current_staff().id, form.word.data, form.vowel.data)
    flash(f"Ударение поставлено: {marked}.", "success")
    return redirect(back)


@bp.route("/questions/<int:question_id>/comments", methods=["POST"])
@access("editor+")
def comment(question_id: int):
    q = _question_or_404(question_id)
    form = CommentForm()
    if form.validate_on_submit():
        on_refusal("", url_for("moderation.question", question_id=q.id))
        add_comment(q, current_staff().id, form.text.data)
        flash("Комментарий добавлен.", "success")
    else:
        flash("Комментарий пуст или длиннее 3000 символов.", "error")
    return redirect(url_for("moderation.question", question_id=q.id))


@bp.route("/questions/<int:question_id>/sign-off", methods=["POST"])
@access("editor+")
def signoff(question_id: int):
    """The second editor's «источники проверены» (needed before an envelope)."""
    q = _question_or_404(question_id)
    if not ButtonForm().validate_on_submit():
        abort(400)
    on_refusal("", url_for("moderation.question", question_id=q.id))
    sign_off(q, current_staff().id)
    flash("Источники проверены: вопрос может попасть в конверт.", "success")
    return redirect(url_for("moderation.question", question_id=q.id))


@bp.route("/questions/<int:question_id>/hold-back", methods=["POST"])
@access("editor+")
def hold_back_view(question_id: int):
    """Hold back a question asked on air (reason and confirmation; audited): it never
    appears on a public surface again."""
    q = _question_or_404(question_id)
    back = url_for("moderation.question", question_id=q.id)
    form = HoldBackForm()
    if not form.validate_on_submit():
        errors = [str(e) for field in (form.reason, form.confirm) for e in field.errors]
        flash(_("Вопрос не придержан: ") + ("; ".join(errors) or _("форма устарела.")), "error")
        return redirect(back)
    on_refusal(_("Вопрос не придержан: "), back)
    hold_back(q, current_staff().id, form.reason.data)
    flash(_("Вопрос придержан: зрители его больше не увидят."), "success")
    return redirect(back)
