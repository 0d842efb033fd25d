"""The table builder: the plan and check, swaps, replacements, topics, the lock."""

from __future__ import annotations

from flask import flash, jsonify, redirect, render_template, request, url_for

from webapp.core.access import access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.domain.reading import seconds_label
from webapp.domain.topics import TOPICS, topic_label
from webapp.games.forms import (
    ActionForm,
    GameHostForm,
    ReadingBudgetForm,
    ReplaceForm,
    SwapForm,
    TopicForm,
)
from webapp.games.operations import (
    GameError,
    check_table,
    host_choices,
    host_pace,
    lock_table,
    replace_slot,
    set_game_host,
    set_reading_budget,
    set_topic,
    swap_slots,
    table_plan,
    unlock_table,
    use_reserve,
)
from webapp.games.queries import reading_plan
from webapp.games.views.common import bp, game_or_404, wants_json


@bp.route("/<int:game_id>/table")
@access("editor+|producer")
def table(game_id: int):
    """The table builder: plan, questions and reserves per sector, the completeness check,
    swap/replace forms (``static/table.js`` adds drag-and-drop on top of them)."""
    game = game_or_404(game_id)
    pace = host_pace(game.host_user_id)
    return render_template(
        "games/table.html",
        game=game,
        plan=table_plan(game),
        check=check_table(game),
        swap_form=SwapForm(prefix="swap"),
        replace_form=ReplaceForm(prefix="replace"),
        form=ActionForm(),
        topics=TOPICS,
        reading=reading_plan(game, pace["rate"]),
        pace=pace,
        host_form=_host_form(game),
        budget_form=ReadingBudgetForm(
            prefix="budget",
            formdata=None,
            data=_budget_data(game),
        ),
        sets_budget=current_staff().role in ("producer", "admin"),
    )


def _host_form(game, formdata=None) -> GameHostForm:
    form = GameHostForm(prefix="host", formdata=formdata)
    form.host_user_id.choices = host_choices()
    if formdata is None:
        form.host_user_id.data = str(game.host_user_id or "")
    return form


@bp.route("/<int:game_id>/table/host", methods=["POST"])
@access("producer")
def table_host(game_id: int):
    """The producer names the episode's host: the reading time is then estimated at that
    host's pace, calibrated from their recorded games."""
    game = game_or_404(game_id)
    form = _host_form(game, formdata=request.form)
    if not form.validate_on_submit():
        return _table_reply(game_id, "Ведущий не назначен: " + errors_line(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Ведущий не назначен: {exc}"))
    chosen = form.host_user_id.data
    set_game_host(game, int(chosen) if chosen else None)
    label = dict(host_choices()).get(chosen or "", "—")
    return _table_reply(
        game_id, ok=f"Ведущий выпуска: {label}." if chosen else "Ведущий выпуска не назначен."
    )


def _budget_data(game) -> dict:
    budget = game.reading_budget_seconds
    if budget is None:
        return {}
    minutes, seconds = divmod(budget, 60)
    return {"minutes": minutes, "seconds": seconds}


@bp.route("/<int:game_id>/table/budget", methods=["POST"])
@access("producer")
def table_budget(game_id: int):
    """The producer's budget for reading the episode's questions aloud (minutes and
    seconds; both empty clears it)."""
    game = game_or_404(game_id)
    form = ReadingBudgetForm(prefix="budget")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Бюджет не изменён: " + errors_line(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Бюджет не изменён: {exc}"))
    minutes, seconds = form.minutes.data, form.seconds.data
    budget = None if minutes is None and seconds is None else (minutes or 0) * 60 + (seconds or 0)
    set_reading_budget(game, budget)
    return _table_reply(
        game_id,
        ok="Бюджет на чтение снят."
        if budget is None
        else f"Бюджет на чтение: {seconds_label(budget)}.",
    )


def _table_reply(game_id: int, error: str | None = None, ok: str | None = None):
    if wants_json():
        return jsonify({"ok": error is None, "error": error}), (200 if error is None else 409)
    if error:
        flash(error, "error")
    elif ok:
        flash(ok, "success")
    return redirect(url_for("games.table", game_id=game_id))


@bp.route("/<int:game_id>/table/swap", methods=["POST"])
@access("editor+|producer")
def table_swap(game_id: int):
    game = game_or_404(game_id)
    form = SwapForm(prefix="swap")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Не изменено: " + errors_line(form))
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
    game = game_or_404(game_id)
    form = ReplaceForm(prefix="replace")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Не изменено: " + errors_line(form))
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
    """Set or clear the topic of a question (varied topics; also on a locked table,
    the topic is not printed)."""
    game_or_404(game_id)
    form = TopicForm(prefix="topic")
    if not form.validate_on_submit():
        return _table_reply(game_id, "Тема не изменена: " + errors_line(form))
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Тема не изменена: {exc}"))
    q = set_topic(form.question_id.data, form.topic.data or None, current_staff().id)
    return _table_reply(game_id, ok=f"Тема вопроса №{q.id}: {topic_label(q.topic) or 'не задана'}.")


@bp.route("/<int:game_id>/table/lock", methods=["POST"])
@access("editor+|producer")
def table_lock(game_id: int):
    game = game_or_404(game_id)
    if not ActionForm().validate_on_submit():
        return _table_reply(game_id, "Форма устарела, повторите.")
    on_refusal(respond=lambda exc: _table_reply(game_id, f"Не изменено: {exc}"))
    if request.form.get("unlock"):
        unlock_table(game)
    else:
        lock_table(game, current_staff().id)
        if not wants_json() and current_staff().role in ("producer", "admin"):
            # the producer prints next: the game page says the table is locked beside the
            # print button (no second message at the top of the page)
            return redirect(url_for("games.game", game_id=game_id, _anchor="print"))
    return _table_reply(
        game_id,
        ok="Стол разблокирован."
        if request.form.get("unlock")
        else "Стол заблокирован: можно печатать конверты.",
    )
