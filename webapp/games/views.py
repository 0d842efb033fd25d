"""Producer and host pages: seasons, games, the table, envelopes, the host console."""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from webapp.core.access import access, current_staff
from webapp.core.models import Document
from webapp.domain.rules import allowed_actions
from webapp.extensions import db
from webapp.games import queries
from webapp.games.forms import ActionForm, EventForm, GameForm, SeasonForm
from webapp.games.operations import (
    GameConflict,
    GameError,
    assign_envelopes,
    create_game,
    create_season,
    game_state,
    record_event,
    request_envelopes,
    undo_last_event,
)
from webapp.jobs import commit

bp = Blueprint("games", __name__, url_prefix="/games")

# Which roles may download which kind of document (deny anything else).
DOCUMENT_ROLES = {
    "envelopes": {"producer", "host", "admin"},
    "host_cards": {"producer", "host", "admin"},
    "gift_agreement": {"producer", "accountant", "admin"},
}


def _game_or_404(game_id: int):
    game = queries.game(game_id)
    if game is None:
        abort(404)
    return game


@bp.route("/")
@access("producer|host")
def index():
    season_form = SeasonForm(prefix="season")
    game_form = GameForm(prefix="game")
    game_form.season_id.choices = [(s.id, s.name) for s in queries.seasons()]
    return render_template("games/index.html", seasons=queries.seasons(),
                           games=queries.games(), season_form=season_form, game_form=game_form)


@bp.route("/seasons", methods=["POST"])
@access("producer")
def new_season():
    form = SeasonForm(prefix="season")
    if form.validate_on_submit():
        try:
            season = create_season(form.name.data, form.ruleset.data,
                                   unanswered_prize=form.unanswered_prize.data or None)
        except GameError as exc:
            flash(f"Сезон не создан: {exc}", "error")
        else:
            commit()
            flash(f"Сезон «{season.name}» создан.", "success")
    else:
        flash("Сезон не создан: " + "; ".join(e for v in form.errors.values() for e in v),
              "error")
    return redirect(url_for("games.index"))


@bp.route("/new", methods=["POST"])
@access("producer")
def new_game():
    form = GameForm(prefix="game")
    form.season_id.choices = [(s.id, s.name) for s in queries.seasons()]
    if form.validate_on_submit():
        try:
            game = create_game(form.season_id.data, form.kind.data, form.air_date.data,
                               {"blitz": form.blitz.data, "superblitz": form.superblitz.data,
                                "sector13": form.sector13.data},
                               team=form.team.data, title=form.title.data)
        except GameError as exc:
            flash(f"Игра не создана: {exc}", "error")
        else:
            commit()
            return redirect(url_for("games.game", game_id=game.id))
    else:
        flash("Игра не создана: " + "; ".join(e for v in form.errors.values() for e in v),
              "error")
    return redirect(url_for("games.index"))


@bp.route("/<int:game_id>")
@access("producer|host")
def game(game_id: int):
    game = _game_or_404(game_id)
    return render_template("games/game.html", game=game, form=ActionForm(),
                           documents=queries.documents(game.id), state=game_state(game))


@bp.route("/<int:game_id>/assign", methods=["POST"])
@access("producer")
def assign(game_id: int):
    game = _game_or_404(game_id)
    if ActionForm().validate_on_submit():
        try:
            assign_envelopes(game)
        except GameConflict as exc:
            db.session.rollback()
            flash(f"Не удалось заполнить стол: {exc}", "error")
        else:
            commit()
            flash("Стол заполнен из одобренных вопросов.", "success")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/envelopes", methods=["POST"])
@access("producer")
def envelopes(game_id: int):
    game = _game_or_404(game_id)
    if ActionForm().validate_on_submit():
        try:
            request_envelopes(game)
        except GameConflict as exc:
            flash(str(exc), "error")
        else:
            commit()
            flash("Конверты поставлены в очередь на печать.", "success")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/console", methods=["GET", "POST"])
@access("host")
def console(game_id: int):
    game = _game_or_404(game_id)
    form = EventForm()
    if form.validate_on_submit():
        event = {"type": form.type.data}
        if form.type.data == "spin":
            event["sector"] = form.sector.data
        elif form.type.data == "answer":
            event["correct"] = form.correct.data == "true"
            event["early"] = bool(form.early.data)
            if form.expert.data:
                event["expert"] = form.expert.data
        elif form.type.data == "sector13_option":
            event["option"] = form.option.data
        try:
            record_event(game, event, current_staff().id)
        except GameConflict as exc:
            db.session.rollback()
            flash(f"Отказано: {exc.error.get('message')} ({exc.error.get('rule') or ''})",
                  "error")
        else:
            commit()
        return redirect(url_for("games.console", game_id=game_id))
    if form.is_submitted():
        flash("Отказано: " + "; ".join(e for errs in form.errors.values() for e in errs),
              "error")
        return redirect(url_for("games.console", game_id=game_id))
    state = game_state(game)
    ruleset = game.season.ruleset
    allowed = allowed_actions(ruleset, game.table, {}, [e.payload for e in game.events])
    return render_template("games/console.html", game=game, state=state, allowed=allowed,
                           form=form, action_form=ActionForm())


@bp.route("/<int:game_id>/undo", methods=["POST"])
@access("host")
def undo(game_id: int):
    game = _game_or_404(game_id)
    if ActionForm().validate_on_submit():
        try:
            undo_last_event(game)
        except GameConflict as exc:
            flash(str(exc), "error")
        else:
            commit()
            flash("Последнее событие отменено.", "success")
    return redirect(url_for("games.console", game_id=game_id))


@bp.route("/documents/<int:document_id>")
@access("producer|host|accountant")
def document(document_id: int):
    doc = db.session.get(Document, document_id)
    if doc is None:
        abort(404)
    if current_staff().role not in DOCUMENT_ROLES.get(doc.kind, {"admin"}):
        abort(403)
    if doc.status != "ready" or not doc.path:
        abort(409, description="Документ ещё готовится. Обновите страницу через минуту.")
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype="application/pdf", as_attachment=False,
                     download_name=f"{doc.kind}-{doc.id}.pdf")


@bp.app_template_filter("sector_label")
def sector_label(kind: str) -> str:
    return {"single": "Вопрос", "blitz": "Блиц", "superblitz": "Суперблиц",
            "sector13": "13 сектор"}.get(kind, kind)


@bp.app_context_processor
def _request_args():
    return {"args": request.args}
