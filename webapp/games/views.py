"""Producer and host pages: seasons, games, the table, envelopes, the host console."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from wtforms import SelectChoice

from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.models import Document
from webapp.domain.rules import RULESETS, rule_reference, usual_plan
from webapp.domain.topics import TOPICS, topic_label
from webapp.extensions import db
from webapp.games import queries, season_queries
from webapp.games.console import console_payload, refusal_ru
from webapp.games.forms import (
    ActionForm,
    AllowStartForm,
    AttachForm,
    CloseGameForm,
    EventForm,
    GameForm,
    PrintForm,
    ProtocolForm,
    ReplaceForm,
    SeasonForm,
    SeriesForm,
    SwapForm,
    TeamForm,
    TopicForm,
)
from webapp.games.models import GAME_KIND_LABELS, SERIES_LABELS, Game
from webapp.games.operations import (
    GameError,
    allow_start,
    assign_envelopes,
    attach,
    check_table,
    create_game,
    create_season,
    create_series,
    create_team,
    game_state,
    import_protocol,
    lock_table,
    protocol,
    record_event,
    replace_slot,
    request_envelopes,
    set_topic,
    start_confirmation,
    start_refusal,
    status_label,
    swap_slots,
    table_plan,
    undo_last_event,
    unlock_table,
    use_reserve,
)

bp = Blueprint("games", __name__, url_prefix="/games")

#: The game page's names of its documents (``Document.kind``).
DOCUMENT_LABELS = {
    "envelopes": "Конверты",
    "host_cards": "Карточки ведущего",
    "sector13_card": "Карточка ведущего: 13 сектор (жеребьёвка)",
    "gift_agreement": "Договор дарения",
    "vote_result": "Итог зрительского голосования за лучшего игрока (для спонсора)",
    # a prize's documents, listed for the admin (the prize page names them the same way)
    "commission_minutes": "Протокол комиссии по денежным выигрышам",
    "signed_scan": "Скан подписанного договора",
}

#: What the download link says: a signed scan is the accountant's upload (PDF or an image).
DOWNLOAD_TEXT = {"signed_scan": "скачать скан"}


def download_text(kind: str) -> str:
    """The game page's link text for a ready document of ``kind`` («скачать PDF»)."""
    return DOWNLOAD_TEXT.get(kind, "скачать PDF")


# Which roles may download which kind of document (deny anything else).
DOCUMENT_ROLES = {
    "envelopes": {"producer", "host", "admin"},
    "host_cards": {"producer", "host", "admin"},
    "sector13_card": {"producer", "host", "admin"},
    "gift_agreement": {"accountant", "admin"},
    # the signed result of the 2009 §3.1 audience vote (for the sponsor; webapp.votes)
    "vote_result": {"producer", "host", "admin"},
}


def _downloadable_documents(game_id: int) -> list:
    """The game's documents (``queries.documents``) of the kinds the current staff role may
    download (``DOCUMENT_ROLES``): what the game page and its live status list."""
    role = current_staff().role
    return [d for d in queries.documents(game_id) if role in DOCUMENT_ROLES.get(d.kind, {"admin"})]


def _game_or_404(game_id: int) -> Game:
    """The game or 404 (ids beyond the column's range never get here:
    ``webapp.security.ids_in_range``)."""
    return db.get_or_404(Game, game_id)


@bp.route("/")
@access("producer|host")
def index():
    season_form = SeasonForm(prefix="season")
    game_form = GameForm(prefix="game")
    game_form.season_id.choices = [SelectChoice(s.id, s.name) for s in queries.seasons()]
    # the form starts from the usual plan (issue 17); both rule sets share it, so the season
    # chosen in the form does not change it (webapp.domain.rules.usual_plan)
    plan = usual_plan(RULESETS["2023"])
    game_form.blitz.data, game_form.superblitz.data = plan.blitz, plan.superblitz
    game_form.sector13.data = plan.sector13
    series_form = SeriesForm(prefix="series")
    series_form.season_id.choices = game_form.season_id.choices
    return render_template(
        "games/index.html",
        seasons=queries.seasons(),
        games=queries.games(),
        season_form=season_form,
        game_form=game_form,
        series_form=series_form,
        series=queries.all_series(),
        series_labels=SERIES_LABELS,
    )


