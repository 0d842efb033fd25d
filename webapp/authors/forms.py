"""Forms of the author pages (CSRF on every POST, Flask-WTF)."""

from wtforms import HiddenField, IntegerField
from wtforms.validators import AnyOf, DataRequired, Optional

from webapp.core.fields import NumberRange, SovaForm

MAX_ID = 2**31 - 1


class MergeForm(SovaForm):
    """Merge author ``source`` into ``target`` (the survivor); ``confirm`` = ``"1"`` after
    the preview, else the page only shows what would move."""

    source = IntegerField(
        "Объединить автора №", validators=[DataRequired(), NumberRange(1, MAX_ID)]
    )
    target = IntegerField("в автора №", validators=[DataRequired(), NumberRange(1, MAX_ID)])
    confirm = HiddenField(validators=[Optional(), AnyOf(["1"])])


class ButtonForm(SovaForm):
    """A POST button (confirm an author line): the CSRF token is its only field."""
