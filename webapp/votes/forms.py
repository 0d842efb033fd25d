"""Forms of the vote pages (host and producer)."""

from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, SelectField, TextAreaField
from wtforms.validators import DataRequired, Length

from webapp.core.fields import SovaForm


class OpenVoteForm(SovaForm):
    candidates = TextAreaField(
        _l("Кандидаты, по одному в строке (номер — порядок строки)"), validators=[Length(max=5000)]
    )


class CloseVoteForm(SovaForm):
    confirm = BooleanField(
        _l("Да, закрыть голосование: приём SMS прекратится, итог будет зафиксирован"),
        validators=[DataRequired(_l("Подтвердите закрытие."))],
    )


class VoteAwardForm(SovaForm):
    chosen = SelectField(_l("Лучший игрок"), validate_choice=False)
    reason = TextAreaField(
        _l(
            "Основание, если лучшего игрока определяет представитель "
            "Генерального спонсора не по итогам голосования"
        ),
        validators=[Length(max=1000)],
    )
