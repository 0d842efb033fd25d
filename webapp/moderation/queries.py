"""Reads for editors: the queue (filters, search, sorting, pages) and one question."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import (
    ColumnElement,
    Integer,
    Row,
    String,
    Text,
    and_,
    any_,
    bindparam,
    cast,
    func,
    literal_column,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import lazyload

from webapp.core import keyset
from webapp.core.keyset import Key, Page
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation.models import (
    PRECHECK_VERSION,
    ModerationReport,
    QuestionClaim,
    QuestionComment,
    QuestionRevision,
    QuestionSignoff,
)
from webapp.submissions.day_counts import UNCOUNTED_STATUS
from webapp.submissions.models import Question, QuestionAuthor, QuestionCityCount

PAGE_SIZE = 50
#: The queue's orders as keyset keys (``webapp.core.keyset``), the id last: a total order, so
#: a page is found by the (sort key, id) of the row next to it.
SORT_KEYS: dict[str, tuple[Key, ...]] = {
    "oldest": (Key(Question.created_at), Key(Question.id)),
    "newest": (Key(Question.created_at, desc=True), Key(Question.id, desc=True)),
    # «по повторам»: the best duplicate score first (the pre-check's copy on the question,
    # read from its index: migration 0027), then the oldest question
    "duplicate": (Key(Question.duplicate_score, desc=True), Key(Question.id)),
    # the pre-check's reading time, copied onto the question
    "reading": (Key(Question.reading_seconds, desc=True), Key(Question.id)),
    "reading_short": (Key(Question.reading_seconds), Key(Question.id)),
    "id": (Key(Question.id),),
}
SORTS = {name: tuple(keyset.order_by(keys)) for name, keys in SORT_KEYS.items()}
#: The queue page counts its questions up to this many («больше 1 000» beyond): counting
#: every match of a search in a large archive is what made the last pages slow.
COUNT_CAP = 1000


@dataclass(frozen=True)
class QueueFilter:
    """What the editor asked for. ``status`` None: every status except ``archived``;
    ``flag``: a failed pre-check name (``"sources_present"``); ``min_score``: best
    duplicate score 0..100; ``older_than_days`` / ``newer_than_days``: age in whole days;
    ``search``: full-text words (all must occur; FTS5 on SQLite, ``russian`` on
    PostgreSQL); ``origin``: the file name of an imported packet (its questions' origin is
    «name#number»); ``signoff``: ``"pending"`` the questions whose sources no second
    editor has signed off yet (what «Источники проверены…» still has to do), ``"done"``
    those signed off, None either; ``sort``: a key of :data:`SORTS`."""

    status: str | None = "in_review"
    channel: str | None = None
    city: str | None = None
    flag: str | None = None
    min_score: float | None = None
    older_than_days: int | None = None
    newer_than_days: int | None = None
    search: str | None = None
    origin: str | None = None
    signoff: str | None = None
    sort: str = "oldest"


def _spellings(city: str) -> list[str]:
    """The usual spellings of a typed city (SQLite's lower() folds ASCII only, so the
    comparison is done on spellings): as typed, lower case, capitalised, title case."""
    c = " ".join(city.split())
    return sorted({c, c.lower(), c.capitalize(), c.title()})


def by_city(city: str) -> ColumnElement[bool]:
    """«Some author of the question gave ``city``» (any author, any of
    :func:`_spellings`) as a probe of each question's own author links: a correlated
    ``EXISTS`` the planner keeps as a subplan (``OFFSET 0`` keeps PostgreSQL from turning
    it into a semi-join). A semi-join would read every author link of the city, the
    archive's among them, before the first question of the page or of the count; the probe reads a
    question's few links through ``(question_id, author_id)`` while the queue is walked in
    its own order (its status's index), so a page reads about as many questions as it
    shows over the city's share of them, and a count read this way (when
    :func:`city_count` cannot answer) about the cap over that share: the queue's rows,
    never the archive's."""
    return (
        select(literal_column("1"))
        .select_from(QuestionAuthor)
        .where(QuestionAuthor.question_id == Question.id, QuestionAuthor.city.in_(_spellings(city)))
        .offset(0)
        .exists()
    )


def _fts_match(words: str) -> str:
    """An FTS5 MATCH expression: every word quoted (no operator syntax from users)."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words.split())


#: The full-text document on PostgreSQL, word for word the expression of its indexes
#: (migrations 0002 and 0026): an expression index serves only the same expression.
PG_DOCUMENT: ColumnElement[Any] = literal_column(
    "to_tsvector('russian', coalesce(question.text, '') || ' ' || coalesce(question.answer, ''))"
)
#: «Not archived», word for word the predicate of the partial indexes (migration 0026;
#: a bound parameter in its place would keep either database from using them).
NOT_ARCHIVED = text("question.status <> 'archived'")


def fulltext(stmt, words: str):
    """``stmt`` (a select that reads ``Question``) narrowed to the questions whose text or
    answer hold every word of ``words``: the ``russian`` text search configuration on
    PostgreSQL (word forms: «годом» finds «год»), FTS5 on SQLite (whole words as typed).
    The editors' queue and the public archive search the same way. Control characters
    (NUL, which neither database takes in a query) separate words like spaces."""
    words = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in words)
    if not words.split():
        return stmt
    if db.session.get_bind().dialect.name == "postgresql":
        # the words written into the statement (quoted by SQLAlchemy's literal rendering),
        # not bound: the driver prepares a statement it runs often, and a generic plan,
        # which cannot know how many questions hold the words, may read the queue in its
        # order computing each question's document
        typed = bindparam(None, words, type_=String, literal_execute=True)
        query = func.plainto_tsquery(literal_column("'russian'"), typed)
        return stmt.where(PG_DOCUMENT.op("@@")(query))
    ids = text("SELECT rowid FROM question_fts WHERE question_fts MATCH :fts").bindparams(
        fts=_fts_match(words)
    )
    return stmt.where(Question.id.in_(ids))


def _with_report(stmt):
    """``stmt`` joined to each question's report of the current pre-check version, if any."""
    return stmt.outerjoin(
        ModerationReport,
        and_(
            ModerationReport.question_id == Question.id,
            ModerationReport.version == PRECHECK_VERSION,
        ),
    )


def queue_statement(f: QueueFilter):
    """The SELECT of (Question, ModerationReport | None) for a filter, sorted."""
    return _filtered(f).order_by(*SORTS.get(f.sort, SORTS["oldest"]))


def _filtered(f: QueueFilter):
    """The SELECT of (Question, ModerationReport | None) for a filter, unsorted."""
    stmt = _with_report(select(Question, ModerationReport))
    if f.status:
        stmt = stmt.where(Question.status == f.status)
    if not f.status or (f.search and f.status != "archived"):
        # word for word the partial indexes' predicate (the order by receipt, by duplicate
        # score, the full-text search of the questions not archived), a search repeating
        # it beside a status of its own to take the partial full-text index. Not beside a
        # status otherwise: «status = 'x' AND status <> 'archived'» reads to the planner as
        # two independent conditions, and it misjudged every status's rows by the
        # archive's share (an eleventh at 500 000), choosing plans for a list that small
        stmt = stmt.where(NOT_ARCHIVED)
    if f.channel:
        stmt = stmt.where(Question.channel == f.channel)
    if f.city:
        stmt = stmt.where(by_city(f.city))
    if f.flag:
        stmt = stmt.where(ModerationReport.flags.contains(f" {f.flag.strip()} "))
    if f.min_score is not None:
        stmt = stmt.where(ModerationReport.top_score >= f.min_score)
    now = utcnow()
    if f.older_than_days is not None:
        stmt = stmt.where(Question.created_at <= now - timedelta(days=f.older_than_days))
    if f.newer_than_days is not None:
        stmt = stmt.where(Question.created_at >= now - timedelta(days=f.newer_than_days))
    if f.search:
        stmt = fulltext(stmt, f.search)
    if f.origin:
        stmt = stmt.where(Question.origin.startswith(f"{f.origin}#", autoescape=True))
    if f.signoff in SIGNOFF_STATES:
        signed = select(QuestionSignoff.question_id)
        stmt = stmt.where(
            Question.id.in_(signed) if f.signoff == "done" else Question.id.not_in(signed)
        )
    return stmt


#: A filter with every field at its default (the others compared with it).
DEFAULT_FILTER = QueueFilter()

#: The values of the queue's sources filter (:attr:`QueueFilter.signoff`).
SIGNOFF_STATES = ("pending", "done")


def queue(
    status: str | None = "in_review",
    channel: str | None = None,
    page: int = 1,
    per_page: int = PAGE_SIZE,
    filters: QueueFilter | None = None,
) -> tuple[list[Question], int]:
    """Questions for editors (oldest first by default) by numbered pages, as the API gives
    them. Returns (items, pages); ``page`` is clamped to 1..pages. ``filters`` overrides
    ``status``/``channel``. A ``COUNT(*)`` and an ``OFFSET``: the queue page uses
    :func:`queue_page` instead."""
    f = filters or QueueFilter(status=status, channel=channel)
    stmt = queue_statement(f)
    total = db.session.scalar(select(func.count()).select_from(stmt.subquery()))
    pages = max(1, -(-(total or 0) // per_page))
    page = min(max(1, page), pages)
    rows = db.session.execute(stmt.offset((page - 1) * per_page).limit(per_page)).all()
    return [r[0] for r in rows], pages


def _keys(f: QueueFilter) -> tuple[Key, ...]:
    return SORT_KEYS.get(f.sort, SORT_KEYS["oldest"])


def _key_of(f: QueueFilter, within: bool = False):
    """``id -> the sort key of that question in f's order`` (None: no such question; with
    ``within``, also when the question is not in the queue of ``f``), one statement."""
    keys = _keys(f)

    def key_of(question_id: int):
        if within:
            stmt = _filtered(f).with_only_columns(*(k.expr for k in keys))
        else:
            stmt = _with_report(select(*(k.expr for k in keys)).select_from(Question))
        return db.session.execute(stmt.where(Question.id == question_id)).first()

    return key_of


def queue_page(
    f: QueueFilter,
    after: int | None = None,
    before: int | None = None,
    per_page: int | None = None,
) -> Page:
    """The queue page for ``f``: the first, the one after the question ``after`` or the
    one before the question ``before`` (keyset pagination: ``webapp.core.keyset.page``);
    its items are questions. Two statements at most, whatever the page: the page lists no
    author, status history or image, so those are loaded only if asked for."""
    stmt = _filtered(f).options(
        lazyload(Question.authors), lazyload(Question.history), lazyload(Question.images)
    )
    return keyset.page(
        stmt, _keys(f), Question.id, _key_of(f), per_page or PAGE_SIZE, after=after, before=before
    )


def queue_count(f: QueueFilter, cap: int | None = None) -> int:
    """How many questions the queue of ``f`` lists, counted up to ``cap + 1`` (more than
    ``cap``, default :data:`COUNT_CAP`: ``cap + 1``), so a count never reads every match of
    a search. Filtered by status and city alone, from the maintained counts
    (:func:`city_count`) when they answer exactly; otherwise by reading the matches."""
    limit = (cap or COUNT_CAP) + 1
    counted = city_count(f)
    if counted is not None:
        return min(counted, limit)
    inner = _filtered(f).with_only_columns(Question.id).limit(limit).subquery()
    return db.session.scalar(select(func.count()).select_from(inner)) or 0


#: The filter fields :func:`city_count` answers for (the others at their defaults).
_CITY_COUNTED = ("status", "city", "sort")


def city_count(f: QueueFilter) -> int | None:
    """How many questions the queue of ``f`` lists, from the counts by status and author's
    city (:class:`~webapp.submissions.models.QuestionCityCount`, kept exact by every
    writer), one statement of a few rows whatever the archive or the queue; None when
    they cannot say it exactly: ``f`` filters by more than status and city, or lists the
    archive (not counted: its rows are read, up to the cap), or one status holds
    questions in two of the typed city's spellings (a question whose authors gave both
    counts in each row, once in the queue).

    Why counts and not a faster read: a read is at best the matches themselves, up to the
    cap (the city's questions of the status, not the archive's, through the probe of
    :func:`by_city`: about the cap over the city's share of the queue, hundreds to
    thousands of author links at every request as the queue grows), where these rows are
    one per status and spelling."""
    if not f.city or f.status == UNCOUNTED_STATUS:
        return None
    if replace(f, **{name: getattr(DEFAULT_FILTER, name) for name in _CITY_COUNTED}) != (
        DEFAULT_FILTER
    ):
        return None
    c = QuestionCityCount
    stmt = select(c.status, c.count).where(c.city.in_(_spellings(f.city)), c.count > 0)
    if f.status:
        stmt = stmt.where(c.status == f.status)
    else:
        stmt = stmt.where(c.status != UNCOUNTED_STATUS)
    counts: dict[str, int] = {}
    for status, n in db.session.execute(stmt):
        if status in counts:
            return None
        counts[status] = n
    return sum(counts.values())


def first_id(f: QueueFilter) -> int | None:
    """The id of the first question of the queue of ``f`` (None: it is empty)."""
    return db.session.scalar(queue_statement(f).with_only_columns(Question.id).limit(1))


def queue_items(f: QueueFilter) -> list[Question]:
    """Every question of the queue for ``f``, in its order, no pages (the exports): the
    same statement as :func:`queue`, so an export lists what the screen lists."""
    return list(db.session.scalars(queue_statement(f)))


#: The columns an export prints (``webapp.moderation.export.queue_rows``): no author data
#: (blind moderation), no relationship (status history, authors, images) loaded. The
#: sources as their stored JSON text (``sources_json``): the export decodes only the rows
#: that have some (``export.source_lines``), not every row through the column's type.
EXPORT_COLUMNS = (
    Question.id,
    Question.status,
    Question.channel,
    Question.created_at,
    Question.text,
    Question.answer,
    Question.accepted,
    Question.rejected,
    Question.comment,
    cast(Question.sources, Text).label("sources_json"),
    Question.handout,
)
#: Rows per batch of an export: one fetch of the queue's cursor and one query of the
#: batch's reports each.
EXPORT_BATCH = 1000


def queue_batches(f: QueueFilter, size: int = EXPORT_BATCH) -> Iterator[Sequence[Row]]:
    """Every question of the queue for ``f`` in its order, no pages (the exports), as lists
    of at most ``size`` rows of :data:`EXPORT_COLUMNS` (attributes ``id``, ``status``, …):
    the same statement as :func:`queue`, so an export lists what the screen lists. The
    statement is read as it goes (``yield_per``: a server-side cursor on PostgreSQL), so
    memory stays flat whatever the number of rows."""
    stmt = queue_statement(f).with_only_columns(*EXPORT_COLUMNS).execution_options(yield_per=size)
    yield from db.session.execute(stmt).partitions()


def queue_ids(f: QueueFilter) -> list[int]:
    """The ids of every question of the queue for ``f``, in its order (the same statement
    as :func:`queue_batches`): the worker's export reads the rows by these, batch by batch,
    committing its progress between batches (a cursor would not outlive a commit)."""
    return list(db.session.scalars(queue_statement(f).with_only_columns(Question.id)))


def _among(column, ids: Sequence[int]):
    """``column IN ids`` for a batch of an export: on PostgreSQL ``= ANY(:ids)``, one array
    parameter — a thousand parameters made a statement psycopg parsed anew each batch (a
    fifth of the export's CPU)."""
    if db.session.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam("ids", list(ids), type_=ARRAY(Integer)))
    return column.in_(ids)


def export_rows(ids: Sequence[int]) -> list[Row]:
    """The rows of :data:`EXPORT_COLUMNS` of the questions ``ids``, in the order of
    ``ids`` (a question deleted meanwhile is left out), one query."""
    if not ids:
        return []
    rows = db.session.execute(select(*EXPORT_COLUMNS).where(_among(Question.id, ids)))
    by_id = {r.id: r for r in rows}
    return [by_id[i] for i in ids if i in by_id]


def export_reports(ids: Sequence[int]) -> dict[int, Row]:
    """The newest report per question id, as :func:`reports_for` gives it, but only its
    ``checks`` and ``duplicates``, as their stored JSON text (``checks_json``,
    ``duplicates_json``: rows, not ORM objects, and nothing decoded here — an older
    version's report is read and dropped, and the export decodes only what it prints:
    ``export.failed_checks``, ``export.top_score``), one query."""
    if not ids:
        return {}
    rows = db.session.execute(
        select(
            ModerationReport.question_id,
            cast(ModerationReport.checks, Text).label("checks_json"),
            cast(ModerationReport.duplicates, Text).label("duplicates_json"),
        )
        .where(_among(ModerationReport.question_id, ids))
        .order_by(ModerationReport.version)
    )
    return {r.question_id: r for r in rows}


def neighbours(question: Question, f: QueueFilter | None = None) -> tuple[int | None, int | None]:
    """The previous and next question ids around ``question`` in the queue order of ``f``
    (the default queue: in review, oldest first); a question not in that queue has no
    previous one and the queue's first as its next. Found by the question's sort key
    (keyset: the row just before it and the row just after it), three statements of one
    row each (five at most in the order «по повторам», whose keys run both ways:
    ``keyset.seek``), whatever the length of the queue."""
    f = f or QueueFilter()
    own = _key_of(f, within=True)(question.id)
    if own is None:
        return None, first_id(f)
    return keyset.neighbours(_filtered(f).with_only_columns(Question.id), _keys(f), own)


def claims_for(ids: list[int]) -> dict[int, QuestionClaim]:
    """Live claims by question id."""
    if not ids:
        return {}
    rows = db.session.scalars(
        select(QuestionClaim).where(
            QuestionClaim.question_id.in_(ids), QuestionClaim.expires_at > utcnow()
        )
    )
    return {c.question_id: c for c in rows}


def latest_report(question_id: int) -> ModerationReport | None:
    return db.session.scalar(
        db.select(ModerationReport)
        .filter_by(question_id=question_id)
        .order_by(ModerationReport.version.desc())
    )


def reports_for(ids: list[int]) -> dict[int, ModerationReport]:
    """The newest report per question id (one query)."""
    if not ids:
        return {}
    rows = db.session.scalars(
        db.select(ModerationReport)
        .where(ModerationReport.question_id.in_(ids))
        .order_by(ModerationReport.version)
    ).all()
    return {r.question_id: r for r in rows}


def question(question_id: int) -> Question | None:
    return db.session.get(Question, question_id)


def signed_off_ids():
    """SELECT of the ids of questions with the second editor's sources sign-off: the only
    approved questions that may enter an envelope. For ``games``' pool query:
    ``Question.id.in_(signed_off_ids())``. With ``SOVA_REQUIRE_SIGNOFF = False`` in the app
    config (default True; a transition switch for fixtures written before the rule) it
    selects every question id instead."""
    if not current_app.config.get("SOVA_REQUIRE_SIGNOFF", True):
        return select(Question.id)
    return select(QuestionSignoff.question_id)


def revisions(question_id: int) -> list[QuestionRevision]:
    """The question's revisions, oldest first."""
    return list(
        db.session.scalars(
            select(QuestionRevision)
            .filter_by(question_id=question_id)
            .order_by(QuestionRevision.id)
        )
    )


def comments(question_id: int) -> list[QuestionComment]:
    """The editors' comments on a question, oldest first."""
    return list(
        db.session.scalars(
            select(QuestionComment).filter_by(question_id=question_id).order_by(QuestionComment.id)
        )
    )


def signoff(question_id: int) -> QuestionSignoff | None:
    return db.session.get(QuestionSignoff, question_id)


#: Questions whose pre-check still matters to the editors (before a decision).
RECHECKED_STATUSES = ("received", "prechecked", "in_review")


def stale_precheck_ids(statuses: tuple[str, ...] = RECHECKED_STATUSES) -> list[int]:
    """Ids (ascending) of questions in ``statuses`` without a report of the current
    ``PRECHECK_VERSION``: after the checks change, these are pre-checked again
    (``sova precheck stale``) so the queue's flag and duplicate filters see them."""
    current = select(ModerationReport.question_id).where(
        ModerationReport.version == PRECHECK_VERSION
    )
    return list(
        db.session.scalars(
            select(Question.id)
            .where(Question.status.in_(statuses), Question.id.not_in(current))
            .order_by(Question.id)
        )
    )
