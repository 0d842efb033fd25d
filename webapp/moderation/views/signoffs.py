"""The second editor's sign-off of sources («Источники проверены») for a selection of the
queue at once: a preview (which questions, which not and why), then the sign-off, each
question recorded and audited one by one (``operations.bulk_sign_off``)."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for

from webapp.core.access import access, current_staff
from webapp.core.edge import discard
from webapp.domain.text import ru_plural
from webapp.moderation.forms import ButtonForm
from webapp.moderation.operations import ModerationError, bulk_sign_off, signoff_preview
from webapp.moderation.views.common import bp
from webapp.moderation.views.listing import parse_ids

#: The queue the second editor works through: approved questions whose sources nobody has
#: signed off yet. After a sign-off it lists the next ones (its first page again holds
#: only what is left), so a selection of more than a page is signed off page by page.
TO_SIGN_OFF = {"status": "approved", "signoff": "pending"}

#: The forms of «вопрос» after a number (one, few, many).
QUESTION_FORMS = ("вопрос", "вопроса", "вопросов")


def questions(n: int) -> str:
    """«1 вопрос», «3 вопроса», «20 вопросов» (:func:`webapp.domain.text.ru_plural`)."""
    return f"{n} {ru_plural(n, QUESTION_FORMS)}"


@bp.route("/signoffs", methods=["POST"])
@access("editor+")
def bulk_signoff():
    """The checked questions of the queue: without ``confirm`` the preview, with
    ``confirm == "1"`` the sign-off of the previewed ones (all or nothing)."""
    form = ButtonForm()
    if not form.validate_on_submit():
        abort(400)
    ids = parse_ids(" ".join(request.form.getlist("ids")))
    if ids is None:
        flash("Отметьте вопросы (не больше 1000).", "error")
        return redirect(url_for("moderation.queue", **TO_SIGN_OFF))
    user_id = current_staff().id
    ok, refused = signoff_preview(ids, user_id)
    if request.form.get("confirm") == "1" and ok and not refused:
        try:
            bulk_sign_off(ids, user_id)
        except ModerationError as exc:
            discard()
            flash(str(exc), "error")
        else:
            flash(
                f"Источники проверены: {questions(len(ok))}; они могут попасть в конверт.",
                "success",
            )
            return redirect(url_for("moderation.queue", **TO_SIGN_OFF))
        ok, refused = signoff_preview(ids, user_id)
    return render_template(
        "moderation/bulk_signoff.html",
        form=form,
        ok=ok,
        refused=refused,
        ids=" ".join(str(q.id) for q in ok),
        ok_count=questions(len(ok)),
        refused_count=questions(len(refused)),
        back=url_for("moderation.queue", **TO_SIGN_OFF),
    )
