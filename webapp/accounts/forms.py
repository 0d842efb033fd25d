"""Staff forms: login; the admin's token revocation and account switch-off."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, PasswordField
from wtforms.validators import DataRequired, Length


class LoginForm(FlaskForm):
    """E-mail (≤ 254 characters) and password (≤ 200); a failing form answers 422."""

    email = EmailField(
        _l("Электронная почта"),
        validators=[
            DataRequired(_l("Укажите почту.")),
            Length(max=254, message=_l("Почта не длиннее 254 символов.")),
        ],
    )
    password = PasswordField(
        _l("Пароль"),
        validators=[
            DataRequired(_l("Укажите пароль.")),
            Length(max=200, message=_l("Пароль не длиннее 200 символов.")),
        ],
    )


class RevokeTokenForm(FlaskForm):
    """Revoke one API token (admin): the box must be ticked."""

    confirm = BooleanField(
        "Да, отозвать этот токен",
        validators=[DataRequired("Подтвердите отзыв токена: отметьте галочку.")],
    )


class DeactivateForm(FlaskForm):
    """Switch a staff account off (admin): the box must be ticked."""

    confirm = BooleanField(
        "Да, отключить",
        validators=[DataRequired("Подтвердите отключение: отметьте галочку.")],
    )
