"""Spreadsheet formula injection guard, one helper for every CSV/XLSX export.

A cell whose text a spreadsheet would read as a formula (OWASP "CSV injection"): the first
character that is not a space is ``=``, ``+``, ``-``, ``@`` or their full-width forms
``＝``, ``＋``, ``－``, ``＠`` (some spreadsheet programs fold them to ASCII), or the text
starts with a tab, carriage return or line feed. Such a cell gets a leading apostrophe,
so it is shown as text and never evaluated; in XLSX it is also typed a string cell
(openpyxl otherwise stores a value starting with ``=`` as a formula). Numbers, dates,
Decimal and None pass unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

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


def append_safe(ws, row: Iterable) -> None:
    """Append ``row`` to the openpyxl worksheet ``ws`` through :func:`safe_cell`, every
    text cell typed as a string (data type ``s``), never a formula."""
    ws.append(safe_row(row))
    for cell in ws[ws.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"
