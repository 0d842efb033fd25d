"""Vote pages of the host and the producer (2009 §3.1): open, live tally, close, the
result PDF and the §3.1 award. Thin: parse the form, declare the refusal's flash and
redirect (``on_refusal``), call ``webapp.votes.operations``, answer; the request edge
(``webapp.core.edge``) commits or rolls back."""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response
from wtforms import SelectChoice

from webapp.config import DEMO_SMS_SECRET
from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.filenames import send_path
from webapp.core.links import public_root
from webapp.core.models import Document
from webapp.domain.books import cite
from webapp.domain.vote import RULE
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.queries import game_document_file_name
from webapp.votes import operations as ops
from webapp.votes.forms import CloseVoteForm, OpenVoteForm, VoteAwardForm
from webapp.votes.queries import awards, open_vote, vote_json, vote_of

bp = Blueprint("votes", __name__, url_prefix="/games")


def _game_or_404(game_id: int) -> Game:
    return db.get_or_404(Game, game_id)


def _can_open(game: Game) -> bool:
    return (
        game.season.book.audience_vote
        and game.status in ("finished", "closed")
        and vote_of(game.id) is None
        and open_vote() is None
    )


def rehearsal_command() -> str | None:
    """The ``sova vote simulate`` command that rehearses the vote against THIS instance
    (its URL as the browser reached it), or None when the callback is off (no
    ``SOVA_SMS_SECRET``). The secret is spelt out only when it is ``make run``'s public
    rehearsal one; otherwise the command reads it from ``$SOVA_SMS_SECRET`` on the
    server."""
    secret = current_app.config.get("SOVA_SMS_SECRET")
    if not secret:
        return None
    command = f"sova vote simulate --url {public_root()} --total 100"
    if secret == DEMO_SMS_SECRET and current_app.config.get("SOVA_ENV") != "production":
        command += f" --secret {secret}"
    return command


@bp.route("/<int:game_id>/vote")
@access("producer|host")
def page(game_id: int):
    """The vote of a game: open it (finished 2009 game), the live tally, close it, the
    result PDF; for the producer the §3.1 award pre-filled with the winner."""
    game = _game_or_404(game_id)
    vote = vote_of(game.id)
    open_form = OpenVoteForm()
    if vote is None:
        experts = game.team_row.experts if game.team_row else []
        open_form.candidates.data = "\n".join(experts)
    award_form = VoteAwardForm()
    if vote is not None:
        award_form.chosen.choices = [SelectChoice(n, n) for n in vote.candidates]
        if vote.winner and not award_form.chosen.data:
            award_form.chosen.data = vote.candidates[vote.winner - 1]
    return render_template(
        "votes/page.html",
        game=game,
        vote=vote,
        tally=vote_json(vote, game.season.timezone) if vote else None,
        can_open=_can_open(game),
        other_open=open_vote(),
        open_form=open_form,
        close_form=CloseVoteForm(),
        award_form=award_form,
        awards=awards(game.id),
        is_producer=current_staff().role in ("producer", "admin"),
        vote_rule=RULE,
        rehearsal=rehearsal_command(),
    )


@bp.route("/<int:game_id>/vote/tally.json")
@access("producer|host")
def tally(game_id: int):
    """The live tally for the pages' polling: ``{vote: <the API's vote> | null,
    can_open: bool}``."""
    game = _game_or_404(game_id)
    vote = vote_of(game.id)
    return jsonify(
        vote=vote_json(vote, game.season.timezone) if vote else None, can_open=_can_open(game)
    )


def _back_url(game_id: int) -> str:
    """Where a vote action returns: the host's console (``next=console``) or the vote page."""
    if request.form.get("next") == "console":
        return url_for("games.console", game_id=game_id)
    return url_for("votes.page", game_id=game_id)


def _back(game_id: int) -> Response:
    return redirect(_back_url(game_id))


@bp.route("/<int:game_id>/vote/open", methods=["POST"])
@access("producer|host")
def open_(game_id: int):
    game = _game_or_404(game_id)
    form = OpenVoteForm()
    if not form.validate_on_submit():
        flash(_("Голосование не открыто: форма устарела, обновите страницу."), "error")
        return _back(game.id)
    names = [line for line in (form.candidates.data or "").splitlines() if line.strip()]
    on_refusal(_("Голосование не открыто: "), _back_url(game.id))
    ops.open_vote(game, current_staff().id, names or None)
    flash(_("Голосование открыто: SMS принимаются."), "success")
    return _back(game.id)


@bp.route("/<int:game_id>/vote/close", methods=["POST"])
@access("producer|host")
def close(game_id: int):
    game = _game_or_404(game_id)
    form = CloseVoteForm()
    if not form.validate_on_submit():
        flash(_("Голосование не закрыто: подтвердите закрытие."), "error")
        return _back(game.id)
    on_refusal(_("Голосование не закрыто: "), _back_url(game.id))
    ops.close_vote(game, current_staff().id)
    flash(_("Голосование закрыто. Итоговый документ готовится."), "success")
    return _back(game.id)


@bp.route("/<int:game_id>/vote/result.pdf")
@access("producer|host")
def result(game_id: int):
    """The signed result document (409 while it is being rendered)."""
    vote = vote_of(_game_or_404(game_id).id)
    if vote is None or vote.document_id is None:
        abort(404)
    doc = db.get_or_404(Document, vote.document_id)
    if doc.status != "ready" or not doc.path:
        abort(409, description=_("Документ ещё готовится. Обновите страницу через минуту."))
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    name = game_document_file_name(doc) or f"vote-{vote.id}.pdf"
    return send_path(path, name, "application/pdf", attachment=False)


@bp.route("/<int:game_id>/vote/award", methods=["POST"])
@access("producer")
def award(game_id: int):
    """Record the §3.1 best player: the vote's winner, or another candidate chosen by the
    sponsor's representative with a reason (audited)."""
    game = _game_or_404(game_id)
    vote = vote_of(game.id)
    if vote is None:
        abort(404)
    form = VoteAwardForm()
    if not form.validate_on_submit():
        flash(_("Приз не присуждён: форма устарела, обновите страницу."), "error")
        return _back(game.id)
    on_refusal(_("Приз не присуждён: "), _back_url(game.id))
    row = ops.record_award(vote, form.chosen.data or "", form.reason.data or "", current_staff().id)
    flash(
        _(
            "Лучший игрок игры (%(rule)s): %(name)s.",
            rule=cite(RULE, str(get_locale() or "ru")),
            name=row.chosen_name,
        ),
        "success",
    )
    return _back(game.id)


@bp.app_context_processor
def _vote_panel():
    """``vote_panel(game)`` for templates outside this feature (the host's console):
    ``{"vote": vote_json | None, "can_open": bool}``."""

    def vote_panel(game) -> dict:
        vote = vote_of(game.id)
        return {
            "vote": vote_json(vote, game.season.timezone) if vote else None,
            "can_open": _can_open(game),
        }

    return {"vote_panel": vote_panel}
