"""The rule books Sova plays: one :class:`~.base.Book` per book, found in :data:`BOOKS`.

Everything that differs between rule books is reached through a book: its game rule set, its
season rule book, its prize rules, its amendable parameters, its languages, its donor, its
names. The engines are handed a book; nothing outside this package compares a book's name.

Adding a book is one folder beside the others and one line in :data:`BOOKS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .b2009 import BOOK as BOOK_2009
from .b2023 import BOOK as BOOK_2023
from .base import Book

BOOKS: Mapping[str, Book] = MappingProxyType({"2023": BOOK_2023, "2009": BOOK_2009})
"""Every rule book a season may be played under, by its ``ruleset`` name (the protocols'
``ruleset`` field)."""


def book(name: str) -> Book:
    """The book of ``name`` (``"2023"``); ``KeyError`` for a name no book has."""
    return BOOKS[name]


__all__ = ["BOOKS", "Book", "book"]
