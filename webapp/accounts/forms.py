"""Staff login form."""

from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    """E-mail (≤ 254 characters) and password (≤ 200); a failing form answers 422."""

    email = EmailField(
        "Электронная почта",
        validators=[
            DataRequired("Укажите почту."),
            Length(max=254, message="Почта не длиннее 254 символов."),
        ],
    )
    password = PasswordField(
        "Пароль",
        validators=[
            DataRequired("Укажите пароль."),
            Length(max=200, message="Пароль не длиннее 200 символов."),
        ],
    )
