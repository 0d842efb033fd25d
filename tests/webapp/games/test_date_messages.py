"""A date field says what is wrong with what was typed: no date («Укажите дату.») or a day
that does not exist («Неверное значение даты.», it said «Укажите дату.» for 2023-02-30)."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from webapp.games.forms import GameForm
from webapp.games.season.forms import SeasonGameForm
from webapp.prizes.forms import PaidForm


@pytest.mark.parametrize(
    ("form", "field", "missing"),
    [
        (GameForm, "air_date", "Укажите дату."),
        (SeasonGameForm, "air_date", "Укажите дату эфира."),
        (PaidForm, "paid_on", "Укажите дату оплаты."),
    ],
)
def test_a_missing_and_an_impossible_date(app, form, field, missing):
    with app.test_request_context():
        for typed, errors in (
            ("", [missing]),
            ("2023-02-30", ["Неверное значение даты."]),
            ("abc", ["Неверное значение даты."]),
            ("2023-09-09", []),
        ):
            made = form(formdata=MultiDict({field: typed}))
            getattr(made, field).validate(made)
            assert [str(e) for e in getattr(made, field).errors] == errors, typed
