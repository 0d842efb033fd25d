"""Forms of the author's "my questions" pages."""

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import EmailField
from wtforms.validators import DataRequired, Length


class MyLinkForm(FlaskForm):
    email = EmailField(
        _l("Электронная почта, с которой вы присылали вопросы"),
        validators=[DataRequired(_l("Заполните это поле.")), Length(max=254)],
    )


class WithdrawForm(FlaskForm):
    """A bare CSRF-protected POST."""
