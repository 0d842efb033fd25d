"""Form validators and the one-line error message shared by the features' forms (WTForms),
and the base forms every form of Sova derives from (:class:`SovaForm`, :class:`TextForm`),
which check the characters of every text field (:mod:`webapp.core.chars`)."""

from __future__ import annotations

import re
import weakref

from flask_babel import gettext
from flask_wtf import FlaskForm
from wtforms import Form, PasswordField, StringField, validators
from wtforms.fields.core import UnboundField
from wtforms.validators import StopValidation, ValidationError

from webapp.core.chars import all_forbidden, code_point, forbidden_in_password


def text_chars(form, field) -> None:
    """Validator: the field's text holds no character user text may not hold
    (:func:`webapp.core.chars.forbidden`: controls but TAB/LF/CR, noncharacters such as
    U+FFFE, lone surrogates, bidi embedding/override/isolate controls). One message, in the
    page's language, names every distinct such character in the order they appear, so that
    one correction removes them all: «Недопустимый символ U+FFFE: удалите его.»,
    «Недопустимые символы U+202E, U+0007, U+FFFE: удалите их.»"""
    found = all_forbidden(field.data) if isinstance(field.data, str) else []
    if len(found) == 1:
        raise ValidationError(
            gettext("Недопустимый символ %(code)s: удалите его.", code=code_point(found[0]))
        )
    if found:
        raise ValidationError(
            gettext(
                "Недопустимые символы %(codes)s: удалите их.",
                codes=", ".join(code_point(c) for c in found),
            )
        )


def password_chars(form, field) -> None:
    """Validator of a password field: no control character at all (TAB, LF, CR, BEL, …) and
    nothing :func:`text_chars` refuses (:func:`webapp.core.chars.forbidden_in_password`)."""
    c = forbidden_in_password(field.data) if isinstance(field.data, str) else None
    if c is not None:
        raise ValidationError(
            gettext("Пароль не может содержать символ %(code)s (управляющий).", code=code_point(c))
        )


class CheckedText:
    """A form's ``Meta`` mixin: every text field (a ``StringField`` and its kinds: text area,
    e-mail, hidden, password) gets :func:`text_chars` (a password :func:`password_chars`)
    after its own validators, when the form binds it — so no form of Sova takes text that
    cannot be stored, printed or written into the feed, whoever declares its fields."""

    def bind_field(self, form, unbound_field, options):
        return super().bind_field(form, checked_field(unbound_field), options)


#: A form class's declared field → the same field with its character check appended, made
#: once per process: a form is built on every request, and its declarations do not change.
_CHECKED: weakref.WeakKeyDictionary[UnboundField, UnboundField] = weakref.WeakKeyDictionary()


def checked_field(unbound_field: UnboundField) -> UnboundField:
    """``unbound_field`` with :func:`text_chars` (a password :func:`password_chars`) after
    its own validators when it is a text field (``StringField`` and its kinds), else
    itself. The same object for the same declaration (:data:`_CHECKED`)."""
    cls = unbound_field.field_class
    if not issubclass(cls, StringField):
        return unbound_field
    checked = _CHECKED.get(unbound_field)
    if checked is None:
        check = password_chars if issubclass(cls, PasswordField) else text_chars
        args, kwargs = list(unbound_field.args), dict(unbound_field.kwargs)
        if len(args) > 1:  # validators given by position (label, validators)
            args[1] = [*(args[1] or ()), check]
        else:
            kwargs["validators"] = [*(kwargs.get("validators") or ()), check]
        checked = _CHECKED[unbound_field] = UnboundField(
            cls, *args, name=unbound_field.name, **kwargs
        )
    return checked


class SovaForm(FlaskForm):
    """The base of every page form (Flask-WTF: CSRF): its text fields are checked by
    :class:`CheckedText`."""

    class Meta(CheckedText):
        pass


class TextForm(Form):
    """The base of a form nested in a :class:`SovaForm` (``FormField``, no CSRF of its own):
    its text fields are checked by :class:`CheckedText` too."""

    class Meta(CheckedText):
        pass


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