def _form_errors(form) -> str:
    return "; ".join(e for v in form.errors.values() for e in v)


@bp.route("/series", methods=["POST"])
@access("producer")
def new_series():
    """Create the season's spring/summer/autumn/winter series (idempotent)."""
    form = SeriesForm(prefix="series")
    form.season_id.choices = [SelectChoice(s.id, s.name) for s in queries.seasons()]
    if form.validate_on_submit():
        on_refusal("Серия не создана: ", url_for("games.index"))
        series = create_series(form.season_id.data, form.part.data)
        flash(f"{series.display_name}: серия есть.", "success")
    else:
        flash("Серия не создана: " + _form_errors(form), "error")
    return redirect(url_for("games.index"))


@bp.route("/teams", methods=["GET", "POST"])
@access("producer")
def teams():
    """Teams of experts: the list and the form (name, six experts, captain)."""
    form = TeamForm()
    if form.validate_on_submit():

        def refused(exc):
            flash(f"Команда не создана: {exc}", "error")
            return render_template("games/teams.html", teams=queries.teams(), form=form)

        on_refusal(respond=refused)
        team = create_team(form.name.data, form.captain.data, form.experts.data.splitlines())
        flash(f"Команда «{team.name}» создана.", "success")
        return redirect(url_for("games.teams"))
    elif form.is_submitted():
        flash("Команда не создана: " + _form_errors(form), "error")
    return render_template("games/teams.html", teams=queries.teams(), form=form)


