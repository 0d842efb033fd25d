"""What every room of ``webapp.games.operations`` shares: sectors, status and field labels,
the two refusals (:class:`GameError` 422, :class:`GameConflict` 409) and input checks."""

from __future__ import annotations

import unicodedata
from decimal import Decimal

from webapp.core.errors import OperationError
from webapp.domain.game_states import InvalidTransition, check_transition
from webapp.domain.money import MoneyError, parse_amount
from webapp.games.models import Game

SECTORS = range(1, 14)

#: Russian names of game statuses for staff pages (``Game.status`` stays the code).
STATUS_LABELS = {
    "draft": "черновик",
    "ready": "стол заполнен",
    "live": "идёт",
    "finished": "сыграна",
    "closed": "закрыта",
}
#: Russian names of the input fields, for messages on staff pages.
FIELD_LABELS = {
    "name": "Название",
    "ruleset": "Правила",
    "currency": "Валюта",
    "timezone": "Часовой пояс",
    "unanswered_prize": "Приз за невзятый вопрос",
    "donor.name": "Даритель",
    "donor.city": "Город дарителя",
    "donor.details": "Реквизиты дарителя",
    "donor.representative": "В лице",
    "table": "Стол",
    "reading_budget_seconds": "Бюджет на чтение",
    "host_user_id": "Ведущий",
    "table.blitz": "Сектор блица",
    "table.superblitz": "Сектор суперблица",
    "table.sector13": "13 сектор",
    "experts": "Знатоки",
    "captain": "Капитан",
    "reason": "Причина",
    "season_id": "Сезон",
    "part": "Серия",
    "team_id": "Команда",
    "series_id": "Серия",
    "kind": "Вид игры",
    "date": "Дата эфира",
    "air_at": "Время эфира",
    "team": "Команда знатоков",
    "title": "Название",
    "sector": "Сектор",
    "slot": "Ячейка",
    "question_id": "№ вопроса",
    "topic": "Тема",
    "copies": "Экземпляров",
}


def status_label(status: str) -> str:
    """The Russian label of a game status code (``"draft"`` → ``"черновик"``)."""
    return STATUS_LABELS.get(status, status)


class GameError(OperationError, ValueError):
    """Bad input for a game operation. ``errors``: ``{field: [message]}`` → HTTP 422."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(
            "; ".join(f"{FIELD_LABELS.get(k, k)}: {', '.join(v)}" for k, v in errors.items()),
            errors=errors,
        )
        self.errors = errors


class GameConflict(OperationError, RuntimeError):
    """The game's state does not allow this (HTTP 409). ``error``: a JSON-able dict; for
    a rule refusal it is the game-protocol error object (event, rule, message)."""

    status = 409

    def __init__(self, message: str, **extra):
        super().__init__(message, error={**extra, "message": message})


def move_game(game: Game, to: str) -> None:
    """Set ``game``'s status to ``to`` through the game's state machine
    (:mod:`webapp.domain.game_states`): the one place a game's status changes (staying in
    its status changes nothing). Raises GameConflict (409) with the machine's refusal for
    a change it does not allow."""
    try:
        check_transition(game.status, to)
    except InvalidTransition as exc:
        raise GameConflict(f"игра {game.id}: {exc.message}") from exc
    game.status = to


#: Air dates a game may have: «Что? Где? Когда?» first aired in 1975; 2100 bounds typos.
FIRST_AIR_YEAR, LAST_AIR_YEAR = 1975, 2100
_BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bad_line_chars(text: str | None) -> bool:
    """True if a one-line name (season, team, expert, title) holds a control character
    (C0/C1, also tab and newline) or a bidirectional override, which would print invisibly
    or reorder text on envelopes and agreements."""
    return any(unicodedata.category(c) == "Cc" or c in _BIDI_CONTROLS for c in text or "")


def amount_or_error(value, field: str, errors: dict, form: bool = False) -> Decimal | None:
    """The amount in ``value`` (:func:`webapp.domain.money.parse_amount`; ``form``: typed by
    a person), or None when empty; a bad amount is added to ``errors[field]``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return parse_amount(value, form=form)
    except MoneyError as exc:
        errors.setdefault(field, []).append(str(exc))
        return None
