"""Amounts in figures and words as the rule book writes them in the gift agreement
(000_90d7c8192601ed3a.txt §4.11: «300,00 (Триста) рублей 00 копеек»).

Decision: BYN is written «рублей», not «белорусских рублей» — the 2023 rule book writes
«2 000,00 (Две тысячи) рублей 00 копеек» for amounts in Belarusian rubles (§4.11.1–§4.11.6);
the currency itself is named once in the agreement's text. RUB is written the same way.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from workers.documents import amount_in_words

TABLE = [
    ("0.01", "0,01 (Ноль) рублей 01 копейка"),
    ("1.00", "1,00 (Один) рубль 00 копеек"),
    ("1.01", "1,01 (Один) рубль 01 копейка"),
    ("2.00", "2,00 (Два) рубля 00 копеек"),
    ("2.02", "2,02 (Два) рубля 02 копейки"),
    ("5.00", "5,00 (Пять) рублей 00 копеек"),
    ("11.00", "11,00 (Одиннадцать) рублей 00 копеек"),
    ("21.00", "21,00 (Двадцать один) рубль 00 копеек"),
    ("21.21", "21,21 (Двадцать один) рубль 21 копейка"),
    ("22.02", "22,02 (Двадцать два) рубля 02 копейки"),
    ("111.00", "111,00 (Сто одиннадцать) рублей 00 копеек"),
    ("200.00", "200,00 (Двести) рублей 00 копеек"),
    ("300.00", "300,00 (Триста) рублей 00 копеек"),
    ("2000.00", "2 000,00 (Две тысячи) рублей 00 копеек"),
    ("41000.00", "41 000,00 (Сорок одна тысяча) рублей 00 копеек"),
    ("300000.00", "300 000,00 (Триста тысяч) рублей 00 копеек"),
    ("1000000.00", "1 000 000,00 (Один миллион) рублей 00 копеек"),
]


@pytest.mark.parametrize("currency", ["BYN", "RUB"])
@pytest.mark.parametrize(("amount", "expected"), TABLE)
def test_amount_in_words(amount, expected, currency):
    assert amount_in_words(Decimal(amount), currency) == expected


def test_amount_in_words_in_the_pdf_uses_no_break_spaces():
    assert amount_in_words(Decimal("2000.00"), "BYN", thousands_sep="\u00a0") == (
        "2\u00a0000,00 (Две тысячи) рублей 00 копеек"
    )


@pytest.mark.parametrize("bad", [Decimal("-1"), Decimal("1.005"), Decimal("NaN")])
def test_bad_amounts_are_refused(bad):
    with pytest.raises(ValueError):
        amount_in_words(bad, "BYN")


def test_float_and_unknown_currency_are_refused():
    with pytest.raises(TypeError):
        amount_in_words(1.0, "BYN")
    with pytest.raises(ValueError):
        amount_in_words(Decimal("1.00"), "USD")
