"""Staff login form."""

from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    email = EmailField("Электронная почта", validators=[DataRequired("Укажите почту."),
                                                        Length(max=254)])
    password = PasswordField("Пароль", validators=[DataRequired("Укажите пароль."),
                                                   Length(max=200)])