@bp.route("/<int:game_id>/attach", methods=["POST"])
@access("producer")
def attach_game(game_id: int):
    """Set a game's team and series (before its first event)."""
    game = _game_or_404(game_id)
    form = _attach_form(game)
    if form.validate_on_submit():
        on_refusal("Не сохранено: ", url_for("games.game", game_id=game_id))
        attach(game, form.team_id.data or None, form.series_id.data or None)
        flash("Команда и серия игры сохранены.", "success")
    else:
        flash("Не сохранено: " + _form_errors(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


def _attach_form(game, series=None) -> AttachForm:
    """The team and series form, starting from the game's team (its row, or the team of
    that name when only the free-text name is set) and ``series``, the series the season
    counts it in (``season_queries.counted_series``, computed here when not given), so that
    saving it unchanged detaches nothing."""
    teams = queries.teams()
    team_id = game.team_id
    if team_id is None and game.team:
        team_id = next((t.id for t in teams if t.name == game.team), None)
    if series is None:
        series = season_queries.counted_series(game)
    form = AttachForm(team_id=team_id or 0, series_id=series.id if series else 0)
    form.team_id.choices = [SelectChoice(0, "— нет —")] + [
        SelectChoice(t.id, t.name) for t in teams
    ]
    form.series_id.choices = [SelectChoice(0, "— нет —")] + [
        SelectChoice(x.id, x.display_name)
        for x in queries.all_series()
        if x.season_id == game.season_id
    ]
    return form


@bp.route("/seasons", methods=["POST"])
@access("producer")
def new_season():
    form = SeasonForm(prefix="season")
    if form.validate_on_submit():
        on_refusal("Сезон не создан: ", url_for("games.index"))
        season = create_season(
            form.name.data,
            form.ruleset.data,
            unanswered_prize=form.unanswered_prize.data or None,
            form=True,
            prize_required=True,
        )
        flash(f"Сезон «{season.name}» создан.", "success")
    else:
        flash("Сезон не создан: " + "; ".join(e for v in form.errors.values() for e in v), "error")
    return redirect(url_for("games.index"))


@bp.route("/new", methods=["POST"])
@access("producer")
def new_game():
    form = GameForm(prefix="game")
    form.season_id.choices = [SelectChoice(s.id, s.name) for s in queries.seasons()]
    if form.validate_on_submit():
        on_refusal("Игра не создана: ", url_for("games.index"))
        game = create_game(
            form.season_id.data,
            form.kind.data,
            form.air_date.data,
            {
                "blitz": form.blitz.data,
                "superblitz": form.superblitz.data,
                "sector13": form.sector13.data,
            },
            team=form.team.data,
            title=form.title.data,
        )
        return redirect(url_for("games.game", game_id=game.id))
    else:
        flash("Игра не создана: " + "; ".join(e for v in form.errors.values() for e in v), "error")
    return redirect(url_for("games.index"))


@bp.route("/<int:game_id>")
@access("producer|host")
def game(game_id: int):
    game = _game_or_404(game_id)
    counted = season_queries.counted_series(game)  # replays the season once for the page
    return render_template(
        "games/game.html",
        game=game,
        form=ActionForm(),
        close_form=CloseGameForm(),
        documents=_downloadable_documents(game.id),
        state=game_state(game),
        attach_form=_attach_form(game, counted),
        counted_series=counted,
        protocol_form=ProtocolForm(),
        print_form=PrintForm(),
        copies=queries.game_copies(game.id),
        start_refusal=start_refusal(game),
        document_labels=DOCUMENT_LABELS,
        download_text=download_text,
        start_confirmation=start_confirmation(game),
        allow_start_form=AllowStartForm(),
    )


@bp.route("/<int:game_id>/documents.json")
@access("producer|host")
def documents_json(game_id: int):
    """The game's documents for the game page's live status (``static/game.js`` polls it):
    ``{"documents": [{"id", "kind", "label", "status", "url", "download"}], "pending": bool}``; only the
    kinds the caller's role may download, as on the page; ``url`` is set once the PDF is
    ready."""
    game = _game_or_404(game_id)
    docs = [
        {
            "id": d.id,
            "kind": d.kind,
            "label": DOCUMENT_LABELS.get(d.kind, d.kind),
            "status": d.status,
            "url": url_for("games.document", document_id=d.id) if d.status == "ready" else None,
            "download": download_text(d.kind),
        }
        for d in _downloadable_documents(game.id)
    ]
    return jsonify({"documents": docs, "pending": any(d["status"] == "pending" for d in docs)})


@bp.route("/<int:game_id>/allow-start", methods=["POST"])
@access("producer")
def allow_start_view(game_id: int):
    """The producer lets the console start the game without a locked table or rendered
    envelopes (audited with the reason; issue 17 item 5)."""
    game = _game_or_404(game_id)
    form = AllowStartForm()
    if form.validate_on_submit():
        on_refusal("Не разрешено: ", url_for("games.game", game_id=game_id))
        allow_start(game, current_staff().id, form.reason.data)
        flash("Ведущий может начать игру без напечатанных конвертов.", "success")
    else:
        flash("Не разрешено: " + _form_errors(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/assign", methods=["POST"])
@access("producer")
def assign(game_id: int):
    game = _game_or_404(game_id)
    if ActionForm().validate_on_submit():
        on_refusal("Не удалось заполнить стол: ", url_for("games.game", game_id=game_id))
        assign_envelopes(game)
        flash("Стол заполнен из одобренных вопросов.", "success")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/envelopes", methods=["POST"])
@access("producer")
def envelopes(game_id: int):
    """Queue the envelope and host-card PDFs of a locked table, N copies of each."""
    game = _game_or_404(game_id)
    form = PrintForm()
    if form.validate_on_submit():
        on_refusal("Конверты не поставлены в очередь: ", url_for("games.game", game_id=game_id))
        request_envelopes(game, user_id=current_staff().id, copies=form.copies.data)
        flash("Конверты поставлены в очередь на печать.", "success")
    else:
        flash("Конверты не поставлены в очередь: " + _form_errors(form), "error")
    return redirect(url_for("games.game", game_id=game_id))


def _wants_json() -> bool:
    """The console's script asks for JSON (``Accept: application/json``); forms get HTML."""
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and "text/html" not in request.accept_mimetypes.values()


def _console_reply(game, error: dict | None = None, status: int = 200):
    """JSON for the script (``{"ok", "console", "error"?}``) or a redirect for a form."""
    if _wants_json():
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
    return event


@bp.route("/<int:game_id>/protocol.json")
@access("producer|host")
def protocol_file(game_id: int):
    """Download the game as a ``sova.game-protocol/1`` file (``sova game replay`` reads it)."""
    game = _game_or_404(game_id)
    response = jsonify(protocol(game))
    response.headers["Content-Disposition"] = f'attachment; filename="game-{game.id}.json"'
    return response


@bp.route("/<int:game_id>/protocol", methods=["POST"])
@access("producer|host")
def protocol_import(game_id: int):
    """Import a protocol file into a game with no events; every event is checked."""
    game = _game_or_404(game_id)
    form = ProtocolForm()
    if not form.validate_on_submit():
        flash("Протокол не загружен: " + _form_errors(form), "error")
        return redirect(url_for("games.game", game_id=game_id))
    try:
        data = json.loads(form.file.data.read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        flash("Протокол не загружен: это не JSON в UTF-8.", "error")
        return redirect(url_for("games.game", game_id=game_id))

    def refused(exc):
        error = exc.error
        where = f"событие {error['event']}: " if error.get("event") is not None else ""
        flash(f"Протокол не загружен, {where}" + refusal_ru(error), "error")
        return redirect(url_for("games.game", game_id=game_id))

    on_refusal(respond=refused)
    state = import_protocol(game, data, current_staff().id)
    flash(f"Протокол загружен: {len(game.events)} событий, счёт {state['score']}.", "success")
    return redirect(url_for("games.game", game_id=game_id))


@bp.route("/<int:game_id>/table")
@access("editor+|producer")
def table(game_id: int):
    """The table builder: plan, questions and reserves per sector, the completeness check,
    swap/replace forms (``static/table.js`` adds drag-and-drop on top of them)."""
    game = _game_or_404(game_id)
    return render_template(
        "games/table.html",
        game=game,
        plan=table_plan(game),
        check=check_table(game),
        swap_form=SwapForm(prefix="swap"),
        replace_form=ReplaceForm(prefix="replace"),
        form=ActionForm(),
        topics=TOPICS,
    )


def _table_reply(game_id: int, error: str | None = None, ok: str | None = None):
    if _wants_json():
        return jsonify({"ok": error is None, "error": error}), (200 if error is None else 409)
    if error:
        flash(error, "error")
    elif ok:
        flash(ok, "success")
    return redirect(url_for("games.table", game_id=game_id))


@bp.route("/<int:game_id>/table/swap", methods=["POST"])
@access("editor+|producer")
def table_swap(game_id: int):
    game = _game_or_404(game_id)
    form = SwapForm(prefix="swap")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Не изменено: " + _form_errors(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Не изменено: {exc}"))
    swap_slots(
        game,
        (form.sector_a.data, form.slot_a.data or 0),
        (form.sector_b.data, form.slot_b.data or 0),
    )
    return _table_reply(game_id, ok="Вопросы переставлены.")


@bp.route("/<int:game_id>/table/replace", methods=["POST"])
@access("editor+|producer")
def table_replace(game_id: int):
    game = _game_or_404(game_id)
    form = ReplaceForm(prefix="replace")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Не изменено: " + _form_errors(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Не изменено: {exc}"))
    if form.use_reserve.data:
        use_reserve(game, form.sector.data, form.slot.data or 0)
    elif form.question_id.data:
        replace_slot(game, form.sector.data, form.slot.data or 0, form.question_id.data)
    else:
        raise GameError({"question_id": ["укажите № вопроса или возьмите резерв"]})
    return _table_reply(game_id, ok="Вопрос заменён.")


@bp.route("/<int:game_id>/table/topic", methods=["POST"])
@access("editor+|producer")
def table_topic(game_id: int):
    """Set or clear the topic of a question (issue 5: varied topics; also on a locked table,
    the topic is not printed)."""
    _game_or_404(game_id)
    form = TopicForm(prefix="topic")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Тема не изменена: " + _form_errors(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Тема не изменена: {exc}"))
    q = set_topic(form.question_id.data, form.topic.data or None, current_staff().id)
    return _table_reply(game_id, ok=f"Тема вопроса №{q.id}: {topic_label(q.topic) or 'не задана'}.")


