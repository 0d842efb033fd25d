"""How long the host takes to read a question aloud (pure: standard library only).

Estimated from syllables, not words: a Russian or Belarusian syllable is one vowel letter
(``а е ё и о у ы э ю я``, Belarusian ``і``), so «Что? Где? Когда?» is 4 syllables whatever
its words' lengths; a number is read as its Russian numeral («1999» → «тысяча девятьсот
девяносто девять», 12 syllables); a Latin word counts its vowel groups. The host's pace
starts from :data:`DEFAULT_SYLLABLES_PER_SECOND`.

A question with a handout adds the host's note that announces it, :data:`HANDOUT_NOTE`
(«Внимание, раздаточный материал», 12 syllables): the host reads that line, the players
read the handout itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

__all__ = [
    "DEFAULT_SYLLABLES_PER_SECOND",
    "HANDOUT_NOTE",
    "MIN_CALIBRATION_READINGS",
    "Reading",
    "calibrated_rate",
    "mean_absolute_error",
    "number_syllables",
    "reading_seconds",
    "seconds_label",
    "syllables",
]

#: The host's pace before calibration, in syllables per second: measured Russian read
#: speech runs at 4.5–6 syllables a second; a question read on air, clearly and with
#: pauses for the players to take it in, sits at the slow end of that.
DEFAULT_SYLLABLES_PER_SECOND = Decimal("4.5")
#: What the host says before a question with a handout.
HANDOUT_NOTE = "Внимание, раздаточный материал."

_CYRILLIC_VOWELS = re.compile(r"[аеёиоуыэюяі]", re.IGNORECASE)
_LATIN_VOWEL_GROUPS = re.compile(r"[aeiouy]+", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")

# Syllables of the Russian numerals: 0..19, the tens, the hundreds.
_UNITS = (2, 2, 1, 1, 3, 1, 1, 1, 2, 2, 2, 4, 3, 3, 4, 3, 3, 3, 4, 4)  # ноль … девятнадцать
_TENS = (0, 0, 2, 2, 2, 3, 3, 3, 4, 4)  # двадцать … девяносто
_HUNDREDS = (0, 1, 2, 2, 3, 2, 2, 2, 3, 3)  # сто … девятьсот
_THOUSAND = 3  # тысяча / тысячи / тысяч: three syllables each
_MILLION = 3  # миллион / миллиона / миллионов: three or four; three


def _below_thousand(n: int) -> int:
    hundreds, rest = divmod(n, 100)
    count = _HUNDREDS[hundreds]
    if rest >= 20:
        tens, units = divmod(rest, 10)
        count += _TENS[tens] + (_UNITS[units] if units else 0)
    elif rest:
        count += _UNITS[rest]
    return count


def number_syllables(digits: str) -> int:
    """Syllables of a number read as its Russian cardinal: ``"7"`` → 1 (семь),
    ``"1999"`` → 12 (ты-ся-ча де-вять-сот де-вя-но-сто де-вять), ``"0"`` → 2 (ноль).
    A number of more than nine digits is read digit by digit."""
    n = int(digits)
    if n == 0:
        return _UNITS[0]
    if len(digits.lstrip("0")) > 9:
        return sum(_UNITS[int(d)] for d in digits)
    millions, rest = divmod(n, 1_000_000)
    thousands, units = divmod(rest, 1000)
    count = 0
    if millions:
        count += _below_thousand(millions) + _MILLION
    if thousands:
        # «тысяча» alone for one thousand, «две тысячи» beyond
        count += (_below_thousand(thousands) if thousands > 1 else 0) + _THOUSAND
    if units:
        count += _below_thousand(units)
    return count


def syllables(text: str) -> int:
    """The syllables of ``text`` read aloud: its vowel letters (Cyrillic, stress marks
    ignored), its Latin words' vowel groups, its numbers as numerals
    (:func:`number_syllables`). ``"Что? Где? Когда?"`` → 4."""
    text = text or ""
    count = len(_CYRILLIC_VOWELS.findall(text)) + len(_LATIN_VOWEL_GROUPS.findall(text))
    return count + sum(number_syllables(m.group(0)) for m in _NUMBER.finditer(text))


def reading_seconds(
    text: str,
    handout: bool = False,
    rate: Decimal = DEFAULT_SYLLABLES_PER_SECOND,
) -> Decimal:
    """The seconds the host takes to read ``text`` aloud at ``rate`` syllables a second
    (plus :data:`HANDOUT_NOTE` when the question has a ``handout``), to one decimal place,
    half up: 45 syllables at 4.5 → ``Decimal("10.0")``. ``ValueError`` for a rate not
    above zero."""
    if rate <= 0:
        raise ValueError(f"reading rate must be above zero, not {rate}")
    count = syllables(text) + (syllables(HANDOUT_NOTE) if handout else 0)
    return (Decimal(count) / rate).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def seconds_label(seconds: Decimal | float | int) -> str:
    """A duration for a page or a card, in whole seconds, half up: ``23.4`` → ``"23 с"``,
    ``310`` → ``"5 мин 10 с"``, ``300`` → ``"5 мин"``."""
    whole = int(Decimal(str(seconds)).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} с"
    return f"{minutes} мин {rest} с" if rest else f"{minutes} мин"


#: A host's pace is calibrated from this many recorded readings or more; with fewer it
#: stays :data:`DEFAULT_SYLLABLES_PER_SECOND`.
MIN_CALIBRATION_READINGS = 5


@dataclass(frozen=True)
class Reading:
    """One reading the console recorded: the question's ``syllables`` (with the handout's
    note, as :func:`reading_seconds` counts them) and the ``seconds`` from the spin to the
    host's tap that starts the minute (the game protocol's ``minute`` start, on the
    server's clock: the reading has ended)."""

    syllables: int
    seconds: Decimal


def calibrated_rate(
    readings: Sequence[Reading],
    default: Decimal = DEFAULT_SYLLABLES_PER_SECOND,
    minimum: int = MIN_CALIBRATION_READINGS,
) -> Decimal:
    """A host's pace from their recorded readings, syllables a second to two decimal
    places, half up: all their syllables over all their seconds (a long question weighs
    more, as it should); readings of no time or no syllables are left out. ``default``
    with fewer than ``minimum`` usable readings. 100 syllables in 20 s → ``Decimal("5.00")``."""
    usable = [r for r in readings if r.seconds > 0 and r.syllables > 0]
    if len(usable) < minimum:
        return default
    seconds = sum((r.seconds for r in usable), Decimal(0))
    rate = Decimal(sum(r.syllables for r in usable)) / seconds
    return rate.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def mean_absolute_error(readings: Sequence[Reading], rate: Decimal) -> Decimal | None:
    """The mean of ``|syllables / rate − seconds|`` over ``readings``, seconds to one
    decimal place (None without readings): how far the estimate at ``rate`` is from what
    the console recorded."""
    if not readings:
        return None
    total = sum((abs(Decimal(r.syllables) / rate - r.seconds) for r in readings), Decimal(0))
    return (total / len(readings)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
