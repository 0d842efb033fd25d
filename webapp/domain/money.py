"""Money: an amount (Decimal, 2 places) in a currency. Formatting lives in documents."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

CURRENCIES = ("BYN", "RUB")
CENT = Decimal("0.01")


class MoneyError(ValueError):
    """An amount that is not a non-negative Decimal with at most two places, or an unknown
    currency."""


@dataclass(frozen=True)
class Money:
    """``amount``: Decimal, 2 places, ≥ 0; ``currency``: ``"BYN"`` | ``"RUB"``."""

    amount: Decimal
    currency: str

    def __post_init__(self):
        if not isinstance(self.amount, Decimal):
            raise MoneyError(f"amount must be Decimal, not {type(self.amount).__name__}")
        if self.currency not in CURRENCIES:
            raise MoneyError(f"unknown currency {self.currency!r}")
        if self.amount < 0 or self.amount != self.amount.quantize(CENT):
            raise MoneyError(f"amount must be ≥ 0 with at most 2 places: {self.amount}")
        object.__setattr__(self, "amount", self.amount.quantize(CENT))


def split_equally(amount: Decimal, parts: int) -> list[Decimal]:
    """Split ``amount`` (Decimal, 2 places) into ``parts`` shares to the kopeck; the odd
    kopecks go to the first share(s) — the first author (issue: prizes and paperwork).

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
