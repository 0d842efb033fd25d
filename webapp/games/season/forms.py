"""Forms of the season pages (CSRF by Flask-WTF). Russian labels: staff pages."""

from __future__ import annotations

from wtforms import (
    BooleanField,
    DateField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, Optional

from webapp.core.fields import NumberRange, SovaForm
from webapp.domain.rules.parameters import PARAMETERS
from webapp.games.forms import PLAN_HELP

_YES_NO = {"да": True, "нет": False}

EVENT_TYPES = [
    ("series", "Открыть серию"),
    ("withdraw", "Отказ команды от серии"),
    ("rematch", "Просьба о переигровке (2009)"),
    ("decline_winter", "Отказ от места в зимней серии (2009)"),
    ("enter", "Ввести команду (резерв 2023 / спонсор 2009)"),
    ("amend", "Изменение правил (п. 4.12.1)"),
]
PARTS = [("spring", "Весенняя"), ("summer", "Летняя"), ("autumn", "Осенняя"), ("winter", "Зимняя")]
CLOSINGS = [
    ("series_final", "финал серии"),
    ("special", "специальная игра"),
    ("year_final", "финал года"),
    ("none", "без завершающей игры"),
]
KINDS = [
    ("qualifying", "отборочная"),
    ("series_final", "финал серии"),
    ("special", "специальная"),
    ("year_final", "финал года"),
]


class SeasonTeamForm(SovaForm):
    """A team joins the initial rating: an existing one, or a new one (six experts)."""

    team_id = SelectField("Команда", coerce=int, validators=[Optional()])
    name = StringField("Или новая команда", validators=[Optional(), Length(max=200)])
    experts = TextAreaField(
        "Шесть знатоков (по одному в строке)", validators=[Optional(), Length(max=700)]
    )
    captain = StringField("Капитан (один из шести)", validators=[Optional(), Length(max=100)])


class SeasonEventForm(SovaForm):
    """One producer's event of ``season-protocol.md``; only the fields of its type count."""

    type = SelectField("Событие", choices=[SelectChoice(v, label) for v, label in EVENT_TYPES])
    part = SelectField("Серия", choices=[SelectChoice(v, label) for v, label in PARTS])
    qualifying = IntegerField("Отборочных игр", validators=[Optional(), NumberRange(1, 12)])
    closing = SelectField(
        "Завершающая игра", choices=[SelectChoice(v, label) for v, label in CLOSINGS]
    )
    team = SelectField("Команда", choices=[], validate_choice=False)
    granted = BooleanField("Переигровка предоставлена")
    enter_as = SelectField(
        "Как",
        choices=[
            SelectChoice("reserve", "резервная (2023 §4.9.3)"),
            SelectChoice("sponsor", "команда спонсора (2009 §2.13)"),
        ],
    )
    # 2023 §4.12.1: an amendment (choices: the season's parameters, set by the view)
    parameter = SelectField("Что меняется", choices=[], validate_choice=False)
    value = StringField(
        "Новое значение",
        validators=[Optional(), Length(max=20)],
        description="целое число; для решающего раунда и «Минуты в кредит» — «да» или «нет»",
    )
    note = StringField("Что объявлено и кем", validators=[Optional(), Length(max=1000)])
    confirm = BooleanField("Подтверждаю: правила меняются со следующего события сезона")

    def validate(self, extra_validators=None) -> bool:
        """The fields of the chosen event; an amendment needs its parameter, a value of the
        parameter's type (whole number, or «да»/«нет») and the confirmation."""
        if not super().validate(extra_validators):
            return False
        if self.type.data != "amend":
            return True
        parameter = PARAMETERS.get(self.parameter.data or "")
        if parameter is None:
            self.parameter.errors = ["Выберите, что меняется."]
            return False
        text = (self.value.data or "").strip().lower()
        if parameter.kind is bool:
            if text not in _YES_NO:
                self.value.errors = ["Укажите «да» или «нет»."]
                return False
            self.amended_value: int | bool = _YES_NO[text]
        else:
            if not text.lstrip("-").isdigit():
                self.value.errors = ["Укажите целое число."]
                return False
            self.amended_value = int(text)
        if not self.confirm.data:
            self.confirm.errors = ["Подтвердите изменение правил."]
            return False
        return True

    def payload(self) -> dict:
        kind = self.type.data
        if kind == "amend":
            return {
                "type": "amend",
                "set": {self.parameter.data: self.amended_value},
                "note": (self.note.data or "").strip(),
            }
        if kind == "series":
            return {
                "type": "series",
                "part": self.part.data,
                "qualifying": self.qualifying.data,
                "closing": self.closing.data,
            }
        if kind == "rematch":
            return {"type": "rematch", "team": self.team.data, "granted": bool(self.granted.data)}
        if kind == "enter":
            return {"type": "enter", "team": self.team.data, "as": self.enter_as.data}
        return {"type": kind, "team": self.team.data}


class SeasonGameForm(SovaForm):
    """A new game proposed from the season state (kind and team from ``next``)."""

    kind = SelectField("Вид игры", choices=[SelectChoice(v, label) for v, label in KINDS])
    team_id = SelectField("Команда", coerce=int)
    air_date = DateField("Дата эфира", validators=[InputRequired("Укажите дату эфира.")])
    blitz = IntegerField(
        "Сектор блица", validators=[Optional(), NumberRange(1, 13)], description=PLAN_HELP["blitz"]
    )
    superblitz = IntegerField(
        "Сектор суперблица",
        validators=[Optional(), NumberRange(1, 13)],
        description=PLAN_HELP["superblitz"],
    )
    sector13 = IntegerField(
        "13 сектор", validators=[Optional(), NumberRange(1, 13)], description=PLAN_HELP["sector13"]
    )


class SeasonPrizeForm(SovaForm):
    """The season's cash prize per unanswered question (2009 §1.2.2 names no amount)."""

    unanswered_prize = StringField(
        "Приз за невзятый вопрос",
        validators=[DataRequired("Укажите сумму, например 1000,00."), Length(max=20)],
    )


class SeasonDonorForm(SovaForm):
    """The donor of the season's prizes («Даритель» of its gift agreements, minutes and vote
    result; webapp.domain.donor checks the values). The box confirms that the unsigned
    agreements of the season are issued again with it."""

    name = StringField(
        "Даритель (полное наименование)",
        validators=[DataRequired("Укажите наименование дарителя."), Length(max=300)],
    )
    city = StringField(
        "Город (место заключения договоров)",
        validators=[DataRequired("Укажите город дарителя."), Length(max=100)],
    )
    representative = StringField(
        "В лице (кто подписывает, в родительном падеже; можно оставить пустым)",
        validators=[Optional(), Length(max=300)],
    )
    details = TextAreaField(
        "Реквизиты: адрес, УНП или ИНН, банковский счёт", validators=[Optional(), Length(max=2000)]
    )
    confirm = BooleanField(
        "Да, договоры дарения сезона, ещё не подписанные, будут выписаны заново на этого дарителя",
        validators=[DataRequired("Подтвердите смену дарителя: отметьте галочку.")],
    )
