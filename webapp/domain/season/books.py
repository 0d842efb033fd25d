"""The registry of rule books: the protocol's ``ruleset`` → its :class:`~.rulebook.RuleBook`.

As a game's rule sets are found in ``webapp.domain.rules.rulesets.RULESETS``, a season's
book is found here. Adding a rule book is one module with a ``RuleBook`` subclass and one line
in :data:`BOOK_CLASSES`; :data:`BOOKS` (the rule-book file of each) follows it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .book2009 import Book2009
from .book2023 import Book2023
from .rulebook import RuleBook

BOOK_CLASSES: dict[str, type[RuleBook]] = {
    "2023": Book2023,
    "2009": Book2009,
}
"""Every rule book a season may be played under, by its ``ruleset`` name."""


class _Files(Mapping[str, str]):
    """``{ruleset: rule-book file}``, read from :data:`BOOK_CLASSES` when asked."""

    def __getitem__(self, ruleset: str) -> str:
        return BOOK_CLASSES[ruleset].file

    def __iter__(self) -> Iterator[str]:
        return iter(BOOK_CLASSES)

    def __len__(self) -> int:
        return len(BOOK_CLASSES)

    def __repr__(self) -> str:
        return repr(dict(self))


BOOKS: Mapping[str, str] = _Files()
"""Rule-book file of each rule set (the ``ruleset`` field of the protocol)."""
