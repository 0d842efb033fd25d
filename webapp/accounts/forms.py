"""Staff forms: login, a new password (one's own, or set by the admin); the admin's token
revocation and account switch-off."""

from flask_babel import lazy_gettext as _l
from wtforms import (
    BooleanField,
    EmailField,
    PasswordField,
    SelectChoice,
    SelectField,
    StringField,
)
from wtforms.validators import DataRequired, Email, EqualTo, Length

from webapp.accounts.models import ROLE_LABELS
from webapp.core.fields import SovaForm


class LoginForm(SovaForm):
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


class RevokeTokenForm(SovaForm):
    """Revoke one API token (admin): the box must be ticked."""

    confirm = BooleanField(
        "Да, отозвать этот токен",
        validators=[DataRequired("Подтвердите отзыв токена: отметьте галочку.")],
    )


class DeactivateForm(SovaForm):
    """Switch a staff account off (admin): the box must be ticked."""

    confirm = BooleanField(
        "Да, отключить",
        validators=[DataRequired("Подтвердите отключение: отметьте галочку.")],
    )


#: The shortest password a staff member may choose (OWASP ASVS 2.1.1: at least 12
#: characters); the longest, as the login form takes it.
PASSWORD_MIN, PASSWORD_MAX = 12, 200


def _new_password_fields(cls):
    """The two new-password fields of both password forms."""
    cls.new = PasswordField(
        "Новый пароль",
        validators=[
            DataRequired("Придумайте новый пароль."),
            Length(
                PASSWORD_MIN,
                PASSWORD_MAX,
                f"Новый пароль — от {PASSWORD_MIN} до {PASSWORD_MAX} символов.",
            ),
        ],
    )
    cls.repeat = PasswordField(
        "Новый пароль ещё раз",
        validators=[
            DataRequired("Повторите новый пароль."),
            EqualTo("new", "Пароли не совпадают."),
        ],
    )
    return cls


@_new_password_fields
class PasswordChangeForm(SovaForm):
    """A staff member's own new password: the current one, the new one twice."""

    current = PasswordField(
        "Текущий пароль",
        validators=[
            DataRequired("Укажите текущий пароль."),
            Length(max=PASSWORD_MAX, message=f"Пароль не длиннее {PASSWORD_MAX} символов."),
        ],
    )


@_new_password_fields
class PasswordSetForm(SovaForm):
    """The admin sets a staff member's password (a forgotten one): twice, and the box."""

    confirm = BooleanField(
        "Да, задать пароль: сеансы сотрудника завершатся, его токены доступа будут отозваны",
        validators=[DataRequired("Подтвердите: отметьте галочку.")],
    )


class StaffInviteForm(SovaForm):
    """The admin's «Новый сотрудник»: e-mail, name and role; the account gets an invitation
    link instead of a password."""

    email = EmailField(
        "Электронная почта",
        validators=[
            DataRequired("Укажите почту."),
            Length(max=254, message="Почта не длиннее 254 символов."),
            Email("Это не адрес электронной почты.", check_deliverability=False),
        ],
    )
    name = StringField(
        "Имя и фамилия",
        validators=[
            DataRequired("Укажите имя и фамилию."),
            Length(max=200, message="Имя не длиннее 200 символов."),
        ],
    )
    role = SelectField(
        "Роль",
        choices=[SelectChoice(code, label) for code, label in ROLE_LABELS.items()],
        validators=[DataRequired("Выберите роль.")],
    )


class RenewInvitationForm(SovaForm):
    """A new invitation link for an account without a password (the older links stop)."""


@_new_password_fields
class InvitationAcceptForm(SovaForm):
    """The invitee's first password, twice."""
