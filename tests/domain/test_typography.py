"""Russian typesetting of printed text (webapp.domain.typography): one function for every
PDF; the printed host card and envelope are read back in
tests/webapp/games/test_reading_time.py::test_the_host_card_and_envelope_are_typeset."""

import pytest

from webapp.domain.typography import NBSP, quotes, typeset


@pytest.mark.parametrize(
    ("typed", "printed"),
    [
        # quotation inside a quotation: „лапки“ inside «ёлочки», at any depth
        ("«читай «Онегина»»", "«читай „Онегина“»"),
        ("«Он сказал: «Я вернусь» — и ушёл»", f"«Он сказал: „Я{NBSP}вернусь“{NBSP}— и{NBSP}ушёл»"),
        ("«а» и «б»", f"«а» и{NBSP}«б»"),
        # a dash between words: an em dash that never starts a line
        ("Москва - столица", f"Москва{NBSP}— столица"),
        ("Москва – столица", f"Москва{NBSP}— столица"),
        ("Москва-река", "Москва-река"),
        # one-letter words stay with the next word
        ("Он был в Минске и в Бресте", f"Он был в{NBSP}Минске и{NBSP}в{NBSP}Бресте"),
        # numbers with their units, signs and abbreviations with what they introduce
        (
            "Дом № 12, д. 5, 300 BYN, 5 км, 15 %",
            f"Дом №{NBSP}12, д.{NBSP}5, 300{NBSP}BYN, 5{NBSP}км, 15{NBSP}%",
        ),
        ("т. е. и т. д.", f"т.{NBSP}е. и{NBSP}т.{NBSP}д."),
        ("Петров П. П.", f"Петров{NBSP}П.{NBSP}П."),
        ("В. И. Ленин", f"В.{NBSP}И.{NBSP}Ленин"),
        # straight quotes are printed as typed (user text is printed literally)
        ('<div style="x">', '<div style="x">'),
        ("", ""),
    ],
)
def test_typeset(typed, printed):
    assert typeset(typed) == printed


def test_an_unbalanced_closing_mark_is_left_as_it_is():
    assert quotes("конец» и «начало") == "конец» и «начало"
