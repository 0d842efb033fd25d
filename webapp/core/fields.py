"""Form validators and the one-line error message shared by the features' forms (WTForms)."""

from __future__ import annotations

import re

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


def errors_line(form) -> str:
    """A form's error messages in one line for a flash, each named by its field's label where
    the message does not name it already: «Приз за невзятый вопрос: укажите сумму; Укажите
    дату оплаты.» (shape: str, "" when the form has no errors).

    Each message is a ``str`` (WTForms' own are lazy strings), without its trailing full stop
    (one ends the line, none stands before a semicolon). The label goes first when the
    message has no word beginning with the stem of the label's first word (the word without
    its last letter, at least three: «Дата оплаты» — «Укажите дату оплаты» needs none), and whenever two fields give the same message («Сектор
    блица: сектор от 1 до 13; Сектор суперблица: сектор от 1 до 13»); the message's first
    letter is lowered after it unless it begins an abbreviation («PDF»). A message repeated
    word for word by one field is said once. Errors of the form itself (key ``None``), of a
    box to tick and of a field without a label of its own stand alone."""
    pairs: list[tuple[str, str]] = []
    for name, messages in form.errors.items():
        field = form._fields.get(name) if name is not None else None
        label = str(field.label.text).strip() if field is not None and field.label else ""
        if field is not None and (
            label == field.name.replace("_", " ").title() or field.type == "BooleanField"
        ):
            # WTForms' default label (the field's name: not a word to show), or a box to
            # tick, whose message asks for the tick in its own words
            label = ""
        pairs.extend((label, str(m).strip().rstrip(".")) for m in messages if str(m).strip())
    labels_of: dict[str, set[str]] = {}
    for label, text in pairs:
        labels_of.setdefault(text, set()).add(label)
    seen: dict[str, None] = {}
    for label, text in pairs:
        if label and (not _names(text, label) or len(labels_of[text]) > 1):
            if len(text) > 1 and text[1].islower():
                text = text[0].lower() + text[1:]
            text = f"{label}: {text}"
        seen.setdefault(text, None)
    return "; ".join(seen) + "." if seen else ""


def _names(message: str, label: str) -> bool:
    """Whether ``message`` names the field of ``label``: one of its words begins with the
    label's first word without its last letter (Russian endings: «Дата» — «дату»)."""
    first = label.split()[0].lower()
    stem = first[:-1] if len(first) > 3 else first
    return any(word.startswith(stem) for word in re.findall(r"\w+", message.lower()))
