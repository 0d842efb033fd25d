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

_BOOKS: dict[str, Book] = {"2023": BOOK_2023, "2009": BOOK_2009}

BOOKS: Mapping[str, Book] = MappingProxyType(_BOOKS)
"""Every rule book a season may be played under, by its ``ruleset`` name (the protocols'
``ruleset`` field), in the order the forms offer them. Read-only: :func:`register` adds one."""

_OWN = frozenset(_BOOKS)


def register(new: Book) -> None:
    """Add ``new`` to :data:`BOOKS`, offered after the others (``ValueError`` when its name
    is taken). Sova's own books are registered above; this is how a book defined elsewhere
    (a test's) joins them, and :func:`unregister` takes it out again."""
    if new.name in _BOOKS:
        raise ValueError(f"a rule book named {new.name!r} is already registered")
    _BOOKS[new.name] = new


def unregister(name: str) -> None:
    """Take the book ``name`` added by :func:`register` out of :data:`BOOKS` again."""
    if name in _OWN:
        raise ValueError(f"the rule book {name!r} is Sova's own")
    del _BOOKS[name]


def book(name: str) -> Book:
    """The book of ``name`` (``"2023"``); ``KeyError`` for a name no book has."""
    return BOOKS[name]


__all__ = ["BOOKS", "Book", "book", "register", "unregister"]
