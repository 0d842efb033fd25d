"""webapp.domain.donor: the season donor's values, its place and the quotes of the papers
that name it (000_90d7c8192601ed3a.txt §4.11.1, 002_e025d5ded135c1c4.txt §3.1)."""

from __future__ import annotations

import pytest

from webapp.domain.books import BOOKS
from webapp.domain.donor import Donor, check_donor, place, quoted


def test_check_donor_trims_and_keeps_the_lines_of_the_details() -> None:
    donor, errors = check_donor(
        "  ООО  «Игра-ТВ» ", "Москва", "Адрес: ул. Тимура  Фрунзе, 11\n\n\nИНН 7704000000\n", ""
    )
    assert errors == {}
    assert donor == Donor("ООО «Игра-ТВ»", "Москва", "Адрес: ул. Тимура Фрунзе, 11\nИНН 7704000000")


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        (("", "Москва"), "name", "обязательное поле"),
        (("ООО", " "), "city", "обязательное поле"),
        (("О" * 301, "Москва"), "name", "не длиннее 300 символов"),
        (("ООО", "Москва", "", "в\x07лице"), "representative", "недопустимые управляющие символы"),
        (("ООО", 5), "city", "текст"),
    ],
)
def test_check_donor_refuses_with_the_field(values, field, message) -> None:
    donor, errors = check_donor(*values)
    assert donor is None and errors[field] == [message]


def test_the_2009_default_is_never_the_2023_broadcaster() -> None:
    neutral = BOOKS["2009"].default_donor
    assert neutral == Donor("Генеральный спонсор сезона", "Москва")
    assert "телеканал" not in neutral.name and neutral.city != "Минск"
    assert BOOKS["2023"].default_donor is None  # the broadcaster of the settings
    assert {name: book.donor_rule for name, book in BOOKS.items()} == {
        "2023": "000_90d7c8192601ed3a.txt §4.11.1",
        "2009": "002_e025d5ded135c1c4.txt §3.1",
    }


def test_place_and_quotes() -> None:
    assert place("Минск") == "г.\u00a0Минск"
    assert place("г. Москва") == "г. Москва" and place("") == ""
    assert quoted("ЗАО «Второй национальный телеканал»") == "«ЗАО „Второй национальный телеканал“»"
    assert quoted("Финал") == "«Финал»"
    assert quoted('a "b" «c «d»»') == '«a "b" „c „d““»'
