"""The archive import's bulk path (``sova import FILE… --as archive``): a packet's rows
written a batch at a time with Core statements instead of one ORM object per question.

The rows are those of the ORM path (:func:`webapp.submissions.operations.import_packet`
with ``as_="archive"``), column for column (``tests/webapp/moderation/test_bulk_import.py``
imports one packet both ways and compares every table): the question (every column from
:func:`~webapp.submissions.operations.question_values`), its author links (authors found
as :func:`~webapp.submissions.operations.upsert_author` finds them, new ones made with
their folded keys), its first status record, its duplicate index rows
(:func:`~webapp.moderation.duplicates.row_arrays`) and, on SQLite, its full-text row; the
images a question refers to are attached as the ORM path attaches them.

How, in two halves. :func:`prepare` needs no database (``sova import`` runs it in worker
processes, files ahead of the one being written): per batch (:data:`FIRST_BATCH`
questions, then :data:`BATCH`) the cleaned fields, the column values (for PostgreSQL as
lines of ``COPY``'s text format, :func:`copy_lines`), the authors, the
duplicate index rows with each question's place in its batch for its id, the image
references. :func:`write` then, per batch, the authors not seen yet in one ``SELECT`` (and
the missing ones in one multi-row ``INSERT … RETURNING``); on PostgreSQL the question ids
from the sequence in one statement and every table filled by ``COPY`` (psycopg's
``cursor.copy``); on SQLite multi-row ``INSERT … RETURNING`` for the questions and the
DB-API ``executemany`` for the rest; the file's duplicate index rows sorted and written
once at its end (:class:`_IndexRows`) — or, for ``sova import`` on PostgreSQL, after the
file's commit by the caller, owed by an outbox row until then (:func:`write_index`).
Flushes only; the caller commits once per file, so a file that fails leaves nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np
from sqlalchemy import JSON, Table, insert, select

from webapp.core.models import utcnow
from webapp.domain.handouts import image_refs
from webapp.domain.question_states import check_transition
from webapp.extensions import db
from webapp.moderation.duplicates import insert_new_rows, row_arrays
from webapp.moderation.tasks import INDEX_QUESTIONS
from webapp.submissions.day_counts import count_questions
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionStatusChange,
    author_keys,
)
from webapp.submissions.operations.intake import question_values
from webapp.submissions.operations.packet_import import clean_fields
from webapp.submissions.packet_images import attach_packet_images, missing_refs
from webapp.tasks.outbox import done_on, hand_over

#: Questions per batch: bounds the memory of a file of any size (a few MB a batch).
BATCH = 2000
#: Questions in a file's first batch: the database starts writing a file as soon as this
#: many are ready instead of waiting for a whole batch to be made.
FIRST_BATCH = 250
#: Values per ``IN (…)`` (author names, question ids; SQLite's variable limit is far above).
VALUES_PER_IN = 500
STATUS = "archived"
#: SQLite's page cache for the import's connection (KiB, negative as the PRAGMA takes it).
SQLITE_CACHE_KIB = -262144


@dataclass
class ArchiveImport:
    """What :func:`import_archive` wrote: the new question ids (in the packet's order),
    the number of images attached and the referenced image names without a file; after a
    :func:`write` with ``index_after_commit``, ``index``: the duplicate index rows it left
    to write (``(bucket, question_id)`` int64 arrays in that order) and ``owed``: the
    outbox row that owes them (:func:`write_index`)."""

    ids: list[int] = field(default_factory=list)
    images: int = 0
    missing: list[str] = field(default_factory=list)
    index: tuple[np.ndarray, np.ndarray] | None = None
    owed: int | None = None


@dataclass
class Batch:
    """Up to :data:`BATCH` questions of a packet made ready to write (picklable: a worker
    process makes them). ``texts``: each question's stored text; ``values``: every column
    of each question but ``id`` (:func:`question_values`), or, made for PostgreSQL,
    ``lines``: those values as ``COPY`` text lines (:func:`copy_lines`) and ``values``
    empty; ``authors``:
    each question's authors as :func:`import_authors` gives them; ``bucket``/``place``:
    the duplicate index rows (:func:`~webapp.moderation.duplicates.row_arrays`, int64,
    ``place`` the question's index in this batch); ``refs``: the indices of the questions
    referring to an image."""

    texts: list[str]
    values: list[dict]
    lines: list[bytes] | None
    authors: list[list[tuple]]
    bucket: np.ndarray
    place: np.ndarray
    refs: list[int]

    def __len__(self) -> int:
        return len(self.texts)


@dataclass
class Prepared:
    """A packet made ready to write (:func:`prepare`): its ``channel``, its questions'
    stored ``texts`` (for :func:`already_there`, in order) and its :class:`Batch` es in the
    packet's order — a list, or batches still being made (``sova import`` hands
    :func:`write` those of a worker process as they come)."""

    channel: str
    texts: list[str]
    batches: Iterable[Batch]

    def __len__(self) -> int:
        return len(self.texts)


def _table(model: type) -> Table:
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


def prepare(packet, channel: str | None = None, origin: str = "", dialect=None) -> Prepared:
    """The Python half of the import, without a database: a parsed packet
    (:class:`webapp.domain.packets.Packet`) as :class:`Batch` es (:func:`batches`)."""
    made = list(batches(packet, channel, origin, dialect))
    return Prepared(channel or "archive", [t for b in made for t in b.texts], made)


def batches(packet, channel: str | None = None, origin: str = "", dialect=None) -> Iterator[Batch]:
    """The packet's :class:`Batch` es one after the other — cleaned fields, column values
    (``origin``: ``<origin>#<number>``), authors, duplicate index rows, image
    references; with ``dialect`` (SQLAlchemy's) PostgreSQL's, the values bound for its
    ``COPY``. ``sova import`` runs it in worker processes while the database writes
    what came before."""
    channel = channel or "archive"
    postgresql = dialect is not None and dialect.name == "postgresql"
    questions = packet.questions
    for lo, hi in _spans(len(questions)):
        chunk = questions[lo:hi]
        cleaned = [clean_fields(pq) for pq in chunk]
        values = [
            question_values(c, channel, STATUS, origin=f"{origin}#{pq.number}"[:300])
            for c, pq in zip(cleaned, chunk, strict=True)
        ]
        bucket, place = row_arrays([(i, v["matching_key"]) for i, v in enumerate(values)])
        refs = [
            i for i, v in enumerate(values) if image_refs(v["text"], v["handout"], v["comment"])
        ]
        texts = [v["text"] for v in values]
        authors = [c["authors"] for c in cleaned]
        if postgresql:
            yield Batch(texts, [], copy_lines(values, dialect), authors, bucket, place, refs)
        else:
            yield Batch(texts, values, None, authors, bucket, place, refs)


def _spans(n: int) -> Iterator[tuple[int, int]]:
    """``(lo, hi)`` of each batch of ``n`` questions: :data:`FIRST_BATCH`, then
    :data:`BATCH` at a time."""
    lo, size = 0, FIRST_BATCH
    while lo < n:
        yield lo, min(n, lo + size)
        lo, size = lo + size, BATCH


def _question_columns(dialect) -> list[tuple[Any, Any]]:
    """``(column, bind processor or None)`` of every ``question`` column but ``id``."""
    return [
        (c, c.type.dialect_impl(dialect).bind_processor(dialect))
        for c in _table(Question).c
        if c.key != "id"
    ]


def _copy_text(value: str) -> str:
    """Text in ``COPY``'s text format: its backslashes, newlines, carriage returns and tabs
    escaped (PostgreSQL, «COPY», «Text Format»). ``str.replace`` gives the text back
    untouched when it holds none, the usual case."""
    if "\\" in value:
        value = value.replace("\\", "\\\\")
    return value.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def _copy_field(value) -> str:
    """One bound value in ``COPY``'s text format: ``\\N`` for NULL, ``t``/``f``, ISO times
    and dates, numbers as Python writes them, text by :func:`_copy_text`. Raises TypeError
    for any other type."""
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return _copy_text(value)
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"no COPY text for {type(value).__name__}")


def _json_text(value, keep_null: bool) -> str | None:
    """A JSON column's value as SQLAlchemy's ``JSON`` binds it: ``json.dumps`` (its
    default serializer), None as JSON ``null`` unless the type keeps it NULL."""
    return None if value is None and keep_null else json.dumps(value)


def copy_lines(values: list[dict], dialect) -> list[bytes]:
    """The ``question`` rows of ``values`` (:func:`question_values`) without ``id``, as
    lines of ``COPY``'s text format (UTF-8, each ending with a newline) in
    :func:`_question_columns`' order: each value bound as SQLAlchemy binds it for
    ``dialect`` (its type's bind processor: UTC times, booleans; a JSON value by
    :func:`_json_text`). Made by the reader processes, so that what crosses to the command is
    a few bytes objects a batch, written by it as they are."""
    columns: list[tuple[str, Callable[[Any], Any] | None]] = []
    for column, bind in _question_columns(dialect):
        if isinstance(column.type, JSON):
            columns.append((column.key, partial(_json_text, keep_null=column.type.none_as_null)))
        else:
            columns.append((column.key, bind))
    lines = []
    for v in values:
        fields = []
        for key, bind in columns:
            value = v[key] if bind is None else bind(v[key])
            # NULL and text, the usual values, without the type tests of _copy_field
            if value is None:
                fields.append("\\N")
            elif type(value) is str:
                fields.append(_copy_text(value))
            else:
                fields.append(_copy_field(value))
        lines.append(("\t".join(fields) + "\n").encode())
    return lines


def import_archive(
    packet,
    channel: str | None = None,
    origin: str = "",
    progress: Callable[[int], Any] | None = None,
    images: dict[str, bytes] | None = None,
    uploads: Path | None = None,
) -> ArchiveImport:
    """Store a parsed packet (:class:`webapp.domain.packets.Packet`) as archive questions
    (status ``archived``, channel ``archive`` or the given one), as ``import_packet(…,
    as_="archive")`` would: :func:`prepare` then :func:`write`. ``progress``: optional
    callable(n) after each batch of n questions. ``images``/``uploads``: as for
    ``import_packet`` (a bad image raises its ``BundleError``). Flushes only; the caller
    commits."""
    return write(prepare(packet, channel, origin), progress, images, uploads)


def write(
    prepared: Prepared,
    progress: Callable[[int], Any] | None = None,
    images: dict[str, bytes] | None = None,
    uploads: Path | None = None,
    index_after_commit: bool = False,
) -> ArchiveImport:
    """The database half of :func:`import_archive`: store a :func:`prepare` d packet,
    a batch at a time (authors, ids, rows); ``progress``/``images``/``uploads`` as there.
    Flushes only; the caller commits.

    ``index_after_commit`` (PostgreSQL): the file's last duplicate index rows (all of
    them up to :data:`INDEX_ROWS_PER_WRITE`) are not written in this transaction but
    returned (``ArchiveImport.index``), owed by an outbox row written in it
    (``ArchiveImport.owed``, the task ``moderation.index_questions`` handed to the
    caller: :func:`webapp.tasks.outbox.hand_over`), for the caller to write after the
    commit on a connection of its own (:func:`write_index`) while it writes the next
    file: the database server then works on both at once. Should the caller not get to
    it, a worker does (the reconciliation sends the owed task)."""
    check_transition(None, STATUS)  # the state machine's first step, as set_status checks
    db.session.flush()
    connection = db.session.connection()
    writer = (
        _PgWriter(connection) if connection.dialect.name == "postgresql" else _Writer(connection)
    )
    authors = _Authors()
    index = _IndexRows(connection)
    done = ArchiveImport()
    with_refs: list[int] = []
    for batch in prepared.batches:
        author_ids = authors.resolve(batch.authors)
        ids = writer.questions(batch)
        links, history = [], []
        now = utcnow()
        for qid, found in zip(ids, batch.authors, strict=True):
            for pos, (name, city, _email, credit) in enumerate(found):
                links.append((qid, author_ids[name, city], pos, name, city, None, credit))
            history.append((qid, None, STATUS, now, None, None))
        writer.links(links)
        writer.history(history)
        if prepared.channel != "archive":  # the statistics' day counts, in this transaction
            count_questions(connection, ids)
        writer.fulltext(ids, batch)
        index.add(batch.bucket, np.asarray(ids, dtype=np.int64)[batch.place])
        with_refs.extend(ids[i] for i in batch.refs)
        done.ids.extend(ids)
        if progress:
            progress(len(batch))
    if index_after_commit and done.ids:
        done.index = index.take()
        done.owed = hand_over(connection, INDEX_QUESTIONS, min(done.ids), max(done.ids))
    else:
        index.flush()
    if with_refs:
        done.images, done.missing = _attach(with_refs, images, uploads)
    return done


#: Duplicate index rows held for one sorted write (16 bytes each: 32 MB); a file's rows
#: (about 23 a question) go in one write up to this.
INDEX_ROWS_PER_WRITE = 2_000_000


class _IndexRows:
    """A file's duplicate index rows, gathered batch by batch and written sorted by
    ``(bucket, question_id)`` in one statement (every :data:`INDEX_ROWS_PER_WRITE` rows and
    at the end). Why: the rows of a batch land all over the primary key's leaf pages (the
    buckets are hashes); written batch by batch, each batch walks most of those pages
    again, while one sorted write walks them once, in order."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.buckets: list[np.ndarray] = []
        self.owners: list[np.ndarray] = []
        self.count = 0

    def add(self, bucket: np.ndarray, owner: np.ndarray) -> None:
        """Rows of questions with larger ids than every row added before."""
        self.buckets.append(bucket)
        self.owners.append(owner)
        self.count += len(bucket)
        if self.count >= INDEX_ROWS_PER_WRITE:
            self.flush()

    def flush(self) -> None:
        if self.count:
            insert_new_rows(self.connection, *self.take())

    def take(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows added since the last write, in ``(bucket, question_id)`` order, as
        two int64 arrays; forgotten here."""
        if not self.count:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        bucket, owner = np.concatenate(self.buckets), np.concatenate(self.owners)
        # each part is in (bucket, id) order with larger ids than the one before: a
        # stable sort by bucket alone gives (bucket, id)
        order = np.argsort(bucket, kind="stable")
        self.buckets, self.owners, self.count = [], [], 0
        return bucket[order], owner[order]


def write_index(connection, done: ArchiveImport) -> None:
    """Write the duplicate index rows a :func:`write` with ``index_after_commit`` left
    (``done.index``) and mark their outbox row done (``done.owed``), in the transaction of
    ``connection`` (the caller's own, after the file's commit; the caller commits).
    Raises the database's error (then the rows stay owed: a worker writes them)."""
    assert done.index is not None and done.owed is not None  # noqa: S101  # write() made them
    insert_new_rows(connection, *done.index)
    done_on(connection, done.owed)


def _attach(ids: list[int], images, uploads) -> tuple[int, list[str]]:
    """Attach the images the questions ``ids`` refer to (the ORM path's
    ``attach_packet_images``, on these few questions loaded): ``(attached, missing)``."""

    made: list[Question] = []
    for lo in range(0, len(ids), VALUES_PER_IN):  # a bounded IN (…) each
        part = ids[lo : lo + VALUES_PER_IN]
        made.extend(
            db.session.scalars(select(Question).where(Question.id.in_(part)).order_by(Question.id))
        )
    if images:
        assert uploads is not None  # images need the uploads folder
        attach_packet_images(made, images, uploads)
        db.session.flush()
    return sum(len(q.images) for q in made), missing_refs(made)


class _Authors:
    """``(name, city)`` → author id, as :func:`upsert_author` answers without an e-mail:
    the first row (smallest id) with that name and city and no e-mail, or the author it
    was merged into; a new row for a pair not found. Remembered for the whole file."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str | None], int] = {}

    def resolve(self, per_question: Iterable[list[tuple]]) -> dict[tuple[str, str | None], int]:
        wanted = {(a[0], a[1]) for authors in per_question for a in authors}
        todo = sorted(wanted - self.known.keys(), key=lambda p: (p[0], p[1] or ""))
        if todo:
            self._find(todo)
            self._make([p for p in todo if p not in self.known])
        return self.known

    def _find(self, pairs: list[tuple[str, str | None]]) -> None:
        pending = set(pairs)
        names = sorted({name for name, _ in pairs})
        for lo in range(0, len(names), VALUES_PER_IN):
            rows = db.session.execute(
                select(Author.id, Author.name, Author.city, Author.merged_into_id)
                .where(
                    Author.name.in_(names[lo : lo + VALUES_PER_IN]),
                    Author.email_hash.is_(None),
                )
                .order_by(Author.id)
            )
            for aid, name, city, merged in rows:
                if (name, city) in pending:
                    pending.discard((name, city))
                    self.known[name, city] = merged or aid

    def _make(self, pairs: list[tuple[str, str | None]]) -> None:
        if not pairs:
            return
        now = utcnow()
        rows = [
            {
                "name": name,
                "city": city,
                "link_version": 0,
                "created_at": now,
                **author_keys(name, city),
            }
            for name, city in pairs
        ]
        new = db.session.execute(
            insert(Author).returning(Author.id, sort_by_parameter_order=True), rows
        ).scalars()
        self.known.update(zip(pairs, new, strict=True))


_LINK_COLUMNS = ("question_id", "author_id", "position", "name", "city", "confirmed_at", "credit")
_HISTORY_COLUMNS = ("question_id", "from_status", "to_status", "at", "by_user_id", "reason")


class _Writer:
    """SQLite (and any other database): multi-row ``INSERT … RETURNING`` for the questions,
    Core ``executemany`` for the links and status records, the DB-API's for the full-text
    rows and the duplicate index."""

    def __init__(self, connection) -> None:
        self.connection = connection
        self.next_id: int | None = None
        if connection.dialect.name == "sqlite":
            # 256 MiB page cache for this connection: the index B-trees stay in memory
            connection.exec_driver_sql(f"PRAGMA cache_size = {SQLITE_CACHE_KIB}")

    def questions(self, batch: Batch) -> list[int]:
        """The file's first question alone (``INSERT … RETURNING id``); the rest with the
        ids that follow it, by ``executemany``: SQLite gives a new row the largest id + 1,
        and from that first insert on this transaction holds the database's write lock,
        so no one else takes those ids. (SQLAlchemy's ``RETURNING`` for many rows in order
        runs one statement per row on SQLite.)"""
        values = batch.values
        ids: list[int] = []
        if self.next_id is None:
            first = self.connection.execute(
                insert(Question).returning(Question.id), values[0]
            ).scalar_one()
            ids, values, self.next_id = [first], values[1:], first + 1
        if values:
            more = range(self.next_id, self.next_id + len(values))
            self.connection.execute(
                insert(Question), [{**v, "id": qid} for qid, v in zip(more, values, strict=True)]
            )
            ids.extend(more)
            self.next_id += len(values)
        return ids

    def links(self, rows: list[tuple]) -> None:
        if rows:
            self.connection.execute(
                insert(QuestionAuthor), [dict(zip(_LINK_COLUMNS, r, strict=True)) for r in rows]
            )

    def history(self, rows: list[tuple]) -> None:
        self.connection.execute(
            insert(QuestionStatusChange),
            [dict(zip(_HISTORY_COLUMNS, r, strict=True)) for r in rows],
        )

    def fulltext(self, ids: list[int], batch: Batch) -> None:
        if self.connection.dialect.name == "sqlite":
            self.connection.exec_driver_sql(
                "INSERT INTO question_fts (rowid, text, answer) VALUES (?, ?, ?)",
                [
                    (qid, v["text"] or "", v["answer"] or "")
                    for qid, v in zip(ids, batch.values, strict=True)
                ],
            )


class _PgWriter(_Writer):
    """PostgreSQL: the question ids from the table's sequence in one statement, then
    ``COPY … FROM STDIN`` for every table (the values bound as SQLAlchemy binds them:
    JSON, booleans, UTC times)."""

    def __init__(self, connection) -> None:
        super().__init__(connection)
        self.names = ["id", *[c.name for c, _ in _question_columns(connection.dialect)]]

    @contextmanager
    def _copy_into(self, table: str, columns: Sequence[str]) -> Iterator[Any]:
        """psycopg's ``Copy`` of ``COPY table (columns) FROM STDIN`` (text format)."""
        cursor = self.connection.connection.driver_connection.cursor()
        try:
            names = ", ".join(f'"{c}"' for c in columns)
            with cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:  # noqa: S608
                yield copy
        finally:
            cursor.close()

    def _copy(self, table: str, columns: Sequence[str], rows: Iterable[Sequence]) -> None:
        with self._copy_into(table, columns) as copy:
            for row in rows:
                copy.write_row(row)

    def questions(self, batch: Batch) -> list[int]:
        ids = sorted(
            self.connection.exec_driver_sql(
                "SELECT nextval(pg_get_serial_sequence('question', 'id'))"
                " FROM generate_series(1, %s)",
                (len(batch),),
            ).scalars()
        )
        lines = batch.lines
        if lines is None:  # prepared without the dialect
            lines = copy_lines(batch.values, self.connection.dialect)
        with self._copy_into("question", self.names) as copy:
            copy.write(b"".join(b"%d\t%b" % p for p in zip(ids, lines, strict=True)))
        return ids

    def links(self, rows: list[tuple]) -> None:
        self._copy("question_author", _LINK_COLUMNS, rows)

    def history(self, rows: list[tuple]) -> None:
        self._copy("question_status_change", _HISTORY_COLUMNS, rows)
