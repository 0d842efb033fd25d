"""Spreadsheet formula injection guard, one helper for every CSV/XLSX export.

A cell whose text a spreadsheet would read as a formula (OWASP "CSV injection"): the first
character that is not a space is ``=``, ``+``, ``-``, ``@`` or their full-width forms
``＝``, ``＋``, ``－``, ``＠`` (some spreadsheet programs fold them to ASCII), or the text
starts with a tab, carriage return or line feed. Such a cell gets a leading apostrophe,
so it is shown as text and never evaluated; in XLSX it is also typed a string cell
(openpyxl otherwise stores a value starting with ``=`` as a formula). Numbers, dates,
Decimal and None pass unchanged.

The cells are typed while each row is built (:func:`safe_cells`), so the same helper
serves openpyxl's write-only worksheets (the streamed exports) and ordinary ones.

Every CSV Sova writes (the payment register, the editors' queue) uses one dialect,
:func:`csv_writer`: UTF-8 with BOM (:data:`BOM`, written by the caller once), ``;``
separated, CRLF line ends, numbers with a decimal comma and no thousands separator
(:func:`decimal_comma`) — what a Russian-locale spreadsheet opens as columns and numbers
(with ``,`` and a decimal point it shows one column of text).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import IO, Any

from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES

#: First characters (after leading spaces) that start a formula.
FORMULA_STARTS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
#: First characters of the raw text that some programs skip before a formula.
CONTROL_STARTS = frozenset("\t\r\n")


def safe_cell(value):
    """``value`` as a spreadsheet cell that can never be a formula: a dangerous string
    gets a leading ``'``; anything else is returned as it is."""
    if not isinstance(value, str) or not value:
        return value
    if value[0] in CONTROL_STARTS or value.lstrip(" \u00a0\u3000")[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def safe_row(row: Iterable) -> list:
    """:func:`safe_cell` of each value of ``row``."""
    return [safe_cell(v) for v in row]


def safe_cells(ws, row: Iterable, number_formats: Mapping[int, str] | None = None) -> list:
    """The values of ``row`` for ``ws.append`` (a write-only worksheet or an ordinary one),
    typed while the row is built: each value goes through :func:`safe_cell`, so no text
    starts with ``=`` and openpyxl types it a string (data type ``s``); a text openpyxl
    would take for an error code (``#N/A``, ``#REF!``…) becomes a cell typed ``s``
    explicitly; an empty text is an empty cell (``None``: what a spreadsheet reads back of
    an empty string cell, and no cell to write). Numbers, dates and ``None`` pass as they
    are. ``number_formats`` maps a
    0-based column to a number format (``{5: "#,##0.00"}``); that column's value becomes a
    cell with the format, empty or not. One pass over the row: the 50 000th row costs what
    the first does (no read-back of the sheet's last row); plain values, not cells, where
    openpyxl's own typing is right (a cell per value costs twice the time in write-only
    mode)."""
    out: list = []
    for i, value in enumerate(row):
        value = safe_cell(value) if value != "" else None  # "" reads back as an empty cell
        fmt = number_formats.get(i) if number_formats else None
        text = isinstance(value, str)
        if fmt is not None or (text and value in ERROR_CODES):
            cell = WriteOnlyCell(ws, value)
            if text:
                cell.data_type = "s"
            if fmt is not None:
                cell.number_format = fmt
            value = cell
        out.append(value)
    return out


def append_safe(ws, row: Iterable, number_formats: Mapping[int, str] | None = None) -> None:
    """Append ``row`` to the openpyxl worksheet ``ws`` (write-only or ordinary) as
    :func:`safe_cells`: every text cell a string, never a formula."""
    ws.append(safe_cells(ws, row, number_formats))


#: The byte order mark a CSV starts with, so that Excel reads it as UTF-8.
BOM = "\ufeff"


class RussianCsv(csv.excel):
    """The CSV dialect of a Russian-locale spreadsheet: ``;`` between cells (the comma is
    its decimal separator), CRLF line ends, quotes where needed."""

    delimiter = ";"
    lineterminator = "\r\n"


def csv_writer(out: IO[str]) -> Any:
    """A ``csv.writer`` of :class:`RussianCsv` on the text stream ``out``."""
    return csv.writer(out, dialect=RussianCsv)


def decimal_comma(value: Decimal | float | int | None, places: int | None = None) -> str:
    """A number as a Russian-locale spreadsheet reads one: a decimal comma, no thousands
    separator (``Decimal("2000")``, 2 places → ``"2000,00"``; ``87.5`` → ``"87,5"``;
    ``100.0`` → ``"100"``). ``places``: exactly that many decimals (money); None: as few as
    the value needs (a float's trailing ``.0`` dropped). None → ``""``."""
    if value is None or value == "":
        return ""
    if places is not None:
        text = f"{Decimal(str(value)):.{places}f}"
    elif isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = str(value)
    return text.replace(".", ",")
