"""One line of a form's errors for a flash (``webapp.core.fields.errors_line``): each named by
its field's label, one full stop at the end, a repeated message said once."""

from __future__ import annotations

from werkzeug.datastructures import MultiDict
from wtforms import Form, IntegerField, StringField, validators

from webapp.core.fields import NumberRange, errors_line


class Plan(Form):
    blitz = IntegerField("Сектор блица", validators=[NumberRange(1, 13, "Сектор от 1 до 13.")])
    superblitz = IntegerField(
        "Сектор суперблица", validators=[NumberRange(1, 13, "Сектор от 1 до 13.")]
    )
    title = StringField(
        "Название", validators=[validators.Length(max=5, message="PDF не длиннее 5.")]
    )
    note = StringField(validators=[validators.DataRequired("Напишите, что объявлено.")])
    paid_on = StringField("Дата оплаты", validators=[validators.Optional()])


def test_each_message_is_named_by_its_label_and_the_line_ends_once():
    form = Plan(MultiDict({"blitz": "0", "superblitz": "14", "title": "длинное", "note": ""}))
    assert not form.validate()
    form.paid_on.errors.append("Укажите дату оплаты.")  # names its field: no label
    assert errors_line(form) == (
        "Сектор блица: сектор от 1 до 13; Сектор суперблица: сектор от 1 до 13; "
        "Название: PDF не длиннее 5; Напишите, что объявлено; Укажите дату оплаты."
    )


def test_a_parse_error_form_errors_and_repeats():
    form = Plan(
        MultiDict({"blitz": "abc", "superblitz": "3", "title": "", "note": "x"}),
        meta={"locales": ["ru"]},
    )
    assert not form.validate()
    form.form_errors.extend(["Форма устарела.", "Форма устарела."])
    assert errors_line(form) == "Сектор блица: неверное целое число; Форма устарела."


def test_no_errors_no_line():
    form = Plan(MultiDict({"blitz": "1", "superblitz": "2", "title": "", "note": "x"}))
    assert form.validate()
    assert errors_line(form) == ""
