"""Forms of the season pages (CSRF by Flask-WTF). Russian labels: staff pages."""

from __future__ import annotations

import re
from collections.abc import Mapping

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
from webapp.domain.rules.game import same_name
from webapp.domain.rules.parameters import PARAMETERS
from webapp.domain.season import MAX_POINTS
from webapp.games.forms import PLAN_HELP

_YES_NO = {"да": True, "нет": False}
_SCORE = re.compile(r"^\d{1,2}:\d{1,2}$")

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


#: The unanswered prize's own «required» message: every amount of the season page says it.
AMOUNT_REQUIRED = "Укажите сумму, например 1000,00."


class SeasonPrizeForm(SovaForm):
    """The season's cash prize per unanswered question (2009 §1.2.2 names no amount)."""

    unanswered_prize = StringField(
        "Приз за невзятый вопрос",
        validators=[DataRequired(AMOUNT_REQUIRED), Length(max=20)],
    )


class SeasonAmountsForm(SovaForm):
    """The amounts of the season's individual prizes: one text field per amount key of the
    season's book, named by the key and labelled as the book labels it (made by
    :func:`season_amounts_form`, so a book's new prize needs no form change), checked as
    the prize per unanswered question is (required here, the amount itself by the
    operation). The box confirms that the prizes awarded from now on pay the new amounts."""

    #: the amount fields' names (the book's amount keys), in the book's order
    amount_keys: tuple[str, ...] = ()
    confirm = BooleanField(
        "Да, призы, выдаваемые с этого момента, получат эти суммы; выданные сохраняют свои",
        validators=[DataRequired("Подтвердите изменение сумм призов: отметьте галочку.")],
    )

    @property
    def amounts(self) -> dict[str, str]:
        """``{amount key: typed text}`` of the amount fields."""
        return {name: f.data for name, f in self._fields.items() if name in self.amount_keys}


def season_amounts_form(amounts: Mapping, lang: str, **kwargs) -> SeasonAmountsForm:
    """A :class:`SeasonAmountsForm` with one field per key of ``amounts`` (a book's
    ``Book.amounts``), labelled in ``lang`` (ru/be/en; the book's labels)."""
    fields = {}
    for key, amount in amounts.items():
        if hasattr(SeasonAmountsForm, key):
            raise ValueError(f"amount key {key!r} clashes with the form's own attribute")
        fields[key] = StringField(
            amount.label(lang), validators=[DataRequired(AMOUNT_REQUIRED), Length(max=20)]
        )
    form_class = type(
        "SeasonAmountsForm", (SeasonAmountsForm,), {**fields, "amount_keys": tuple(fields)}
    )
    return form_class(prefix="amounts", **kwargs)


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


#: The words a producer writes in a line of the games so far (Russian, lower case).
START_PARTS = {label.lower(): value for value, label in PARTS}
START_KINDS = {
    "отборочная": "qualifying",
    "финал серии": "series_final",
    "специальная": "special",
    "финал года": "year_final",
    "переигровка": "rematch",
}
START_DECISIVE = "рр"
START_WITHDRAW = "отказ"


