"""Forms of the author's "my questions" pages."""

from flask_babel import lazy_gettext as _l
from wtforms import EmailField
from wtforms.validators import DataRequired, Email, Length

from webapp.core.fields import SovaForm


class MyLinkForm(SovaForm):
    email = EmailField(
        _l("Электронная почта, с которой вы присылали вопросы"),
        validators=[
            DataRequired(_l("Заполните это поле.")),
            Length(max=254),
            # a typo is said at once rather than answered «мы отправили ссылку»; it tells
            # nothing of which addresses Sova knows
            Email(_l("Неверный адрес электронной почты."), check_deliverability=False),
        ],
    )


class WithdrawForm(SovaForm):
    """A bare CSRF-protected POST."""
