"""The viewer's submission form (Flask-WTF: CSRF on, Russian messages)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional

from webapp.submissions.operations import LIMITS, MIN_QUESTION

REQUIRED = "Заполните это поле."


def _len(name: str, minimum: int = -1) -> Length:
    return Length(min=minimum, max=LIMITS[name],
                  message=f"Допускается от {max(minimum, 0)} до {LIMITS[name]} символов.")


class SubmitForm(FlaskForm):
    """Question, answer, comment, sources (one per line), author name, city, e-mail,
    consent. Lengths from ``operations.LIMITS``; the operation re-checks everything."""

    question = TextAreaField("Вопрос", validators=[DataRequired(REQUIRED),
                                                   _len("question", MIN_QUESTION)])
    answer = StringField("Ответ", validators=[DataRequired(REQUIRED), _len("answer")])
    accepted = StringField("Зачёт (другие верные ответы)", validators=[Optional(),
                                                                       _len("accepted")])
    comment = TextAreaField("Комментарий", validators=[Optional(), _len("comment")])
    sources = TextAreaField("Источники (по одному в строке)",
                            validators=[Optional(), _len("sources")])
    name = StringField("Имя и фамилия", validators=[DataRequired(REQUIRED), _len("name")])
    city = StringField("Город", validators=[Optional(), _len("city")])
    email = EmailField("Электронная почта", validators=[DataRequired(REQUIRED),
                                                        Length(max=254)])
    consent = BooleanField(
        "Я согласен(на) на обработку моих персональных данных для участия в проекте",
        validators=[DataRequired("Без согласия на обработку персональных данных "
                                 "мы не можем принять вопрос.")],
    )
