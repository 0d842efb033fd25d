"""The host console (tablet): one event at a time, undo. The page and its updates come from
one template (``templates/games/_console.html``): after an action the script is answered
with the parts that changed, rendered by the same macros as the page; a form without the
script is answered with a redirect."""

from __future__ import annotations

import hashlib

from flask import current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.domain.books import book
from webapp.games.console import console_payload, hinter_refusal, refusal_ru
from webapp.games.forms import ActionForm, EventForm, UndoForm
from webapp.games.models import Game
from webapp.games.operations import record_event, start_refusal, undo_last_event
from webapp.games.views.common import bp, game_or_404, wants_json

#: The console's parts, by element id: each is a macro of ``games/_console.html`` (the id
#: without «console-»), the unit the page is built from and the script replaces.
PARTS = (
    "console-message",
    "console-start",
    "console-scoreboard",
    "console-status",
    "console-extras",
    "console-sectors",
    "console-question",
    "console-actions",
    "console-undo",
)
#: The request header the script names the parts it shows in: ``id=digest`` pairs separated
#: by spaces (the page's ``data-digests``, then each answer's ``digests``).
SHOWN_HEADER = "X-Console-Parts"


def console_parts(game: Game, c: dict, message: str = "") -> dict[str, Markup]:
    """Every part of the console of ``game`` in state ``c`` (``console_payload``), as HTML
    by element id; ``message`` is what the message box says (a refusal, or nothing)."""
    context = {"game": game, "c": c, "book": book(game.season.ruleset)}
    current_app.update_template_context(context)
    macros = current_app.jinja_env.get_template("games/_console.html").make_module(context)
    parts = {}
    for part in PARTS:
        macro = getattr(macros, part.removeprefix("console-"))
        parts[part] = Markup(macro(message) if part == "console-message" else macro())
    return parts


def part_digests(parts: dict[str, Markup]) -> dict[str, str]:
    """A short digest of each part, so that the script is sent only the parts that differ
    from those it shows. The CSRF token is left out: it is signed anew at each render and
    says nothing of the game."""
    token = generate_csrf()
    return {
        part: hashlib.sha256(str(html).replace(token, "").encode()).hexdigest()[:16]
        for part, html in parts.items()
    }


def _shown_digests() -> dict[str, str]:
    """The digests of the parts the script shows (:data:`SHOWN_HEADER`); ``{}`` when absent."""
    pairs = (item.partition("=") for item in request.headers.get(SHOWN_HEADER, "").split())
    return {part: digest for part, _, digest in pairs if part in PARTS}


def _console_reply(game, error: dict | None = None, status: int = 200):
    """For the script: JSON ``{"ok", "console": state, "html": {id: part}, "digests":
    {id: digest}, "error"?}``, ``html`` holding only the parts whose digest differs from
    what the script shows (the state stays for scripts that read it, not for the page).
    For a form: a redirect, a refusal flashed."""
    message = "Отказано: " + refusal_ru(error) if error is not None else ""
    if wants_json():
        c = console_payload(game)
        parts = console_parts(game, c, message)
        digests = part_digests(parts)
        shown = _shown_digests()
        body = {
            "ok": error is None,
            "console": c,
            "html": {p: str(html) for p, html in parts.items() if shown.get(p) != digests[p]},
            "digests": digests,
        }
        if error is not None:
            body["error"] = {**error, "text": refusal_ru(error)}
        return jsonify(body), status
    if error is not None:
        flash(message, "error")
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
        record_event(game, event, current_staff().id, after=form.after.data)
        return _console_reply(game)
    if form.is_submitted():
        error = {"rule": None, "message": errors_line(form) or "неполная форма"}
        return _console_reply(game, error, 422)
    payload = console_payload(game)
    if wants_json():
        return jsonify({"ok": True, "console": payload})
    parts = console_parts(game, payload)
    return render_template(
        "games/console.html",
        game=game,
        c=payload,
        book=book(game.season.ruleset),
        parts=parts,
        digests=" ".join(f"{p}={d}" for p, d in part_digests(parts).items()),
        form=form,
        action_form=ActionForm(),
    )


@bp.route("/<int:game_id>/undo", methods=["POST"])
@access("host")
def undo(game_id: int):
    """Undo the last event (audited: who, when, which event)."""
    game = game_or_404(game_id)
    form = UndoForm()
    if not form.validate_on_submit():
        return _console_reply(game, {"rule": None, "message": "форма устарела"}, 422)
    on_refusal(respond=lambda exc: _console_reply(game, {"rule": None, "message": str(exc)}, 409))
    undo_last_event(game, current_staff().id, after=form.after.data)
    if not wants_json():
        flash("Последнее событие отменено.", "success")
    return _console_reply(game)
