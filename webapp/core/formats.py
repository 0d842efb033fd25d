"""How pages and documents print money and times: one place, Babel's
CLDR patterns, used by the Jinja filters ``money`` and ``when`` (registered in
``webapp.app``) and by the PDF templates (``workers/documents.py``).

Money: ``Decimal("1800"), "BYN"`` → ``"1 800,00 BYN"``; without a currency ``"300,00"``.
Babel's Russian grouping symbol is a no-break space in some CLDR versions and a narrow
no-break space (U+202F) in others; Sova prints U+00A0 (NO-BREAK SPACE) for the grouping and
between the amount and the currency code, whatever the CLDR version, so an amount never
breaks across lines, every font in the PDFs has the glyph, and tests can name the exact
string (``"1\\u00a0800,00\\u00a0BYN"``).

Numbers (statistics, not money): ``0.0`` → ``"0,0"``, ``1234.5`` → ``"1 234,5"``; a share
``1.0`` → ``"100 %"``, ``0.667`` → ``"66,7 %"`` (the locale's decimal sign and percent
pattern; U+00A0 for the spaces, as for money).

Times: stored in UTC, shown in the season's time zone (``Season.timezone``: Europe/Minsk
for the 2023 rule book, Europe/Moscow for 2009), or in ``SOVA_TIMEZONE`` on pages that belong
to no season. One format everywhere: ``dd.MM.yyyy HH:mm`` for a moment, ``dd.MM.yyyy`` for a
calendar day (an air date, a payment date).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.numbers import format_decimal, format_percent

from webapp.domain.handouts import plain_text

__all__ = ["DEFAULT_ZONE", "NBSP", "money", "number", "percent", "when"]

NBSP = "\u00a0"
#: Two decimals always, thousands grouped (CLDR pattern; the symbols come from the locale).
MONEY_PATTERN = "#,##0.00"
DATE_PATTERN = "dd.MM.yyyy"
DATETIME_PATTERN = "dd.MM.yyyy HH:mm"
#: The zone of pages that belong to no season (``SOVA_TIMEZONE``' default): the 2023
#: Belarusian edition's.
DEFAULT_ZONE = "Europe/Minsk"
_SPACES = str.maketrans({"\u202f": NBSP, " ": NBSP})


def money(amount: Decimal | int | None, currency: str | None = None, *, locale: str = "ru") -> str:
    """``Decimal("1800"), "BYN"`` → ``"1 800,00 BYN"`` (U+00A0 spaces); ``Decimal("300")``
    → ``"300,00"``; ``None`` → ``"—"``.

    ``amount``: Decimal (or int), rounded half-even to 2 places by Babel; never a float
    (TypeError). ``currency``: ISO 4217 code printed after the amount, or None.
    ``locale``: a Babel locale name (``"ru"``; ``"en"`` gives ``"1,800.00 BYN"``).
    """
    if amount is None:
        return "—"
    if isinstance(amount, float | bool) or not isinstance(amount, Decimal | int):
        raise TypeError(f"money must be Decimal, not {type(amount).__name__}")
    text = format_decimal(amount, format=MONEY_PATTERN, locale=locale).translate(_SPACES)
    return f"{text}{NBSP}{currency}" if currency else text


def number(value: float | int | Decimal | None, places: int = 1, *, locale: str = "ru") -> str:
    """A measured number with ``places`` decimals, grouped: ``0.0`` → ``"0,0"``, ``1234.5``
    → ``"1 234,5"`` (U+00A0), ``None`` → ``"—"``. Not for money (:func:`money`)."""
    if value is None:
        return "—"
    pattern = "#,##0" + ("." + "0" * places if places > 0 else "")
    return format_decimal(value, format=pattern, locale=locale).translate(_SPACES)


def percent(ratio: float | int | Decimal | None, *, locale: str = "ru") -> str:
    """A share 0..1 as a percentage with at most one decimal, the locale's way: ``1.0`` →
    ``"100 %"``, ``0.667`` → ``"66,7 %"`` (U+00A0 before the sign), ``"en"`` → ``"66.7%"``;
    ``None`` → ``"—"``."""
    if ratio is None:
        return "—"
    # the locale's own pattern (where the sign goes, with or without a space), one
    # optional decimal added to its last digit
    base = Locale.parse(locale).percent_formats[None].pattern
    pattern = re.sub(r"0(?=[^0#]*%)", "0.#", base, count=1)
    return format_percent(ratio, format=pattern, locale=locale).translate(_SPACES)


def when(
    value: datetime | date | str | None, zone: str | None = None, *, locale: str = "ru"
) -> str:
    """The one date format of Sova's pages.

    ``datetime(2023, 3, 4, 12, 0, tzinfo=UTC), "Europe/Minsk"`` → ``"04.03.2023 15:00"``;
    ``date(2023, 3, 4)`` or ``"2023-03-04"`` → ``"04.03.2023"``; ``None`` → ``"—"``.

    ``value``: an aware datetime (a naive one is refused with ValueError: stored times are
    UTC and always aware), a date, or an ISO date/datetime string. ``zone``: IANA name,
    default :data:`DEFAULT_ZONE`.
    """
    if value is None:
        return "—"
    if isinstance(value, str):
        value = datetime.fromisoformat(value) if "T" in value else date.fromisoformat(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("naive datetime: times are stored and passed aware (UTC)")
        local = value.astimezone(ZoneInfo(zone or DEFAULT_ZONE))
        return format_datetime(local, DATETIME_PATTERN, tzinfo=local.tzinfo, locale=locale)
    return _day(value, locale)


@lru_cache(maxsize=4096)
def _day(value: date, locale: str) -> str:
    # Babel parses the locale and the pattern on every call, and a page of a row per day
    # (the statistics' year) asks for the same few hundred days on every request
    return format_date(value, DATE_PATTERN, locale=locale)


def question_preview(text: str | None) -> str:
    """A question's text as one plain line for a list or a comparison on a staff page
    (the Jinja filter ``question_preview``): its leading handout block reads
    «[раздаточный материал]», any other image reference «[изображение]» (in the page's
    language), never ``(img …)`` (``webapp.domain.handouts.plain_text``)."""
    from flask_babel import gettext as _

    return plain_text(text, handout_mark=_("[раздаточный материал]"), image_mark=_("[изображение]"))


def clip(text: str | None, length: int) -> str:
    """``text`` cut to at most ``length`` characters for a list (the Jinja filter ``clip``):
    at the last space before the limit (a word longer than the limit is cut inside), the
    punctuation and spaces it then ends with dropped, and «…» added, so a sentence cut after
    its full stop reads «погоду…», never «погоду....»; a text that fits is kept whole."""
    text = text or ""
    if len(text) <= length:
        return text
    cut = text[: max(length - 1, 1)]
    space = cut.rfind(" ")
    if space > 0 and not text[len(cut)].isspace():  # the limit falls inside a word
        cut = cut[:space]
    return cut.rstrip(" .,;:!?—–-") + "…"
