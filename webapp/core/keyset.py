"""Keyset pagination ("seek"): a page of a sorted list is found by where the row next to it
sits in the order (its sort key and id), not by ``OFFSET``, so a page far down the list
costs what the first one costs and no ``COUNT(*)`` is needed. A list's order is given as
:class:`Key` s, the last one unique (the id), so that the order is total.

A page's cursors are row ids: «следующая» is the rows after the page's last row, «предыдущая»
the rows before its first row; the key of the row a cursor names is read from the database
(one statement by primary key), so a link stays short and works after its row has left the
list (a question decided meanwhile keeps its place in the order)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, or_, select, tuple_

from webapp.extensions import db


@dataclass(frozen=True)
class Key:
    """One sort key of an order: a column or expression, descending or not."""

    expr: Any
    desc: bool = False

    def ordered(self, reverse: bool = False):
        return self.expr.desc() if self.desc != reverse else self.expr.asc()


def order_by(keys: Sequence[Key], reverse: bool = False) -> list:
    """The ORDER BY of ``keys`` (``reverse``: the opposite order, for the rows before a
    cursor)."""
    return [k.ordered(reverse) for k in keys]


def beyond(keys: Sequence[Key], values: Sequence, reverse: bool = False):
    """The condition "the row comes after ``values`` in the order of ``keys``" (``reverse``:
    before). One row-value comparison when every key runs the same way (an index on the
    keys answers it), else the usual expansion ``k1 > a OR (k1 = a AND k2 > b) OR …``."""
    downward = [k.desc != reverse for k in keys]
    if all(downward) or not any(downward):
        left = tuple_(*(k.expr for k in keys))
        right = tuple_(*values)
        return left < right if downward[0] else left > right
    terms = []
    for i, key in enumerate(keys):
        step = key.expr < values[i] if downward[i] else key.expr > values[i]
        terms.append(and_(*(keys[j].expr == values[j] for j in range(i)), step))
    return or_(*terms)


def uniform(keys: Sequence[Key]) -> bool:
    """Whether every key runs the same way (one row-value comparison seeks the order)."""
    return len({k.desc for k in keys}) == 1


def seek(stmt, keys: Sequence[Key], values: Sequence, limit: int, reverse: bool = False) -> list:
    """The first ``limit`` rows of ``stmt`` after ``values`` in the order of ``keys``
    (``reverse``: the rows before them, nearest first), as :func:`_rows` gives them.

    Keys that run one way: one statement (:func:`beyond`). Keys that do not (the score
    descending, then the id ascending): the expansion ``k1 > a OR (k1 = a AND k2 > b)`` is
    no range of an index, so a database reads it by scanning the order from its start and
    dropping the rows before the cursor — a page far down costs the whole way there (and
    SQLite seeks a row value only by its first column, which is the same when that column
    repeats). Its terms are read one by one instead, the last first (the rows of the
    cursor's own ``k1 = a``, in its order, come before every row of ``k1 > a``), each an
    equality prefix and a range of an index on the keys (with their directions): at most
    one statement per key, until ``limit`` rows are found."""
    if uniform(keys):
        sought = stmt.where(beyond(keys, values, reverse)).order_by(*order_by(keys, reverse))
        return _rows(sought.limit(limit))
    rows: list = []
    for i in reversed(range(len(keys))):
        key = keys[i]
        step = key.expr < values[i] if key.desc != reverse else key.expr > values[i]
        term = and_(*(keys[j].expr == values[j] for j in range(i)), step)
        order = order_by(keys[i:], reverse)
        rows += _rows(stmt.where(term).order_by(*order).limit(limit - len(rows)))
        if len(rows) >= limit:
            break
    return rows


@dataclass(frozen=True)
class Page:
    """A page of a list: its ``items`` and the cursors of its neighbours — ``before`` for
    «предыдущая» (the id of the first item), ``after`` for «следующая» (the id of the last
    one); None where there is no such page."""

    items: list
    before: int | None = None
    after: int | None = None


def page(
    stmt,
    keys: Sequence[Key],
    ident,
    key_of,
    per_page: int,
    after: int | None = None,
    before: int | None = None,
) -> Page:
    """One page of ``stmt`` (a SELECT without ORDER BY and LIMIT, whose first column is the
    row's object or id) in the order of ``keys``: the first page, the page after the row
    ``after`` or the page before the row ``before``. ``ident`` is the id column, ``key_of``
    a function ``id -> the key values of that row (a sequence) or None`` (one statement).

    Two statements at most (the cursor's key, the page; the first page one) when the keys
    run one way, one more per key otherwise (:func:`seek`), whatever the page: one more
    row than the page is read to know whether a page follows. A cursor whose
    row is gone, or a page before that would not be full (rows left the list meanwhile),
    gives the first page."""
    cursor, reverse = (before, True) if before is not None else (after, False)
    values = key_of(cursor) if cursor is not None else None
    if values is None:
        rows = _rows(stmt.order_by(*order_by(keys)).limit(per_page + 1))
        more = len(rows) > per_page
        items = rows[:per_page]
        return Page(items, None, _id(items[-1], ident) if more else None)
    rows = seek(stmt, keys, values, per_page + 1, reverse)
    more = len(rows) > per_page
    items = rows[:per_page]
    if reverse:
        if len(items) < per_page:
            return page(stmt, keys, ident, key_of, per_page)
        items.reverse()
        return Page(items, _id(items[0], ident) if more else None, _id(items[-1], ident))
    if not items:
        return page(stmt, keys, ident, key_of, per_page)
    return Page(items, _id(items[0], ident), _id(items[-1], ident) if more else None)


def key_of_columns(keys: Sequence[Key], ident):
    """The ``key_of`` of :func:`page` for keys that are columns of the table of ``ident``:
    one SELECT of those columns by id."""

    def key_of(row_id: int):
        stmt = select(*(k.expr for k in keys)).where(ident == row_id)
        return db.session.execute(stmt).first()

    return key_of


#: The largest id a cursor may name (a larger number is no row's: no cursor, rather than
#: a number the database refuses to compare with an integer column).
MAX_ID = 2**31 - 1


def id_arg(request_args, name: str) -> int | None:
    """The query argument ``name`` as a row id (1..:data:`MAX_ID`), else None: a hand-typed
    ``?game_id=99999999999999999999`` filters nothing instead of overflowing the database's
    integer."""
    value = request_args.get(name, type=int)
    return value if value is not None and 0 < value <= MAX_ID else None


def args(request_args, prefix: str = "") -> dict[str, int | None]:
    """``after`` and ``before`` of a request's query arguments (ids 1..:data:`MAX_ID`;
    anything else is no cursor): ``page(..., **keyset.args(request.args))``. A second list
    on the same page reads its own, named with a ``prefix`` (``seasons_after``)."""
    return {name: id_arg(request_args, prefix + name) for name in ("after", "before")}


def neighbours(stmt, keys: Sequence[Key], values: Sequence) -> tuple[Any, Any]:
    """The rows just before and just after the key ``values`` in the order of ``keys``
    (None at either end): two statements of one row each (keys that do not run one way:
    up to one per key each, :func:`seek`)."""
    prev = seek(stmt, keys, values, 1, reverse=True)
    nxt = seek(stmt, keys, values, 1)
    return (prev[0] if prev else None), (nxt[0] if nxt else None)


def _rows(stmt) -> list:
    return [r[0] for r in db.session.execute(stmt).all()]


def _id(item, ident) -> int:
    return item if isinstance(item, int) else getattr(item, ident.key)
