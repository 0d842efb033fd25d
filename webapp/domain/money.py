"""Money: an amount (Decimal, 2 places) in a currency. Formatting lives in documents."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation

CURRENCIES = ("BYN", "RUB")
#: The country (ISO 3166) whose season is paid in each currency: 2023 Belarus, 2009 Russia.
COUNTRY_OF_CURRENCY = {"BYN": "BY", "RUB": "RU"}
CENT = Decimal("0.01")
#: Integer digits a stored amount may have: the columns are ``Numeric(12, 2)``.
MAX_INTEGER_DIGITS = 10
#: Thousands separators a person may type in a form: space, no-break and narrow no-break space.
_GROUP_SPACES = re.compile(r"[ \u00a0\u202f]")
#: An amount written out in digits: an optional sign, digits, an optional fraction — no
#: exponent («1e5» is 100 000 to Python's Decimal, a typo or a trick to a person).
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_EXPONENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]+")


class MoneyError(ValueError):
    """An amount that is not a non-negative Decimal with at most two places, or an unknown
    currency."""


@dataclass(frozen=True)
class Money:
    """``amount``: Decimal, 2 places, ≥ 0; ``currency``: ``"BYN"`` | ``"RUB"``."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise MoneyError(f"amount must be Decimal, not {type(self.amount).__name__}")
        if self.currency not in CURRENCIES:
            raise MoneyError(f"unknown currency {self.currency!r}")
        if self.amount < 0 or self.amount != self.amount.quantize(CENT):
            raise MoneyError(f"amount must be ≥ 0 with at most 2 places: {self.amount}")
        object.__setattr__(self, "amount", self.amount.quantize(CENT))


def parse_amount(value: object, *, form: bool = False) -> Decimal:
    """Parse a prize amount typed into a form (``form=True``) or sent to the API, the same
    rules for both: a finite, non-negative number with at most two decimal places and at
    most 10 integer digits (the ``Numeric(12, 2)`` columns). The form also accepts a decimal
    comma and spaces as thousands separators, as every page writes money (``"2 000,00"``).

    ``value``: str, int or float (a JSON number; never bool). The amount is written out in
    digits: exponent notation (``"1e5"``, a float that prints as ``1e+20``) is refused in
    both, as anything else Decimal reads but a person would not write (``"١٠٠"``).
    Returns the Decimal quantized to 2 places (``Decimal("300.00")``). Raises MoneyError with a Russian message for a
    person (staff pages are Russian).

    >>> parse_amount("2 000,50", form=True)
    Decimal('2000.50')
    >>> parse_amount(300)
    Decimal('300.00')
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise MoneyError("Сумма — число, например 300.00.")
    text = str(value).strip()
    if form:
        text = _GROUP_SPACES.sub("", text).replace(",", ".")
    if _EXPONENT.fullmatch(text):
        raise MoneyError("Сумма цифрами, без степени: например 100000,00, а не 1e5.")
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise MoneyError("Не сумма: введите число, например 300,00.") from None
    if not amount.is_finite():
        raise MoneyError("Сумма должна быть конечным числом.")
    if not _PLAIN_NUMBER.fullmatch(text):
        raise MoneyError("Не сумма: введите число, например 300,00.")
    if amount < 0:
        raise MoneyError("Сумма не может быть отрицательной.")
    if amount >= Decimal(10) ** MAX_INTEGER_DIGITS:
        raise MoneyError(f"Не больше {MAX_INTEGER_DIGITS} цифр до запятой.")
    if amount != amount.quantize(CENT):
        raise MoneyError("Не больше двух знаков после запятой (копейки).")
    return abs(amount).quantize(CENT)  # abs: "-0" is 0.00


def split_equally(amount: Decimal, parts: int) -> list[Decimal]:
    """Split ``amount`` (Decimal, 2 places) into ``parts`` shares to the kopeck; the odd
    kopecks go to the first share(s) — the first author.

    >>> split_equally(Decimal("300.00"), 3)
    [Decimal('100.00'), Decimal('100.00'), Decimal('100.00')]
    >>> split_equally(Decimal("100.00"), 3)
    [Decimal('33.34'), Decimal('33.33'), Decimal('33.33')]
    """
    if parts < 1:
        raise MoneyError("parts must be ≥ 1")
    share = (amount / parts).quantize(CENT, rounding=ROUND_DOWN)
    shares = [share] * parts
    rest = amount - share * parts
    i = 0
    while rest > 0:
        shares[i % parts] += CENT
        rest -= CENT
        i += 1
    return shares
