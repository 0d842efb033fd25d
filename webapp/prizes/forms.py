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
