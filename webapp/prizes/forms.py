"""Forms of the prizes pages (Flask-WTF: CSRF on every one)."""

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DateField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, Optional, StopValidation
from wtforms.widgets import DateInput

from webapp.core.fields import SovaForm


class ActionForm(SovaForm):
    """A button-only POST (CSRF token only)."""


class AwardForm(SovaForm):
    """Award an individual prize after a game (choices filled by the view)."""

    kind = SelectField("Приз", validators=[DataRequired("Выберите приз.")])
    recipient = StringField(
        "Награждаемый знаток (имя и фамилия)", validators=[Optional(), Length(max=200)]
    )
    team = TextAreaField(
        "Состав команды знатоков (по одному в строке)", validators=[Optional(), Length(max=3000)]
    )
    author_id = SelectField("Лучший автор вопроса", coerce=int, validate_choice=False)
    reason = TextAreaField(
        "Основание решения представителя Генерального спонсора (лучший игрок игры — "
        "не победитель зрительского голосования или голосования не было)",
        validators=[Optional(), Length(max=1000)],
    )


class SignedForm(SovaForm):
    scan = FileField(
        "Скан подписанного договора (PDF, PNG, JPEG)", validators=[FileRequired("Приложите скан.")]
    )


class PaidForm(SovaForm):
    """Mark a prize paid (irreversible: a recorded payment has no correction); the box must
    be ticked, as for closing a game. Date and number are checked by ``check_payment``."""

    paid_on = DateField("Дата оплаты", validators=[InputRequired("Укажите дату оплаты.")])
    reference = StringField(
        "Номер платёжного поручения",
        validators=[
            DataRequired("Укажите номер платёжного поручения."),
            Length(max=100, message="Номер платёжного поручения — не длиннее 100 символов."),
        ],
    )
    confirm = BooleanField(
        "Да, оплата проведена банком: дата и номер взяты из выписки, исправить их потом нельзя",
        validators=[DataRequired("Подтвердите оплату: отметьте галочку.")],
    )


PAYEE_LABELS = {
    "full_name": _l("Фамилия, имя, отчество"),
    "country": _l("Паспорт и счёт"),
    "passport_series": _l("Серия паспорта"),
    "passport_number": _l("Номер паспорта"),
    "issued_by": _l("Кем выдан"),
    "issued_on": _l("Дата выдачи паспорта"),
    "personal_number": _l("Идентификационный номер (Беларусь)"),
    "inn": _l("ИНН (Россия, если есть)"),
    "address": _l("Адрес регистрации"),
    "iban": _l("Счёт IBAN (Беларусь, BY…)"),
    "account": _l("Расчётный счёт (Россия, 20 цифр)"),
    "bik": _l("БИК банка (Россия)"),
    "tax_status": _l("Налоговый статус"),
}


def _max(name: str, n: int) -> Length:
    """Length ≤ ``n`` with a translated message naming the field (not WTForms' English)."""
    return Length(
        max=n, message=_l("«%(field)s»: не длиннее %(n)s символов.", field=PAYEE_LABELS[name], n=n)
    )


#: The payee form's fields that belong to one country (the rest are common to both).
COUNTRY_FIELDS = {
    "personal_number": "BY",
    "iban": "BY",
    "inn": "RU",
    "account": "RU",
    "bik": "RU",
}


class PayeeForm(SovaForm):
    """The payee's passport and bank details (validated in ``webapp.prizes.payee``).

    Viewer-facing: labels and messages follow the page's language (Flask-Babel). The
    choices are checked by ``payee.validate`` (field-specific messages), not by WTForms.
    """

    full_name = StringField(PAYEE_LABELS["full_name"], validators=[_max("full_name", 300)])
    country = SelectField(
        PAYEE_LABELS["country"],
        validate_choice=False,
        choices=[SelectChoice("BY", _l("Беларусь")), SelectChoice("RU", _l("Россия"))],
    )
    passport_series = StringField(
        PAYEE_LABELS["passport_series"], validators=[_max("passport_series", 10)]
    )
    passport_number = StringField(
        PAYEE_LABELS["passport_number"], validators=[_max("passport_number", 20)]
    )
    issued_by = StringField(PAYEE_LABELS["issued_by"], validators=[_max("issued_by", 300)])
    # a date picker (<input type=date> posts YYYY-MM-DD); checked by payee.validate
    issued_on = StringField(
        PAYEE_LABELS["issued_on"], validators=[_max("issued_on", 20)], widget=DateInput()
    )
    personal_number = StringField(
        PAYEE_LABELS["personal_number"], validators=[_max("personal_number", 20)]
    )
    inn = StringField(PAYEE_LABELS["inn"], validators=[_max("inn", 20)])
    address = TextAreaField(PAYEE_LABELS["address"], validators=[_max("address", 300)])
    iban = StringField(PAYEE_LABELS["iban"], validators=[_max("iban", 40)])
    account = StringField(PAYEE_LABELS["account"], validators=[_max("account", 30)])
    bik = StringField(PAYEE_LABELS["bik"], validators=[_max("bik", 12)])
    tax_status = SelectField(
        PAYEE_LABELS["tax_status"],
        validate_choice=False,
        choices=[
            SelectChoice("resident", _l("Налоговый резидент страны выплаты")),
            SelectChoice("non_resident", _l("Не являюсь налоговым резидентом страны выплаты")),
        ],
    )


class _ValidDate:
    """Validator of a ``DateField``, after ``InputRequired``: a value typed that is no date
    (``2023-13-45``, ``x``) gets ``message`` (naming the field) instead of WTForms' own
    «Неверное значение даты.», which does not say which of two dates is wrong."""

    def __init__(self, message: str):
        self.message = message

    def __call__(self, form, field) -> None:
        if field.process_errors:
            field.errors[:] = []
            raise StopValidation(self.message)


def _period(what: str) -> list:
    """The validators of one end of a register's period (``what``: «начало», «конец»):
    given, and a real date; the years are bounded by ``register._check_period``."""
    return [
        InputRequired(f"Укажите {what} периода."),
        _ValidDate(f"{what.capitalize()} периода: неверная дата."),
    ]


class RegisterForm(SovaForm):
    """Period of the payment register (GET form: no CSRF needed for a download)."""

    class Meta:
        csrf = False

    start = DateField("С", validators=_period("начало"))
    end = DateField("По", validators=_period("конец"))
    format = SelectField(
        "Формат", choices=[SelectChoice("xlsx", "XLSX"), SelectChoice("csv", "CSV")]
    )


class RegisterPdfForm(SovaForm):
    """Period of a payment register PDF to render (POST: it creates a document)."""

    start = DateField("С", validators=_period("начало"))
    end = DateField("По", validators=_period("конец"))


class PaidListForm(SovaForm):
    paid_list = FileField(
        "Выписка банка об оплате (CSV: Договор;Сумма;Дата;Номер п/п)",
        validators=[FileRequired("Приложите файл.")],
    )
