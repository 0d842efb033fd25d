"""Forms of the prizes pages (Flask-WTF: CSRF on every one)."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import DateField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional


class ActionForm(FlaskForm):
    """A button-only POST (CSRF token only)."""


class AwardForm(FlaskForm):
    """Award an individual prize after a game (choices filled by the view)."""

    kind = SelectField("Приз", validators=[DataRequired("Выберите приз.")])
    recipient = StringField("Награждаемый знаток (имя и фамилия)",
                            validators=[Optional(), Length(max=200)])
    team = TextAreaField("Состав команды знатоков (по одному в строке)",
                         validators=[Optional(), Length(max=3000)])
    author_id = SelectField("Лучший автор вопроса", coerce=int, validate_choice=False)


class SignedForm(FlaskForm):
    scan = FileField("Скан подписанного договора (PDF, PNG, JPEG)",
                     validators=[FileRequired("Приложите скан.")])


class PaidForm(FlaskForm):
    paid_on = DateField("Дата оплаты", validators=[DataRequired("Укажите дату оплаты.")])
    reference = StringField("Номер платёжного поручения",
                            validators=[DataRequired("Укажите номер."), Length(max=100)])


class PayeeForm(FlaskForm):
    """The payee's passport and bank details (validated in ``webapp.prizes.payee``)."""

    full_name = StringField("Фамилия, имя, отчество", validators=[Length(max=300)])
    country = SelectField("Паспорт и счёт", choices=[("BY", "Беларусь"), ("RU", "Россия")])
    passport_series = StringField("Серия паспорта", validators=[Length(max=10)])
    passport_number = StringField("Номер паспорта", validators=[Length(max=20)])
    issued_by = StringField("Кем выдан", validators=[Length(max=300)])
    issued_on = StringField("Дата выдачи (ГГГГ-ММ-ДД)", validators=[Length(max=20)])
    personal_number = StringField("Идентификационный номер (Беларусь)",
                                  validators=[Length(max=20)])
    inn = StringField("ИНН (Россия, если есть)", validators=[Length(max=20)])
    address = TextAreaField("Адрес регистрации", validators=[Length(max=300)])
    iban = StringField("Счёт IBAN (Беларусь, BY…)", validators=[Length(max=40)])
    account = StringField("Расчётный счёт (Россия, 20 цифр)", validators=[Length(max=30)])
    bik = StringField("БИК банка (Россия)", validators=[Length(max=12)])
    tax_status = SelectField("Налоговый статус", choices=[
        ("resident", "Налоговый резидент страны выплаты"),
        ("non_resident", "Не являюсь налоговым резидентом страны выплаты")])


class RegisterForm(FlaskForm):
    """Period of the payment register (GET form: no CSRF needed for a download)."""

    class Meta:
        csrf = False

    start = DateField("С", validators=[DataRequired("Укажите начало периода.")])
    end = DateField("По", validators=[DataRequired("Укажите конец периода.")])
    format = SelectField("Формат", choices=[("xlsx", "XLSX"), ("csv", "CSV")])


class RegisterPdfForm(FlaskForm):
    """Period of a payment register PDF to render (POST: it creates a document)."""

    start = DateField("С", validators=[DataRequired("Укажите начало периода.")])
    end = DateField("По", validators=[DataRequired("Укажите конец периода.")])


class PaidListForm(FlaskForm):
    paid_list = FileField("Выписка банка об оплате (CSV: Договор;Сумма;Дата;Номер п/п)",
                          validators=[FileRequired("Приложите файл.")])
