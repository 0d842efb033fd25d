"""The catalogs' no-op marker: :func:`N_` marks a string kept in a variable (a dict of labels,
a module constant) for ``pybabel extract`` (``make messages``), where it is defined; the code
that shows it translates it then with ``gettext(variable)``."""

from __future__ import annotations


def N_(msgid: str) -> str:
    """``msgid`` itself, marked for the catalogs' extraction (``N_`` is one of Babel's default
    keywords); translated where it is shown."""
    return msgid