class SeasonStartForm(SovaForm):
    """Sova's ``start`` event (``docs/protocols.md``): where a season joined under way stands.
    The teams are named as the season lists them (case and runs of spaces aside:
    :func:`webapp.domain.rules.game.same_name`); ``names`` (the season's team names) is set
    by the view before :meth:`validate`. :meth:`payload` gives the event."""

    part = SelectField(
        "Серия, с которой сезон ведётся в Сове",
        choices=[SelectChoice(v, label) for v, label in PARTS],
    )
    qualifying = IntegerField(
        "Отборочных игр в ней",
        validators=[InputRequired("Укажите число отборочных игр."), NumberRange(1, 12)],
    )
    closing = SelectField(
        "Завершающая игра серии", choices=[SelectChoice(v, label) for v, label in CLOSINGS]
    )
    rating = TextAreaField(
        "Рейтинг серии при её открытии (по команде в строке, первое место — первым)",
        validators=[DataRequired("Укажите рейтинг серии."), Length(max=3000)],
    )
    results = TextAreaField(
        "Сыгранные игры",
        validators=[Optional(), Length(max=20000)],
        description="все игры сезона до этой точки, по порядку, по одной в строке: "
        "серия; вид игры; команда; счёт знатоки:телезрители; «РР», если был "
        "решающий раунд — например: весенняя; отборочная; Потапова; 4:6. Виды игр: "
        "отборочная, финал серии, специальная, финал года, переигровка. Отказ команды от "
        "текущей серии — в своём месте среди её игр: осенняя; отказ; Стишенок.",
    )
    winter = TextAreaField(
        "Сохранили место в зимней серии (правила 2009 г., п. 2.12; по команде в строке)",
        validators=[Optional(), Length(max=3000)],
        description="пусто — все победители финалов серий",
    )
    rematch = StringField(
        "Матч-реванш в этой серии (правила 2009 г., п. 2.10)",
        validators=[Optional(), Length(max=200)],
    )
    sponsor = StringField(
        "Команда спонсора (правила 2009 г., п. 2.13)", validators=[Optional(), Length(max=200)]
    )
    note = StringField(
        "Откуда данные", validators=[DataRequired("Укажите, откуда данные."), Length(max=1000)]
    )
    confirm = BooleanField(
        "Подтверждаю: сезон ведётся в Сове с этой точки, и её уже не изменить",
        validators=[DataRequired("Подтвердите начальную точку сезона.")],
    )

    names: list[str] = []

    def _team(self, text: str) -> str | None:
        return next((n for n in self.names if same_name(n, text)), None)

    def _teams(self, field, lines: list[str]) -> list[str] | None:
        found: list[str] = []
        for line in lines:
            team = self._team(line)
            if team is None:
                field.errors.append(f"«{line}» нет среди команд сезона.")
                return None
            if team in found:
                field.errors.append(f"«{team}» названа дважды.")
                return None
            found.append(team)
        return found

    def validate(self, extra_validators=None) -> bool:
        """Each line of the games: its series (not after the chosen one, in season order),
        kind, a team of the season and a score «E:V»; the teams of the rating, the winter
        places, the rematch and the sponsor are teams of the season."""
        if not super().validate(extra_validators):
            return False
        lines = [line.strip() for line in (self.rating.data or "").splitlines() if line.strip()]
        self.rating_teams = self._teams(self.rating, lines)
        winter = [line.strip() for line in (self.winter.data or "").splitlines() if line.strip()]
        self.winter_teams = self._teams(self.winter, winter) if winter else None
        self.games: list[dict] = []
        ok = self.rating_teams is not None and (not winter or self.winter_teams is not None)
        ok = self._games() and ok
        for field in (self.rematch, self.sponsor):
            text = (field.data or "").strip()
            if text and self._team(text) is None:
                field.errors.append(f"«{text}» нет среди команд сезона.")
                ok = False
        return ok

    def _games(self) -> bool:
        current = [v for v, _ in PARTS].index(self.part.data)
        last = 0
        lines = [line for line in (self.results.data or "").splitlines() if line.strip()]
        for n, line in enumerate(lines, start=1):
            cells = [c.strip() for c in line.split(";")]
            where = f"Строка {n}"
            if len(cells) == 3 and cells[1].lower() == START_WITHDRAW:
                if not self._withdrawal(where, cells, current):
                    return False
                last = current
                continue
            if len(cells) not in (4, 5) or (len(cells) == 5 and cells[4].lower() != START_DECISIVE):
                self.results.errors.append(
                    f"{where}: нужно «серия; вид игры; команда; счёт» и, если был решающий "
                    "раунд, «; РР»; отказ команды от текущей серии — «серия; отказ; команда»."
                )
                return False
            part = START_PARTS.get(cells[0].lower())
            kind = START_KINDS.get(cells[1].lower())
            team = self._team(cells[2])
            score = cells[3].replace(" ", "")
            faults = []
            if part is None:
                faults.append(f"серия «{cells[0]}» — пишите весенняя, летняя, осенняя или зимняя")
            elif [v for v, _ in PARTS].index(part) > current:
                faults.append(
                    f"{cells[0].lower()} серия идёт после той, с которой сезон ведётся в Сове"
                )
            elif [v for v, _ in PARTS].index(part) < last:
                faults.append(
                    f"игры — по порядку серий, а {cells[0].lower()} серия идёт раньше "
                    "предыдущей строки"
                )
            if kind is None:
                faults.append(
                    f"вид игры «{cells[1]}» — пишите отборочная, финал серии, специальная, "
                    "финал года или переигровка"
                )
            if team is None:
                faults.append(f"«{cells[2]}» нет среди команд сезона")
            if not _SCORE.match(score) or max(map(int, score.split(":"))) > MAX_POINTS:
                faults.append(f"счёт «{cells[3]}» — пишите знатоки:телезрители, например 6:3")
            if faults:
                self.results.errors.append(f"{where}: " + "; ".join(faults) + ".")
                return False
            assert part is not None
            last = [v for v, _ in PARTS].index(part)
            game = {"part": part, "kind": kind, "team": team, "score": score}
            if len(cells) == 5:
                game["decisive_round"] = True
            self.games.append(game)
        return True

    def _withdrawal(self, where: str, cells: list[str], current: int) -> bool:
        """«серия; отказ; команда»: a team withdrew from the series Sova starts at (2023
        §4.8.1, 2009 §2.3), in its place among the games."""
        part = START_PARTS.get(cells[0].lower())
        team = self._team(cells[2])
        faults = []
        if part is None or [v for v, _ in PARTS].index(part) != current:
            faults.append("отказ записывается только от серии, с которой сезон ведётся в Сове")
        if team is None:
            faults.append(f"«{cells[2]}» нет среди команд сезона")
        if faults:
            self.results.errors.append(f"{where}: " + "; ".join(faults) + ".")
            return False
        self.games.append({"part": part, "withdraw": team})
        return True

    def payload(self) -> dict:
        """The ``start`` event of the validated form."""
        event: dict = {
            "type": "start",
            "part": self.part.data,
            "qualifying": self.qualifying.data,
            "closing": self.closing.data,
            "rating": self.rating_teams,
            "results": self.games,
            "note": (self.note.data or "").strip(),
        }
        if self.winter_teams is not None:
            event["winter"] = self.winter_teams
        for name in ("rematch", "sponsor"):
            text = (getattr(self, name).data or "").strip()
            if text:
                event[name] = self._team(text)
        return event
