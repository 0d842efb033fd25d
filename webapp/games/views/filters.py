"""The games blueprint's template filters (sectors, statuses, clauses, time zones, kinds,
topics) and its context processor."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from flask import request
from flask_babel import get_locale

from webapp.app_lang import per_render
from webapp.domain.books import cite
from webapp.domain.donor import donor_difference, place
from webapp.domain.text import team_phrase
from webapp.domain.topics import topic_label
from webapp.games.models import GAME_KIND_LABELS
from webapp.games.operations import status_label
from webapp.games.views.common import bp


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


@bp.app_template_filter("game_state")
def game_state_filter(game) -> str:
    """A game's status as its pages say it, with the table's lock until the game is played:
    «стол заполнен и заблокирован», «черновик, стол заблокирован», else the status label."""
    label = status_label(game.status)
    if game.table_locked_at is None or game.status not in ("draft", "ready"):
        return label
    return f"{label} и заблокирован" if game.status == "ready" else f"{label}, стол заблокирован"


@bp.app_template_filter("cite")
@bp.app_template_filter("rule_ref")
@per_render
def rule_ref_filter(rule: str | None) -> str:
    """A rule citation as a person reads it, in the page's language:
    ``"000_90d7c8192601ed3a.txt §3.5"`` → ``"п. 3.5 Правил сезона 2023 г."``
    (``webapp.domain.books.cite``); ``""`` for None."""
    return cite(rule, str(get_locale() or "ru"))


@bp.app_template_filter("team_phrase")
def team_phrase_filter(name: str | None, capital: bool = False, quotes: bool = True) -> str:
    """A team in a sentence: «команда «Королёва»», but «Команда Евгения Стихина» as is
    (:func:`webapp.domain.text.team_phrase`)."""
    return team_phrase(name or "", capital=capital, quotes=quotes)


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


@bp.app_template_filter("donor_place")
def donor_place_filter(city: str | None) -> str:
    """A donor's city as its papers print it: ``"Минск"`` → ``"г. Минск"``."""
    return place(city or "")


@bp.app_template_filter("donor_difference")
def donor_difference_filter(change) -> list[tuple[str, str, str]]:
    """A donor change's changed fields ``[(label, before, after)]``
    (:func:`webapp.domain.donor.donor_difference`)."""
    return donor_difference(change.old or {}, change.new or {})


@bp.app_context_processor
def _request_args():
    return {"args": request.args}
