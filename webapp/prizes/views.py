"""Producer and accountant pages: close a game, the prize list."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from webapp.core.access import access, current_staff
from webapp.extensions import db
from webapp.games import queries as game_queries
from webapp.games.forms import ActionForm
from webapp.games.operations import GameConflict
from webapp.jobs import commit
from webapp.prizes import queries
from webapp.prizes.operations import close_game

bp = Blueprint("prizes", __name__, url_prefix="/prizes")


@bp.route("/")
@access("producer|accountant")
def index():
    game_id = request.args.get("game_id", type=int)
    return render_template("prizes/index.html", prizes=queries.prizes(game_id=game_id))


@bp.route("/close/<int:game_id>", methods=["POST"])
@access("producer")
def close(game_id: int):
    game = game_queries.game(game_id)
    if game is None:
        abort(404)
    if ActionForm().validate_on_submit():
        try:
            prizes = close_game(game, current_staff().id)
        except GameConflict as exc:
            db.session.rollback()
            flash(f"Игра не закрыта: {exc}", "error")
        else:
            commit()
            flash(f"Игра закрыта. Призов: {len(prizes)}.", "success")
    return redirect(url_for("games.game", game_id=game_id))
