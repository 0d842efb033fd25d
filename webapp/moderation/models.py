"""Pre-check reports (``moderation.precheck``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from webapp.core.models import UTCDateTime, utcnow
from webapp.extensions import Model

# 2: LSH index, similarity = max(token_sort_ratio, ratio)
# 3: content checks (webapp.moderation.checks): language, obscene_words, author_in_text,
#    handout_missing; flags carry the language as lang_ru / lang_be / lang_other
# 4: the editors' aids (webapp.moderation.aids): answer_leak, reading_time, names_to_stress
# 5: the language read by webapp.domain.languages.text_language (also the table fill's),
#    from the text, answer and handout
PRECHECK_VERSION = 5


class ModerationReport(Model):
    """The result of one pre-check run of one version of the checks.

    ``checks``: ``[{"name": str, "ok": bool, "message": str}]``;
    ``duplicates``: ``[{"question_id": int, "score": float 0..100, "status": str}]`` best first.
    Unique per (question, version): running the task twice stores one report.
    """

    __tablename__ = "moderation_report"
    __table_args__ = (UniqueConstraint("question_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer, default=PRECHECK_VERSION)
    checks: Mapped[list] = mapped_column(JSON, default=list)
    duplicates: Mapped[list] = mapped_column(JSON, default=list)
    # Denormalised for the queue filters: failed check names as " name1 name2 " and the
    # best duplicate score (0..100, 0 without candidates).
    flags: Mapped[str] = mapped_column(String(500), default=" ")
    top_score: Mapped[float] = mapped_column(Float, default=0.0, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DuplicateBucket(Model):
    """One LSH bucket of one question: the shared, persisted duplicate index.

    ``bucket``: signed 64-bit hash of (index version, band number, the band's MinHash
    values), or of a leading window of its words, of the question's matching key
    (``webapp.moderation.duplicates``); a question has at most ``BANDS`` band rows plus
    one row per leading window. Two questions sharing a bucket are duplicate candidates.
    Rows are written in the question's own transaction by a flush hook, or, for a viewer's
    new question, by its pre-check task (``duplicates.ensure_indexed``), so every web
    process and worker sees the same index and a restart rebuilds nothing.

    The migrated table has no foreign key on either database (the key looked up and
    locked the question of every row written: migrations ``0029_duplicate_bucket_sqlite``
    and ``0048_duplicate_bucket_trigger``); the trigger ``duplicate_bucket_question_deleted``
    on ``question`` deletes a deleted question's rows instead (on SQLite, where the table
    is also ``WITHOUT ROWID``, per row; on PostgreSQL once per statement). The
    ``ForeignKey`` below is kept for a schema made by ``create_all`` (no migrations, no
    trigger), where the cascade does that job.
    """

    __tablename__ = "duplicate_bucket"

    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class QuestionClaim(Model):
    """An editor working on a question: one claim per question (primary key), valid until
    ``expires_at`` (UTC); an expired claim may be taken by anyone."""

    __tablename__ = "question_claim"

    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class ModerationAudit(Model):
    """Who saw what they normally may not: a chief editor revealing a question's authors
    (name, city, e-mail) in blind moderation, or correcting one; the second editor's
    sign-off of a question's sources; a chief editor downloading a paper letter's scan (it
    shows the author's name and address); an editor marking an answer leak as intended
    (:class:`LeakMark`). ``action``: ``"reveal_authors"``, ``"correct_author"``,
    ``"sign_off"``, ``"letter_scan"`` or ``"leak_intended"``."""

    __tablename__ = "moderation_audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    action: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QuestionRevision(Model):
    """One edit of a question by an editor: who, when, and the edited fields before and
    after (``{"field": "text"}``, only the fields that changed). The diff is computed when
    shown. Fields: question, answer, accepted, rejected, comment, sources (one per line),
    handout."""

    __tablename__ = "question_revision"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    before: Mapped[dict] = mapped_column(JSON, default=dict)
    after: Mapped[dict] = mapped_column(JSON, default=dict)


class QuestionComment(Model):
    """An editors' note on a question (never shown to the author)."""

    __tablename__ = "question_comment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    text: Mapped[str] = mapped_column(Text)


class LeakMark(Model):
    """An editor's «так задумано» on one answer word the pre-check found in the question
    (``answer_leak``): the hit stays listed, marked intended, and no longer fails the
    check. ``word``: the answer's word, folded (``webapp.moderation.aids.word_key``). One
    per (question, word); each mark is also a ``leak_intended`` :class:`ModerationAudit`
    row."""

    __tablename__ = "leak_mark"
    __table_args__ = (UniqueConstraint("question_id", "word"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    word: Mapped[str] = mapped_column(String(100))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class StressEntry(Model):
    """The shared stress dictionary, grown from the editors' marks: a word as an editor
    stressed it (``marked``: «Му́ррен») under its folded form (``key``: «муррен»,
    ``webapp.moderation.aids.word_key``). The pre-check's ``names_to_stress`` offers it for
    the same word, and for its forms that start with it (``Муррена``), in later
    questions. The latest mark of a word wins."""

    __tablename__ = "stress_entry"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(100), unique=True)
    marked: Mapped[str] = mapped_column(String(120))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QuestionSignoff(Model):
    """The second editor's «источники проверены» on an approved question: required before
    the question can enter an envelope. One per question; the signer is not the
    editor who approved it. Dropped when the question leaves ``approved`` by a new
    decision or an edit."""

    __tablename__ = "question_signoff"

    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


#: The states of an export job (:class:`ExportJob`): queued, being written, the file is
#: there, the task failed, the file was deleted after ``expires_at``.
EXPORT_STATUSES = ("pending", "running", "ready", "failed", "expired")


class ExportJob(Model):
    """An export of the queue too large to stream in a request (more than
    ``SOVA_EXPORT_INLINE_ROWS`` rows), written by the worker (``moderation.export_queue``).
    The database, not the broker, knows its state: ``status`` (:data:`EXPORT_STATUSES`),
    ``done`` of ``total`` rows written so far (the progress bar), the error of a failed run.
    ``filters``: the queue's query arguments when it was asked for (the same filters and
    order as the screen). The file is ``<instance>/exports/<token>.<fmt>``: the name is
    generated (``token``: 32 hex digits), never the user's; ``download_name`` is what the
    browser saves it as. Only ``user_id`` (the editor who asked) and chief editors may
    download it; it is deleted after ``expires_at`` (beat ``moderation.purge_exports``)."""

    __tablename__ = "export_job"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    fmt: Mapped[str] = mapped_column(String(8))
    filters: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    done: Mapped[int] = mapped_column(Integer, default=0)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    download_name: Mapped[str] = mapped_column(String(255))
    error: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True, index=True)