@bp.route("/<int:game_id>/table/lock", methods=["POST"])
@access("editor+|producer")
def table_lock(game_id: int):
    game = _game_or_404(game_id)
    if not ActionForm().validate_on_submit():
        return _table_reply(game_id, "Форма устарела, повторите.")
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Не изменено: {exc}"))
    if request.form.get("unlock"):
        unlock_table(game)
    else:
        lock_table(game, current_staff().id)
    return _table_reply(
        game_id,
        ok="Стол разблокирован."
        if request.form.get("unlock")
        else "Стол заблокирован: можно печатать конверты.",
    )


@bp.route("/<int:game_id>/console", methods=["GET", "POST"])
@access("host")
def console(game_id: int):
    """The host console (tablet). GET: the page, or the JSON state for the script. POST: one
    event (form fields of ``EventForm``); refused events change nothing and are explained in
    Russian with the clause. The state is always the replay of the recorded events."""
    game = _game_or_404(game_id)
    form = EventForm()
    if form.validate_on_submit():
        refused = start_refusal(game)
        if refused is not None:
            return _console_reply(game, {"rule": None, "message": refused, "start": True}, 409)
        on_refusal(respond=lambda exc: _console_reply(game, exc.error, 409))
        record_event(game, _event_from_form(form), current_staff().id)
        return _console_reply(game)
    if form.is_submitted():
        error = {"rule": None, "message": _form_errors(form) or "неполная форма"}
        return _console_reply(game, error, 422)
    payload = console_payload(game)
    if _wants_json():
        return jsonify({"ok": True, "console": payload})
    return render_template(
        "games/console.html", game=game, c=payload, form=form, action_form=ActionForm()
    )


