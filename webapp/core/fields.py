"""Form validators shared by the features' forms (WTForms)."""

from __future__ import annotations

from wtforms import validators
from wtforms.validators import StopValidation


class NumberRange(validators.NumberRange):
    """WTForms' ``NumberRange``, silent when the field could not read a number at all: a
    person who typed «abc» reads the field's own «Неверное целое число.», not that and a
    second «Значение должно быть между 0 и 100.» about a value they never gave."""

    def __call__(self, form, field) -> None:
        if field.data is None and field.process_errors:
            raise StopValidation()  # no message: the parse error stands alone
        super().__call__(form, field)
