"""A game's page and what it starts: its documents (page, live status, download), the start
permission, filling the table, the envelope print, the protocol file (download, import)."""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

from flask import abort, current_app, flash, jsonify, redirect, render_template, url_for
from flask_babel import gettext as _

from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.core.filenames import file_name, send_bytes, send_path
from webapp.core.models import Document
from webapp.domain.rules import ProtocolError
from webapp.extensions import db
from webapp.games import queries
from webapp.games.console import refusal_ru
from webapp.games.forms import (
    ActionForm,
    AirTimeForm,
    AllowStartForm,
    CloseGameForm,
    PrintForm,
    ProtocolForm,
)
from webapp.games.operations import (
    allow_start,
    fill_table,
    game_state,
    import_protocol,
    protocol,
    request_envelopes,
    sector13_pool,
    set_air_time,
    start_confirmation,
    start_refusal,
)
from webapp.games.publication import is_published
from webapp.games.queries import game_document_file_name
from webapp.games.season import queries as season_queries
from webapp.games.views.common import (
    DOCUMENT_LABELS,
    DOCUMENT_ROLES,
    bp,
    download_text,
    downloadable_documents,
    game_or_404,
)
from webapp.games.views.planning import attach_form_for


@bp.route("/<int:game_id>")
@access("producer|host")
def game(game_id: int):
    game = game_or_404(game_id)
    counted = season_queries.counted_series(game)  # replays the season once for the page
    state = game_state(game)
    return render_template(
        "games/game.html",
        game=game,
        form=ActionForm(),
        close_form=CloseGameForm(),
        documents=downloadable_documents(game.id),
        state=state,
        # before the irreversible close: each question's outcome and the prizes owed
        close_preview=queries.close_preview(game, state) if game.status == "finished" else None,
        attach_form=attach_form_for(game, counted),
        counted_series=counted,
        protocol_form=ProtocolForm(),
        print_form=PrintForm(),
        copies=queries.game_copies(game.id),
        start_refusal=start_refusal(game),
        document_labels=DOCUMENT_LABELS,
        download_text=download_text,
        start_confirmation=start_confirmation(game),
        allow_start_form=AllowStartForm(),
        air_form=AirTimeForm(
            formdata=None,
            # no placeholder hour offered as if it were the air time
            air_at=game.air_at.astimezone(ZoneInfo(game.season.timezone))
            if game.air_time_given
            else None,
        ),
        published=is_published(game),
        sector13_pool=sector13_pool(game),  # 2009 §1.4.1: warns of an empty pool
    )


@bp.route("/<int:game_id>/air-time", methods=["POST"])
@access("producer")
def air_time(game_id: int):
    """Set when the game airs, typed in the season's time zone (the embargo:
    ``webapp.games.publication``)."""
    game = game_or_404(game_id)
    form = AirTimeForm()
    back = url_for("games.game", game_id=game_id)
    if form.validate_on_submit():
        on_refusal(_("Время эфира не изменено: "), back)
        agreements = set_air_time(
            game,
            form.air_at.data.replace(tzinfo=ZoneInfo(game.season.timezone)),
            current_staff().id,
            # the prizes feature's re-issue, handed by the app (webapp.app.register_handovers)
            current_app.extensions["sova_reissue_for_new_air_date"],
        )
        flash(_("Время эфира сохранено.") + _agreements_note(agreements), "success")
        if agreements["signed"]:
            flash(
                f"Подписанные договоры дарения ({agreements['signed']}) называют прежнюю "
                "дату эфира: подписанный договор не переписывается.",
                "warning",
            )
    else:
        flash(_("Время эфира не изменено: ") + errors_line(form), "error")
    return redirect(back)


def _agreements_note(agreements: dict[str, int]) -> str:
    """« Договоров дарения выписано заново с новой датой эфира: 3.» or ""."""
    if not agreements["reissued"]:
        return ""
    return f" Договоров дарения выписано заново с новой датой эфира: {agreements['reissued']}."


@bp.route("/<int:game_id>/documents.json")
@access("producer|host")
def documents_json(game_id: int):
    """The game's documents for the game page's live status (``static/game.js`` polls it):
    ``{"documents": [{"id", "kind", "label", "status", "url", "download"}], "pending": bool}``; only the
    kinds the caller's role may download, as on the page; ``url`` is set once the PDF is
    ready."""
    game = game_or_404(game_id)
    docs = [
        {
            "id": d.id,
            "kind": d.kind,
            "label": DOCUMENT_LABELS.get(d.kind, d.kind),
            "status": d.status,
            "url": url_for("games.document", document_id=d.id) if d.status == "ready" else None,
            "download": download_text(d.kind),
        }
        for d in downloadable_documents(game.id)
    ]
    return jsonify({"documents": docs, "pending": any(d["status"] == "pending" for d in docs)})


