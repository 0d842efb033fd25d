"""Spreadsheet formula injection guard and the one XLSX writer, for every CSV/XLSX export.

A cell whose text a spreadsheet would read as a formula (OWASP "CSV injection"): the first
character that is not a space is ``=``, ``+``, ``-``, ``@`` or their full-width forms
``＝``, ``＋``, ``－``, ``＠`` (some spreadsheet programs fold them to ASCII), or the text
starts with a tab, carriage return or line feed. Such a cell gets a leading apostrophe,
so it is shown as text and never evaluated. Numbers, dates, Decimal and None pass
unchanged.

XLSX files are written by XlsxWriter (:func:`xlsx_workbook`, :class:`XlsxSheet`): each
value by its type — a text always a string cell (never a formula, a URL, a number or an
error code, whatever it reads like), numbers numbers, dates date cells —, the rows of a
sheet going to a temporary file as they come (``constant_memory``), so memory stays flat
whatever the number of rows.

Every CSV Sova writes (the payment register, the editors' queue) uses one dialect,
:func:`csv_writer`: UTF-8 with BOM (:data:`BOM`, written by the caller once), ``;``
separated, CRLF line ends, numbers with a decimal comma and no thousands separator
(:func:`decimal_comma`) — what a Russian-locale spreadsheet opens as columns and numbers
(with ``,`` and a decimal point it shows one column of text).
"""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import IO, Any

import xlsxwriter
from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

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


#: XlsxWriter's options for every workbook: rows streamed to a temporary file, and none of
#: its guesses from a text's look (every value is written by its type: :class:`XlsxSheet`).
XLSX_OPTIONS = {
    "constant_memory": True,
    "strings_to_formulas": False,
    "strings_to_urls": False,
    "strings_to_numbers": False,
}
#: The number formats of a date or datetime cell written without one.
DATE_FORMAT = "dd.mm.yyyy"
DATETIME_FORMAT = "dd.mm.yyyy hh:mm"
#: Rows a sheet holds (Excel's limit, XlsxWriter's too: it drops a cell past it).
MAX_ROWS = 1_048_576
#: Characters a cell's text holds (Excel's limit; XlsxWriter cuts a longer text there
#: without a sign).
MAX_CELL_TEXT = 32_767
#: The end of a text cut to :data:`MAX_CELL_TEXT`: the reader sees that more was there
#: (the CSV export holds it whole).
CUT_MARK = "…"


def fitted(text: str) -> str:
    """``text`` as one cell holds it: as it is up to :data:`MAX_CELL_TEXT` characters,
    longer cut to that length with :data:`CUT_MARK` as its last character."""
    if len(text) <= MAX_CELL_TEXT:
        return text
    return text[: MAX_CELL_TEXT - len(CUT_MARK)] + CUT_MARK


@contextmanager
def xlsx_workbook(out: IO[bytes]) -> Iterator[Workbook]:
    """An XlsxWriter workbook (:data:`XLSX_OPTIONS`) written to the binary file ``out`` when
    the block ends. Its temporary files (each sheet's rows, the parts before they are
    zipped) are kept in a directory of their own, removed whatever happens: a read that
    fails halfway or an abandoned download leaves nothing behind (the sheets' open files
    are closed, nothing is zipped)."""
    with tempfile.TemporaryDirectory(prefix="sova-xlsx-") as tmp:
        wb = xlsxwriter.Workbook(out, {**XLSX_OPTIONS, "tmpdir": tmp})
        try:
            yield wb
        except BaseException:
            for ws in wb.worksheets():
                rows = getattr(ws, "row_data_fh", None)
                if rows is not None:
                    rows.close()
            raise
        wb.close()


class XlsxSheet:
    """A worksheet of :func:`xlsx_workbook`, written row after row (:meth:`append`) through
    the guard: a text is :func:`safe_cell`'s and a string cell (an error code's look —
    ``#N/A`` — or a number's stays text), an empty text no cell (what a spreadsheet reads
    back of an empty string cell), numbers (int, float, Decimal) number cells, a date or
    datetime a date cell (:data:`DATE_FORMAT` / :data:`DATETIME_FORMAT` unless the column
    has a format), a bool a boolean cell, ``None`` no cell. A text longer than a cell
    holds is cut visibly (:func:`fitted`)."""

    def __init__(self, workbook: Workbook, name: str):
        self.workbook = workbook
        self.ws: Worksheet = workbook.add_worksheet(name)
        self.rows = 0
        self._formats: dict[tuple, Format] = {}

    def format(self, **properties: Any) -> Format:
        """The workbook's cell format of ``properties`` (``num_format="#,##0.00"``,
        ``bold=True``), made once."""
        key = tuple(sorted(properties.items()))
        fmt = self._formats.get(key)
        if fmt is None:
            fmt = self._formats[key] = self.workbook.add_format(properties)
        return fmt

    def append(self, row: Iterable, formats: Mapping[int, Format] | None = None) -> None:
        """Write ``row`` as the sheet's next row. ``formats`` maps a 0-based column to a
        cell format (:meth:`format`); that column's cell gets it, empty or not. One pass
        over the row, each value by its type."""
        r = self.rows
        if r >= MAX_ROWS:
            raise ValueError(f"a sheet holds {MAX_ROWS} rows")
        self.rows = r + 1
        ws = self.ws
        for c, value in enumerate(row):
            fmt = formats.get(c) if formats else None
            if isinstance(value, str):
                if value:
                    ws.write_string(r, c, fitted(safe_cell(value)), fmt)
                elif fmt is not None:
                    ws.write_blank(r, c, None, fmt)
            elif value is None:
                if fmt is not None:
                    ws.write_blank(r, c, None, fmt)
            elif isinstance(value, bool):
                ws.write_boolean(r, c, value, fmt)
            elif isinstance(value, int | float | Decimal):
                ws.write_number(r, c, value, fmt)
            elif isinstance(value, datetime):
                ws.write_datetime(r, c, value, fmt or self.format(num_format=DATETIME_FORMAT))
            elif isinstance(value, date):
                ws.write_datetime(r, c, value, fmt or self.format(num_format=DATE_FORMAT))
            else:
                raise TypeError(f"no spreadsheet cell for {type(value).__name__}")


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
