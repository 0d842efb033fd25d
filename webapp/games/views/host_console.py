"""The host console (tablet): one event at a time, undo; JSON for its script, redirects for
forms."""

from __future__ import annotations

from flask import flash, jsonify, redirect, render_template, url_for

from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.games.console import console_payload, hinter_refusal, refusal_ru
from webapp.games.forms import ActionForm, EventForm
from webapp.games.operations import record_event, start_refusal, undo_last_event
from webapp.games.views.common import bp, game_or_404, wants_json


def _console_reply(game, error: dict | None = None, status: int = 200):
    """JSON for the script (``{"ok", "console", "error"?}``) or a redirect for a form."""
    if wants_json():
        body = {"ok": error is None, "console": console_payload(game)}
        if error is not None:
            body["error"] = {**error, "text": refusal_ru(error)}
        return jsonify(body), status
    if error is not None:
        flash("Отказано: " + refusal_ru(error), "error")
    return redirect(url_for("games.console", game_id=game.id))


def _event_from_form(form: EventForm) -> dict:
    event: dict = {"type": form.type.data}
    if form.type.data == "spin":
        event["sector"] = form.sector.data
    elif form.type.data == "answer":
        event["correct"] = form.correct.data == "true"
        event["early"] = bool(form.early.data)
        if form.expert.data:
            event["expert"] = form.expert.data
    elif form.type.data == "sector13_option":
        event["option"] = form.option.data
    elif form.type.data == "minute":  # the server stamps ``at`` (operations.play)
        event["action"] = form.minute.data
    elif form.type.data == "red_card" and form.expert.data:
        event["expert"] = form.expert.data  # 2023 §3.7.3: who hinted
    return event


@bp.route("/<int:game_id>/console", methods=["GET", "POST"])
@access("host")
def console(game_id: int):
    """The host console (tablet). GET: the page, or the JSON state for the script. POST: one
    event (form fields of ``EventForm``); refused events change nothing and are explained in
    Russian with the clause. The state is always the replay of the recorded events."""
    game = game_or_404(game_id)
    form = EventForm()
    if form.validate_on_submit():
        refused = start_refusal(game)
        if refused is not None:
            return _console_reply(game, {"rule": None, "message": refused, "start": True}, 409)
        event = _event_from_form(form)
        if event["type"] == "spin" and event.get("sector") is None:
            # a spin without its sector is the host's slip, said in the host's words (the
            # protocol's own message names the event type)
            message = "укажите сектор, на который указала стрелка: от 1 до 13"
            return _console_reply(game, {"rule": None, "message": message}, 422)
        wrong_hinter = hinter_refusal(game, event)
        if wrong_hinter is not None:
            return _console_reply(game, {"rule": None, "message": wrong_hinter}, 422)
        on_refusal(respond=lambda exc: _console_reply(game, exc.error, 409))
        record_event(game, event, current_staff().id)
        return _console_reply(game)
    if form.is_submitted():
        error = {"rule": None, "message": errors_line(form) or "неполная форма"}
        return _console_reply(game, error, 422)
    payload = console_payload(game)
    if wants_json():
        return jsonify({"ok": True, "console": payload})
    return render_template(
        "games/console.html", game=game, c=payload, form=form, action_form=ActionForm()
    )


@bp.route("/<int:game_id>/undo", methods=["POST"])
@access("host")
def undo(game_id: int):
    """Undo the last event (audited: who, when, which event)."""
    game = game_or_404(game_id)
    if not ActionForm().validate_on_submit():
        return _console_reply(game, {"rule": None, "message": "форма устарела"}, 422)
    on_refusal(respond=lambda exc: _console_reply(game, {"rule": None, "message": str(exc)}, 409))
    undo_last_event(game, current_staff().id)
    if not wants_json():
        flash("Последнее событие отменено.", "success")
    return _console_reply(game)