@bp.route("/<int:game_id>/allow-start", methods=["POST"])
@access("producer")
def allow_start_view(game_id: int):
    """The producer lets the console start the game without a locked table or rendered
    envelopes (audited with the reason)."""
    game = game_or_404(game_id)
    form = AllowStartForm()
    if form.validate_on_submit():
        on_refusal("Не разрешено: ", url_for("games.game", game_id=game_id))
        allow_start(game, current_staff().id, form.reason.data)
        flash("Ведущий может начать игру без напечатанных конвертов.", "success")
    else:
        flash("Не разрешено: " + errors_line(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/assign", methods=["POST"])
@access("producer")
def assign(game_id: int):
    game = game_or_404(game_id)
    if ActionForm().validate_on_submit():
        on_refusal("Не удалось заполнить стол: ", url_for("games.game", game_id=game_id))
        report = fill_table(game, Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads")
        flash(
            " ".join(filter(None, ["Стол заполнен из одобренных вопросов.", report.summary()])),
            "success",
        )
        for warning in report.warnings:
            flash(f"Внимание: {warning}.", "warning")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/envelopes", methods=["POST"])
@access("producer")
def envelopes(game_id: int):
    """Queue the envelope and host-card PDFs of a locked table, N copies of each."""
    game = game_or_404(game_id)
    form = PrintForm()
    if form.validate_on_submit():
        on_refusal("Конверты не поставлены в очередь: ", url_for("games.game", game_id=game_id))
        request_envelopes(game, user_id=current_staff().id, copies=form.copies.data)
        flash("Конверты поставлены в очередь на печать.", "success")
    else:
        flash("Конверты не поставлены в очередь: " + errors_line(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/protocol.json")
@access("producer|host")
def protocol_file(game_id: int):
    """Download the game as a ``sova.game-protocol/1`` file (``sova game replay`` reads it)."""
    game = game_or_404(game_id)
    response = jsonify(protocol(game))
    name = game.file_name("Протокол игры", "json")
    return send_bytes(response.get_data(), name, "application/json")


@bp.route("/<int:game_id>/protocol", methods=["POST"])
@access("producer|host")
def protocol_import(game_id: int):
    """Import a protocol file into a game with no events; every event is checked."""
    game = game_or_404(game_id)
    form = ProtocolForm()
    if not form.validate_on_submit():
        flash("Протокол не загружен: " + errors_line(form), "error")
        return redirect(url_for("games.game", game_id=game_id))
    try:
        data = json.loads(form.file.data.read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        flash("Протокол не загружен: это не JSON в UTF-8.", "error")
        return redirect(url_for("games.game", game_id=game_id))
    except RecursionError:  # ~1 000 nested arrays: the decoder's limit (was a 500)
        flash("Протокол не загружен: слишком глубокая вложенность JSON.", "error")
        return redirect(url_for("games.game", game_id=game_id))

    def refused(exc):
        error = exc.error
        if isinstance(exc.__cause__, ProtocolError) and error.get("event") is None:
            # the file's own shape (format, table, context, events; import_protocol wraps
            # load_protocol's ProtocolError): the engine says it in English for the CLI and
            # the API (game-protocol.md); a Russian page says it so
            flash("Протокол не загружен: файл не в формате протокола игры «Совы».", "error")
            return redirect(url_for("games.game", game_id=game_id))
        where = f"событие {error['event']}: " if error.get("event") is not None else ""
        flash(f"Протокол не загружен, {where}" + refusal_ru(error), "error")
        return redirect(url_for("games.game", game_id=game_id))

    on_refusal(respond=refused)
    state = import_protocol(game, data, current_staff().id)
    flash(f"Протокол загружен: {len(game.events)} событий, счёт {state['score']}.", "success")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/documents/<int:document_id>")
@access("producer|host|accountant")
def document(document_id: int):
    doc = db.get_or_404(Document, document_id)
    if current_staff().role not in DOCUMENT_ROLES.get(doc.kind, {"admin"}):
        abort(403)
    if doc.status != "ready" or not doc.path:
        abort(409, description="Документ ещё готовится. Обновите страницу через минуту.")
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    return send_path(
        path,
        game_document_file_name(doc) or file_name(f"Документ {doc.id}", ext="pdf"),
        "application/pdf",
        attachment=False,
    )