@bp.route("/<int:game_id>/undo", methods=["POST"])
@access("host")
def undo(game_id: int):
    """Undo the last event (audited: who, when, which event)."""
    game = _game_or_404(game_id)
    if not ActionForm().validate_on_submit():
        return _console_reply(game, {"rule": None, "message": "форма устарела"}, 422)
    on_refusal(respond=lambda exc: _console_reply(game, {"rule": None, "message": str(exc)}, 409))
    undo_last_event(game, current_staff().id)
    if not _wants_json():
        flash("Последнее событие отменено.", "success")
    return _console_reply(game)


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
    return send_file(
        path,
        mimetype="application/pdf",
        as_attachment=False,
        download_name=f"{doc.kind}-{doc.id}.pdf",
    )


@bp.app_template_filter("sector_label")
def sector_label(kind: str) -> str:
    return {
        "single": "Вопрос",
        "blitz": "Блиц",
        "superblitz": "Суперблиц",
        "sector13": "13 сектор",
    }.get(kind, kind)


@bp.app_template_filter("game_status")
def game_status_filter(status: str) -> str:
    """A game status code as its Russian label (``"draft"`` → ``"черновик"``)."""
    return status_label(status)


@bp.app_template_filter("rule_ref")
def rule_ref_filter(rule: str | None) -> str:
    """A rule citation as staff read it: ``"000_90d7c8192601ed3a.txt §3.5"`` →
    ``"п. 3.5 Правил сезона 2023 г."`` (``webapp.domain.rules.rule_reference``)."""
    return rule_reference(rule or "")


#: The seasons' time zones (the rule sets': ``RuleSet.timezone``) as staff read them.
TIMEZONE_LABELS = {"Europe/Minsk": "минское", "Europe/Moscow": "московское"}


@bp.app_template_filter("timezone_label")
def timezone_label_filter(zone: str) -> str:
    """``"Europe/Minsk"`` → ``"минское"`` (an unknown zone is shown as is)."""
    return TIMEZONE_LABELS.get(zone, zone)


@bp.app_template_filter("season_time")
def season_time_filter(at: datetime | None, zone: str) -> str:
    """A stored (UTC) time shown in the season's zone: ``"01.12.2026 14:05"``; ``"—"``
    for None."""
    return at.astimezone(ZoneInfo(zone)).strftime("%d.%m.%Y %H:%M") if at else "—"


@bp.app_template_filter("game_kind")
def game_kind_filter(kind: str) -> str:
    """A game kind code as its Russian label (``"qualifying"`` → ``"отборочная"``)."""
    return GAME_KIND_LABELS.get(kind, kind)


@bp.app_template_filter("topic_label")
def topic_label_filter(code: str | None) -> str:
    return topic_label(code)


@bp.app_context_processor
def _request_args():
    return {"args": request.args}
