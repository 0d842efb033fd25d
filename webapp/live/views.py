"""Live questions for sector 13 of the 2009 rule set (002_e025d5ded135c1c4.txt §1.3,
§1.4.1): while a 2009 game is live, viewers send questions here; each gets a server
timestamp (``created_at``, UTC) and channel ``live``, and enters the fast moderation lane
(the editors' queue filtered by channel ``live``). The draw itself is the game day's."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for

from webapp.core.access import access
from webapp.domain.rules.rulesets import LIVE_SECTOR13_RULESETS
from webapp.extensions import db, limiter
from webapp.games.models import Game, Season
from webapp.submissions.forms import SubmitForm
from webapp.submissions.operations import SubmissionError
from webapp.submissions.operations import receive as receive_question
from webapp.submissions.views import form_page, submission_from, uploads_folder

bp = Blueprint("live", __name__)


def live_game() -> Game | None:
    """The game being played now (status ``live``) under a rule set whose sector 13 takes
    the viewers' questions live (2009, 002_e025d5ded135c1c4.txt §1.4.1), or None."""
    return db.session.scalar(
        db.select(Game)
        .join(Season)
        .where(Game.status == "live", Season.ruleset.in_(LIVE_SECTOR13_RULESETS))
        .order_by(Game.id.desc())
    )


@bp.route("/live", methods=["GET", "POST"])
@limiter.limit("10/hour", methods=["POST"])
@access("public")
def live():
    game = live_game()
    if game is None:
        return render_template("live/closed.html"), 200
    form = SubmitForm()
    if form.validate_on_submit():
        try:
            question = receive_question(
                submission_from(form, channel="live"), uploads=uploads_folder()
            )
        except SubmissionError as exc:
            for name, messages in exc.errors.items():
                field = getattr(form, name, None)
                (field.errors if field is not None else form.form_errors).extend(messages)
        else:
            token = question.public_token
            return redirect(url_for("submissions.status", token=token, new=1))
    if form.is_submitted():
        return form_page(form, 422)
    return form_page(form, 200)
