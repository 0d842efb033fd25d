"""Producer and host forms."""

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    DateTimeLocalField,
    HiddenField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, Optional

from webapp.core.fields import NumberRange, SovaForm
from webapp.domain.books import BOOKS
from webapp.domain.topics import TOPICS

SECTOR = [Optional(), NumberRange(1, 13, "Номер от 1 до 13.")]  # the label names the sector

#: What each table-plan field means: the help text under the field.
PLAN_HELP = {
    "blitz": "Номер сектора (1–13), где лежат три вопроса блица: команда отвечает на каждый "
    "за 20 секунд. Пусто — блица в игре нет, в секторе будет один вопрос.",
    "superblitz": "Номер сектора (1–13), где лежат три вопроса суперблица: отвечает один "
    "знаток, по 20 секунд на вопрос. Пусто — суперблица в игре нет.",
    "sector13": "Номер сектора с вопросами 13 сектора (по правилам 2023 — вопросы партнёра, "
    "по правилам 2009 — вопросы из Интернета во время игры; обычно 13). Пусто — "
    "13 сектор играет как обычный вопрос.",
}


class SeasonForm(SovaForm):
    name = StringField(
        "Название сезона", validators=[DataRequired("Укажите название."), Length(max=200)]
    )
    ruleset = SelectField(
        "Правила",
        choices=lambda: [SelectChoice(b.name, b.choice_ru) for b in BOOKS.values()],
    )
    unanswered_prize = StringField(
        "Приз за невзятый вопрос (2023: пусто — 300,00 по правилам; 2009: обязательно)",
        validators=[Optional(), Length(max=20)],
    )


class GameForm(SovaForm):
    season_id = SelectField("Сезон", coerce=int)
    kind = SelectField(
        "Вид игры",
        choices=[
            SelectChoice("qualifying", "Отборочная"),
            SelectChoice("series_final", "Финал серии"),
            SelectChoice("year_final", "Финал года"),
            SelectChoice("special", "Специальная"),
        ],
    )
    title = StringField("Название", validators=[Optional(), Length(max=200)])
    air_date = DateField("Дата эфира", validators=[InputRequired("Укажите дату.")])
    team = StringField(
        "Команда знатоков",
        validators=[Optional(), Length(max=200)],
        description="Только название. Команду с составом знатоков (её выбирают для пульта "
        "ведущего) выберите потом на странице игры: «Команда».",
    )
    blitz = IntegerField("Сектор блица", validators=SECTOR, description=PLAN_HELP["blitz"])
    superblitz = IntegerField(
        "Сектор суперблица", validators=SECTOR, description=PLAN_HELP["superblitz"]
    )
    sector13 = IntegerField("13 сектор", validators=SECTOR, description=PLAN_HELP["sector13"])


class TeamForm(SovaForm):
    """A team: name, six experts (one per line), the captain among them."""

    name = StringField("Команда", validators=[DataRequired("Укажите название."), Length(max=200)])
    experts = TextAreaField(
        "Шесть знатоков (по одному в строке)",
        validators=[DataRequired("Перечислите шесть знатоков."), Length(max=700)],
    )
    captain = StringField(
        "Капитан (один из шести)", validators=[DataRequired("Укажите капитана."), Length(max=100)]
    )


class SeriesForm(SovaForm):
    season_id = SelectField("Сезон", coerce=int)
    part = SelectField(
        "Серия",
        choices=[
            SelectChoice("spring", "Весенняя"),
            SelectChoice("summer", "Летняя"),
            SelectChoice("autumn", "Осенняя"),
            SelectChoice("winter", "Зимняя"),
        ],
    )


class AttachForm(SovaForm):
    """Attach a game to a team and a series (0 = none)."""

    team_id = SelectField("Команда", coerce=int)
    series_id = SelectField("Серия", coerce=int)


class ActionForm(SovaForm):
    """A bare CSRF-protected POST (assign, render, close, undo)."""


class AllowStartForm(SovaForm):
    """The producer lets the console start a game whose table is not locked or whose
    envelopes were not rendered (audited with the reason)."""

    confirm = BooleanField(
        "Да, начать игру без заблокированного стола и напечатанных конвертов",
        validators=[DataRequired("Подтвердите: отметьте галочку.")],
    )
    reason = StringField(
        "Причина",
        validators=[DataRequired("укажите причину"), Length(max=500)],
    )


class CloseGameForm(SovaForm):
    """Close a finished game (irreversible: prizes and numbered gift agreements are created);
    the box must be ticked."""

    confirm = BooleanField(
        "Да, закрыть игру: будут начислены призы и выданы номера "
        "договоров дарения, отменить это нельзя",
        validators=[DataRequired("Подтвердите закрытие игры: отметьте галочку.")],
    )


