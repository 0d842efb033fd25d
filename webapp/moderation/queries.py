"""Reads for editors: the queue (filters, search, sorting, pages) and one question."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from sqlalchemy import Row, and_, func, select, text

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
from webapp.submissions.models import Question, QuestionAuthor

PAGE_SIZE = 50
SORTS = {
    "oldest": (Question.created_at, Question.id),
    "newest": (Question.created_at.desc(), Question.id.desc()),
    "duplicate": (
        func.coalesce(ModerationReport.top_score, 0).desc(),
        Question.created_at,
        Question.id,
    ),
    "id": (Question.id,),
}


@dataclass(frozen=True)
class QueueFilter:
    """What the editor asked for. ``status`` None: every status except ``archived``;
    ``flag``: a failed pre-check name (``"sources_present"``); ``min_score``: best
    duplicate score 0..100; ``older_than_days`` / ``newer_than_days``: age in whole days;
    ``search``: full-text words (all must occur; FTS5 on SQLite, ``russian`` on
    PostgreSQL); ``origin``: the file name of an imported packet (its questions' origin is
    «name#number»); ``sort``: a key of :data:`SORTS`."""

    status: str | None = "in_review"
    channel: str | None = None
    city: str | None = None
    flag: str | None = None
    min_score: float | None = None
    older_than_days: int | None = None
    newer_than_days: int | None = None
    search: str | None = None
    origin: str | None = None
    sort: str = "oldest"


def _spellings(city: str) -> list[str]:
    """The usual spellings of a typed city (SQLite's lower() folds ASCII only, so the
    comparison is done on spellings): as typed, lower case, capitalised, title case."""
    c = " ".join(city.split())
    return sorted({c, c.lower(), c.capitalize(), c.title()})


def _fts_match(words: str) -> str:
    """An FTS5 MATCH expression: every word quoted (no operator syntax from users)."""
    return " ".join('"' + w.replace('"', '""') + '"' for w in words.split())


def fulltext(stmt, words: str):
    """``stmt`` (a select that reads ``Question``) narrowed to the questions whose text or
    answer hold every word of ``words``: the ``russian`` text search configuration on
    PostgreSQL (word forms: «годом» finds «год»), FTS5 on SQLite (whole words as typed).
    The editors' queue and the public archive search the same way."""
    if not words.split():
        return stmt
    if db.session.get_bind().dialect.name == "postgresql":
        doc = func.to_tsvector(
            text("'russian'"),
            func.coalesce(Question.text, "") + " " + func.coalesce(Question.answer, ""),
        )
        return stmt.where(doc.op("@@")(func.plainto_tsquery(text("'russian'"), words)))
    ids = text("SELECT rowid FROM question_fts WHERE question_fts MATCH :fts").bindparams(
        fts=_fts_match(words)
    )
    return stmt.where(Question.id.in_(ids))


def queue_statement(f: QueueFilter):
    """The SELECT of (Question, ModerationReport | None) for a filter, sorted."""
    stmt = select(Question, ModerationReport).outerjoin(
        ModerationReport,
        and_(
            ModerationReport.question_id == Question.id,
            ModerationReport.version == PRECHECK_VERSION,
        ),
    )
    if f.status:
        stmt = stmt.where(Question.status == f.status)
    else:
        stmt = stmt.where(Question.status != "archived")
    if f.channel:
        stmt = stmt.where(Question.channel == f.channel)
    if f.city:
        stmt = stmt.where(
            Question.id.in_(
                select(QuestionAuthor.question_id).where(
                    QuestionAuthor.city.in_(_spellings(f.city))
                )
            )
        )
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
    return stmt.order_by(*SORTS.get(f.sort, SORTS["oldest"]))


def queue(
    status: str | None = "in_review",
    channel: str | None = None,
    page: int = 1,
    per_page: int = PAGE_SIZE,
    filters: QueueFilter | None = None,
) -> tuple[list[Question], int]:
    """Questions for editors (oldest first by default). Returns (items, pages); ``page``
    is clamped to 1..pages. ``filters`` overrides ``status``/``channel``."""
    f = filters or QueueFilter(status=status, channel=channel)
    stmt = queue_statement(f)
    total = db.session.scalar(select(func.count()).select_from(stmt.subquery()))
    pages = max(1, -(-(total or 0) // per_page))
    page = min(max(1, page), pages)
    rows = db.session.execute(stmt.offset((page - 1) * per_page).limit(per_page)).all()
    return [r[0] for r in rows], pages


def queue_items(f: QueueFilter) -> list[Question]:
    """Every question of the queue for ``f``, in its order, no pages (the exports): the
    same statement as :func:`queue`, so an export lists what the screen lists."""
    return list(db.session.scalars(queue_statement(f)))


#: The columns an export prints (``webapp.moderation.export.queue_rows``): no author data
#: (blind moderation), no relationship (status history, authors, images) loaded.
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
    Question.sources,
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


def export_reports(ids: Sequence[int]) -> dict[int, Row]:
    """The newest report per question id, as :func:`reports_for` gives it, but only its
    ``checks`` and ``duplicates`` (rows, not ORM objects: what an export prints), one
    query."""
    if not ids:
        return {}
    rows = db.session.execute(
        select(ModerationReport.question_id, ModerationReport.checks, ModerationReport.duplicates)
        .where(ModerationReport.question_id.in_(ids))
        .order_by(ModerationReport.version)
    )
    return {r.question_id: r for r in rows}


def neighbours(question: Question, f: QueueFilter | None = None) -> tuple[int | None, int | None]:
    """The previous and next question ids around ``question`` in the queue order of ``f``
    (the default queue: in review, oldest first)."""
    f = f or QueueFilter()
    ids = list(db.session.scalars(queue_statement(f).with_only_columns(Question.id)))
    if question.id not in ids:
        return None, (ids[0] if ids else None)
    i = ids.index(question.id)
    return (ids[i - 1] if i else None), (ids[i + 1] if i + 1 < len(ids) else None)


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