class EventForm(SovaForm):
    """One host event; fields as in ``contracts/game-protocol.md``."""

    type = HiddenField(validators=[DataRequired()])
    sector = IntegerField("Сектор", validators=SECTOR)
    correct = HiddenField()
    early = BooleanField("Досрочный ответ")
    option = HiddenField()
    minute = HiddenField()  # a ``minute`` tap's action: start | stop
    expert = StringField("Отвечал (знаток)", validators=[Optional(), Length(max=100)])
    # the revision of the events the console showed when the host pressed: another device's
    # event recorded or undone meanwhile makes this one stale (``record_event``)
    after = IntegerField(validators=[Optional(), NumberRange(0, 2**31 - 1)])


class UndoForm(SovaForm):
    """The host's undo: ``after``, the revision of the events the console showed (stale when
    another device recorded or undid an event meanwhile: the undo would take another)."""

    after = IntegerField(validators=[Optional(), NumberRange(0, 2**31 - 1)])


SLOT = [NumberRange(0, 3, "Ячейка от 0 (резерв) до 3.")]
# A database Integer primary key: a larger number names no row (and overflows SQLite).
QUESTION_ID = [NumberRange(1, 2**31 - 1, "Нет такого вопроса.")]


def _swap_place(nominative: str, genitive: str) -> tuple[IntegerField, IntegerField]:
    """The sector and slot fields of one of a swap's two places, named by its ordinal
    («первый», «первого»), so that a message says which place is wrong."""
    return (
        IntegerField(
            f"{nominative.capitalize()} сектор",
            validators=[InputRequired(f"Укажите {nominative} сектор."), *SECTOR[1:]],
        ),
        IntegerField(
            f"Ячейка {genitive} сектора",
            validators=[
                Optional(),
                NumberRange(0, 3, f"Ячейка {genitive} сектора: от 0 (резерв) до 3."),
            ],
            default=1,
        ),
    )


class SwapForm(SovaForm):
    """Swap two table slots (no-JS counterpart of drag-and-drop); slot 0 is the reserve."""

    sector_a, slot_a = _swap_place("первый", "первого")
    sector_b, slot_b = _swap_place("второй", "второго")


class ReplaceForm(SovaForm):
    """Put an approved question (by number) into a slot, or the sector's reserve."""

    sector = IntegerField("Сектор", validators=[DataRequired("Укажите сектор."), *SECTOR[1:]])
    slot = IntegerField("Ячейка", validators=[Optional(), *SLOT], default=1)
    question_id = IntegerField("№ вопроса", validators=[Optional(), *QUESTION_ID])
    use_reserve = BooleanField("Взять резерв сектора")


class ProtocolForm(SovaForm):
    """Upload a ``sova.game-protocol/1`` file (JSON) into a game with no events."""

    file = FileField("Файл протокола (.json)", validators=[FileRequired("Выберите файл.")])


class PrintForm(SovaForm):
    """Queue the envelopes and host cards: how many copies of each (distinct serials)."""

    copies = IntegerField(
        "Экземпляров",
        default=1,
        validators=[
            # InputRequired, not DataRequired: a typed «0» is a number out of range, not
            # an empty field
            InputRequired("Укажите число экземпляров."),
            NumberRange(1, 20, "От 1 до 20 экземпляров."),
        ],
    )


class TopicForm(SovaForm):
    """Set or clear a question's topic (``webapp.domain.topics.TOPICS``) on the table page."""

    question_id = IntegerField(
        "№ вопроса", validators=[DataRequired("Укажите № вопроса."), *QUESTION_ID]
    )
    topic = SelectField(
        "Тема",
        choices=[
            SelectChoice("", "— без темы —"),
            *(SelectChoice(k, v) for k, v in TOPICS.items()),
        ],
        validators=[Optional()],
    )


class ReadingBudgetForm(SovaForm):
    """The producer's budget for reading the episode's questions aloud, in minutes and
    seconds (both empty: no budget)."""

    minutes = IntegerField(
        "Бюджет на чтение вопросов: минут",
        validators=[
            Optional(),
            NumberRange(0, 120, "Бюджет на чтение вопросов: от 0 до 120 минут."),
        ],
    )
    seconds = IntegerField(
        "секунд", validators=[Optional(), NumberRange(0, 59, "Секунд: от 0 до 59.")]
    )


class GameHostForm(SovaForm):
    """The episode's host (``choices``: ``games.operations.host_choices``, set by the
    view); «—» names none."""

    host_user_id = SelectField("Ведущий выпуска", choices=[], validate_choice=True)


class AirTimeForm(SovaForm):
    """When the game airs, in the season's time zone (``webapp.games.publication``: its
    questions are public once it is closed and this time has passed)."""

    air_at = DateTimeLocalField(
        _l("Время эфира (по часовому поясу сезона)"),
        format=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"],
        validators=[DataRequired(_l("Укажите дату и время эфира."))],
    )
