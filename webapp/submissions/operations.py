"""Writes for intake: a viewer's submission, an import. Operations flush; callers commit.

One submission is one transaction: the Question, its Authors (one per normalised e-mail),
the status record and two outbox messages (``moderation.precheck``, ``notify.received``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from email_validator import EmailNotValidError, validate_email
from flask_babel import gettext as _
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from webapp.core.crypto import encrypt, lookup_hash
from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.domain.text import has_control_chars, matching_key, normalise
from webapp.extensions import db
from webapp.jobs import enqueue, track
from webapp.submissions.images import ImageError, store_image
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    QuestionStatusChange,
    set_status,
)
from webapp.submissions.pg_intake import insert_received

# Field limits in characters (after normalisation). The form, the API and imports share them.
LIMITS = {
    "question": 3000,
    "answer": 500,
    "accepted": 1000,
    "rejected": 1000,
    "comment": 3000,
    "sources": 3000,
    "handout": 2000,
    "name": 200,
    "city": 200,
}
MIN_QUESTION = 20
CONSENT_VERSION = "2023-1"


class SubmissionError(OperationError, ValueError):
    """Invalid submission. ``errors``: ``{field: [message, …]}`` (messages in Russian,
    shown to the viewer; the same dict is the API's 422 body)."""

    status = 422

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(
            "; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()), errors=errors
        )
        self.errors = errors


@dataclass
class AuthorInput:
    name: str
    city: str | None = None
    email: str | None = None


@dataclass
class SubmissionInput:
    """What a viewer (or an editor for a paper letter) sends. Text fields are raw."""

    question: str
    answer: str
    authors: list[AuthorInput]
    email: str | None = None
    consent: bool = False
    accepted: str | None = None
    rejected: str | None = None
    comment: str | None = None
    sources: list[str] = field(default_factory=list)
    handout: str | None = None
    language: str | None = None
    channel: str = "web"
    consent_on_air: bool = False
    age_confirmed: bool = False
    idempotency_key: str | None = None
    handout_image: bytes | None = None  # raw upload; verified and re-encoded
    postmark_date: date | None = None  # paper letters (channel "mail")
    letter_scan: str | None = None  # the stored scan of a paper letter, under uploads/


def clean_text(
    value: str | None, name: str, errors: dict, required: bool = False, limit_key: str | None = None
) -> str | None:
    """Normalise one text field (NFC, format characters removed); record errors for
    control characters, emptiness and length. Returns the clean text or None."""
    text = normalise(value or "").strip()
    if has_control_chars(text):
        errors.setdefault(name, []).append(_("Поле содержит недопустимые управляющие символы."))
    if required and not text:
        errors.setdefault(name, []).append(_("Заполните это поле."))
    limit = LIMITS.get(limit_key or name)
    if limit and len(text) > limit:
        errors.setdefault(name, []).append(
            _(
                "Слишком длинно: %(n)s символов, допускается не более %(limit)s.",
                n=len(text),
                limit=limit,
            )
        )
    return text or None


def normalise_email(value: str | None, name: str, errors: dict, required: bool) -> str | None:
    """Validate and normalise an e-mail with email-validator (no DNS look-up)."""
    value = (value or "").strip()
    if not value:
        if required:
            errors.setdefault(name, []).append(_("Укажите адрес электронной почты."))
        return None
    try:
        info = validate_email(value, check_deliverability=False)
    except EmailNotValidError:
        errors.setdefault(name, []).append(_("Неверный адрес электронной почты."))
        return None
    return info.normalized.lower()


def upsert_author(name: str, city: str | None, email: str | None) -> int:
    """The id of the author with this normalised e-mail, or of a new one (with this name
    and city). Without an e-mail (paper letters, imports) a new author row is made per
    name+city.

    An existing author is never renamed (issue 13: an address typed into a form proves
    nothing; the name and city as given go on the question's link, :class:`QuestionAuthor`).
    With an e-mail it is one statement, ``INSERT … ON CONFLICT (email_hash) DO UPDATE SET
    email_hash = excluded.email_hash RETURNING id`` (PostgreSQL and SQLite; the update sets
    the key to itself only so that an existing row's id is returned): two concurrent first
    submissions from one address make one author.

    A row without e-mail that an editor merged into another (issue 17.3) gives the
    surviving author's id: the next packet writing «Дмитрий Шахлов» links to the person.
    A row found by e-mail is returned as it is, merged or not (the game rule counts it as
    its person, ``Author.person_id``).
    """
    if email:
        insert = pg_insert if db.engine.dialect.name == "postgresql" else sqlite_insert
        stmt = insert(Author).values(
            name=name,
            city=city,
            email_hash=lookup_hash(email),
            email_encrypted=encrypt(email),
            link_version=0,
            created_at=utcnow(),
        )
        upsert = stmt.on_conflict_do_update(
            index_elements=[Author.email_hash],
            set_={"email_hash": stmt.excluded.email_hash},
        ).returning(Author.id)
        return db.session.execute(
            upsert, execution_options={"synchronize_session": False}
        ).scalar_one()
    author = db.session.scalar(
        db.select(Author).filter_by(name=name, city=city, email_hash=None).order_by(Author.id)
    )
    if author is not None and author.merged_into_id is not None:
        return author.merged_into_id  # an editor merged this spelling into its person
    if author is None:
        author = Author(name=name, city=city)
        db.session.add(author)
        db.session.flush()
    return author.id


def validate(data: SubmissionInput, require_email: bool = True) -> dict:
    """Check and clean a submission. Returns the clean fields; raises SubmissionError."""
    errors: dict[str, list[str]] = {}
    clean: dict[str, Any] = {
        name: clean_text(getattr(data, name), name, errors, required=name in ("question", "answer"))
        for name in ("question", "answer", "accepted", "rejected", "comment", "handout")
    }
    if clean["question"] and len(clean["question"]) < MIN_QUESTION:
        errors.setdefault("question", []).append(
            _("Слишком коротко: вопрос должен быть не короче %(n)s символов.", n=MIN_QUESTION)
        )
    sources = [s for s in (clean_text(x, "sources", errors) for x in data.sources or []) if s]
    if sum(len(s) for s in sources) > LIMITS["sources"]:
        errors.setdefault("sources", []).append(
            _("Источники слишком длинные: не более %(n)s символов.", n=LIMITS["sources"])
        )
    clean["sources"] = sources
    email = normalise_email(data.email, "email", errors, required=require_email)
    authors: list[tuple[str | None, str | None, str | None]] = []
    if not data.authors:
        errors.setdefault("name", []).append(_("Укажите имя автора."))
    for i, a in enumerate(data.authors):
        prefix = "" if i == 0 else f"authors.{i}."
        aname = clean_text(a.name, f"{prefix}name", errors, required=True, limit_key="name")
        city = clean_text(a.city, f"{prefix}city", errors, limit_key="city")
        aemail = email if i == 0 else normalise_email(a.email, f"{prefix}email", errors, False)
        if (aname, city, aemail) in authors or (aemail and aemail in {e for *_, e in authors}):
            # one author twice would be two links of one question to one author row
            errors.setdefault(f"{prefix}name", []).append(
                _("Этот автор уже указан в вопросе (то же имя и город или тот же адрес).")
            )
        authors.append((aname, city, aemail))
    if require_email and not data.age_confirmed and data.channel == "web":
        errors.setdefault("age_confirmed", []).append(
            _("Подтвердите, что вам исполнилось 16 лет или у вас есть согласие родителей.")
        )
    if data.idempotency_key is not None and not (8 <= len(data.idempotency_key) <= 64):
        errors.setdefault("idempotency_key", []).append("8..64 characters")
    if require_email and not data.consent:
        errors.setdefault("consent", []).append(
            _("Без согласия на обработку персональных данных мы не можем принять вопрос.")
        )
    if errors:
        raise SubmissionError(errors)
    clean["authors"] = authors
    return clean


def question_values(
    clean: dict,
    channel: str,
    status: str = "received",
    origin: str | None = None,
    consent_version: str | None = None,
    language: str | None = None,
    **columns,
) -> dict:
    """Every column of a new Question (but ``id``) from validated fields: the one column
    list of both intake paths (the ORM's :func:`create_question` and PostgreSQL's
    :func:`webapp.submissions.pg_intake.insert_received`, issue 15). ``columns``: further
    Question column values (``idempotency_key=…``). Raises TypeError on an unknown column.
    """
    known = {c.key for c in Question.__table__.c} - {"id"}
    if set(columns) - known:
        raise TypeError(f"not question columns: {sorted(set(columns) - known)}")
    values = dict.fromkeys(known)
    values.update(consent_on_air=False, age_confirmed=False)
    values.update(columns)
    values.update(
        public_token=secrets.token_urlsafe(24),  # 192 bits
        text=clean["question"],
        answer=clean["answer"],
        accepted=clean.get("accepted"),
        rejected=clean.get("rejected"),
        comment=clean.get("comment"),
        sources=clean.get("sources") or [],
        handout=clean.get("handout"),
        channel=channel,
        status=status,
        matching_key=matching_key(clean["question"]),
        origin=origin,
        consent_version=consent_version,
        language=language,
        created_at=utcnow(),
        author_line=clean.get("author_line"),
    )
    return values


def create_question(
    clean: dict,
    channel: str,
    status: str = "received",
    origin: str | None = None,
    consent_version: str | None = None,
    language: str | None = None,
    **columns,
) -> Question:
    """Insert a Question from validated fields with its authors and first status record.

    ``clean["authors"]``: ``[(name, city, email), …]`` or, from an import, ``(name, city,
    email, credit)`` (a credited co-author's phrase as written, or None);
    ``clean["author_line"]`` (optional): the author line as written. ``columns``: further
    Question column values (``idempotency_key=…``), set before the one INSERT. Each author
    link keeps the name and city as given, unconfirmed. Flushes (the caller needs ``id``);
    the caller commits.
    """
    values = question_values(clean, channel, status, origin, consent_version, language, **columns)
    values["status"] = None  # set_status records the first status
    q = Question(**values)
    for pos, (name, city, email, *credit) in enumerate(clean["authors"]):
        q.authors.append(
            QuestionAuthor(
                author_id=upsert_author(name, city, email),
                position=pos,
                name=name,
                city=city,
                credit=credit[0] if credit else None,
            )
        )
    set_status(q, status)
    db.session.add(q)
    db.session.flush()
    return q


@dataclass(frozen=True)
class Received:
    """What :func:`receive` returns: the question's ``id`` and ``public_token`` (the
    author's status link); ``created`` is False when an earlier submission with the same
    idempotency key is returned instead."""

    id: int
    public_token: str
    created: bool = True


def receive(data: SubmissionInput, uploads: Path | None = None) -> Received:
    """A viewer's submission (form, API, or an editor typing in a letter).

    Writes the new Question (status ``received``) with ``moderation.precheck`` and
    ``notify.received`` queued in the same transaction; the caller commits. A repeated
    ``idempotency_key`` (a double click) returns the question made the first time and
    writes nothing: the repeat is found by the key's unique index, and the session is
    rolled back (the submission must be the whole transaction when a key is given).
    On PostgreSQL the rows are written by one statement (:mod:`pg_intake`), elsewhere by
    the ORM (:func:`create_question`); the rows are the same. When that statement is the
    whole transaction (one author, with an e-mail, no image, and the session has not begun
    one), it runs in autocommit: it commits itself, atomically, two round trips sooner,
    and the caller's ``commit()`` then only relays its outbox rows.
    ``uploads``: folder for the handout image; the files stored for this submission (the
    handout image, ``data.letter_scan`` under ``uploads``) are removed again when it is
    refused, fails or is a repeat. Raises SubmissionError.
    """
    if data.idempotency_key and data.handout_image:
        # Look first, so that a double click does not store the image twice. Without an
        # image the unique key itself catches the repeat (one round trip less).
        existing = _by_idempotency_key(data.idempotency_key)
        if existing is not None:
            return Received(existing.id, existing.public_token, created=False)
    image = None
    try:
        clean = validate(data, require_email=data.channel in ("web", "api"))
        if data.handout_image:
            try:
                assert uploads is not None  # a handout image needs the uploads folder
                image = store_image(data.handout_image, uploads)
            except ImageError as exc:
                raise SubmissionError({"handout_image": [str(exc)]}) from exc
        tasks = ["moderation.precheck"] + (["notify.received"] if clean["authors"][0][2] else [])
        columns = dict(
            consent_version=CONSENT_VERSION if data.consent else None,
            language=data.language,
            consent_on_air=data.consent_on_air,
            age_confirmed=data.age_confirmed,
            idempotency_key=data.idempotency_key,
            handout_image=image,
            postmark_date=data.postmark_date,
            letter_scan=data.letter_scan,
        )
        postgres = db.session.get_bind().dialect.name == "postgresql"
        made = (_receive_pg if postgres else _receive_orm)(clean, data.channel, tasks, columns)
    except BaseException:
        _discard_uploads(uploads, image, data.letter_scan)
        raise
    if not made.created:  # a double click: the first submission keeps its own files
        _discard_uploads(uploads, image, data.letter_scan)
    return made


def _discard_uploads(uploads: Path | None, *names: str | None) -> None:
    """Remove the files (paths under ``uploads``: a handout image, a letter scan) stored
    for a submission that was refused, failed or was a repeat."""
    for name in names:
        if uploads is not None and name:
            (uploads / name).unlink(missing_ok=True)


def _earlier(key: str | None) -> Received | None:
    """After a repeated idempotency key: the key was committed by the first click (or was
    being committed: the INSERT waited for it). This transaction is only this submission:
    drop it whole and return the first one (None if there is none after all)."""
    db.session.rollback()
    existing = _by_idempotency_key(key) if key else None
    return Received(existing.id, existing.public_token, created=False) if existing else None


def _receive_pg(clean: dict, channel: str, tasks: list[str], columns: dict) -> Received:
    """One statement (one more per author without e-mail or co-author)."""
    first = clean["authors"][0]
    first_id = None if first[2] else upsert_author(*first)
    more = [upsert_author(*a) for a in clean["authors"][1:]]
    # Autocommit only without an image: a statement whose commit was acknowledged but whose
    # answer was lost would otherwise have its image deleted by receive()'s clean-up.
    alone = (
        first_id is None
        and not more
        and columns["handout_image"] is None
        and db.session().get_transaction() is None
    )
    new = insert_received(
        question_values(clean, channel, **columns),
        clean["authors"],
        tasks=tasks,
        more_author_ids=more,
        first_author_id=first_id,
        own_transaction=alone,
    )
    if new is None:  # ON CONFLICT (idempotency_key) DO NOTHING: the key is stored
        earlier = _earlier(columns["idempotency_key"])
        if earlier is None:
            raise RuntimeError("no question stored, and none with its idempotency key")
        return earlier
    track(new.outbox_ids)
    return Received(new.id, new.public_token)


def _receive_orm(clean: dict, channel: str, tasks: list[str], columns: dict) -> Received:
    """The ORM unit of work (SQLite)."""
    try:
        q = create_question(clean, channel=channel, **columns)
    except IntegrityError:
        earlier = _earlier(columns["idempotency_key"])
        if earlier is None:
            raise
        return earlier
    for task in tasks:
        enqueue(task, q.id)
    return Received(q.id, q.public_token)


def _by_idempotency_key(key: str) -> Question | None:
    return db.session.scalar(db.select(Question).filter_by(idempotency_key=key))


WITHDRAWABLE = ("received", "prechecked", "in_review", "approved")


def withdraw(question: Question, author_id: int) -> Question:
    """The author withdraws a question not yet in a game (only by a confirmed link: an
    address typed into the form proves nothing, issue 13). Raises SubmissionError."""
    if author_id not in {qa.author_id for qa in question.authors if qa.confirmed_at}:
        raise SubmissionError({"question": [_("Это не ваш вопрос.")]})
    if question.status == "withdrawn":
        raise SubmissionError({"question": [_("Вопрос уже отозван.")]})
    if question.status not in WITHDRAWABLE:
        raise SubmissionError({"question": [_("Вопрос уже в игре и не может быть отозван.")]})
    set_status(question, "withdrawn", reason="отозван автором")
    db.session.flush()
    return question


def confirm_authorship(
    question: Question, author_id: int | None, by_user_id: int | None = None
) -> bool:
    """Confirm that ``question`` is by author ``author_id`` (the person behind the
    address): by the e-mailed link (``by_user_id`` None) or by an editor. From then on the
    question shows in that author's «Мои вопросы». Idempotent (the first confirmation time
    stays). Returns False when the author is not on the question. Flushes only."""
    for qa in question.authors:
        if qa.author_id == author_id:
            if qa.confirmed_at is None:
                qa.confirmed_at = utcnow()
                set_note = "автор подтверждён редактором" if by_user_id else None
                if set_note:
                    question.history.append(
                        QuestionStatusChange(
                            from_status=question.status,
                            to_status=question.status,
                            by_user_id=by_user_id,
                            reason=set_note,
                            at=utcnow(),
                        )
                    )
                db.session.flush()
            return True
    return False


def author_by_email(email: str) -> Author | None:
    """The author with this (normalised) e-mail, or None."""
    errors: dict = {}
    normal = normalise_email(email, "email", errors, required=True)
    if not normal:
        return None
    return db.session.scalar(db.select(Author).filter_by(email_hash=lookup_hash(normal)))


def import_authors(authors) -> list[tuple[str, str | None, None, str | None]]:
    """The parsed authors of a packet question (:class:`webapp.domain.packets.AuthorRef`)
    as ``(name, city, None, credit)`` rows for :func:`create_question`: a credited
    co-author's genitive name in the nominative (:mod:`webapp.submissions.names`), names
    and cities cut to the form's limits, and one person named twice on a line (same name
    and city) kept once, at the first place."""
    from webapp.submissions.names import nominative_authors

    rows: list[tuple[str, str | None, None, str | None]] = []
    seen = set()
    for a in nominative_authors(authors):
        name, city = a.name[: LIMITS["name"]], (a.city or "")[: LIMITS["city"]] or None
        if (name, city) not in seen:
            seen.add((name, city))
            rows.append((name, city, None, a.credit))
    return rows


def import_packet(
    packet,
    as_: str,
    channel: str | None = None,
    origin: str = "",
    progress=None,
    images: dict[str, bytes] | None = None,
    uploads: Path | None = None,
) -> list[Question]:
    """Store a parsed packet (:class:`webapp.domain.packets.Packet`).

    ``images`` (``{file name: bytes}``, :func:`webapp.submissions.packet_images.read_bundle`)
    are the packet's image files: each one a question refers to is stored under ``uploads``
    and attached (:func:`~webapp.submissions.packet_images.attach_packet_images`; raises
    its ``BundleError`` for a bad image, nothing stored then). A reference without a file
    stays missing: its question fails the pre-check (``images_missing``).

    Each question keeps its author line as written (``author_line``) beside the parsed
    authors (:func:`import_authors`; issue 20).
    ``as_``: ``"archive"`` (status ``archived``, duplicate detection only) or
    ``"submissions"`` (status ``received``, pre-check queued, channel ``import`` or the
    given one, e.g. ``mail``). ``progress``: optional callable(n) after each question.
    Returns the new questions; the caller commits once per file (``contracts/api.md``).
    """
    if as_ not in ("archive", "submissions"):
        raise ValueError("as_ must be 'archive' or 'submissions'")
    status = "archived" if as_ == "archive" else "received"
    channel = channel or ("archive" if as_ == "archive" else "import")
    made = []
    for pq in packet.questions:
        clean = {
            "question": normalise(pq.question).strip(),
            "answer": normalise(pq.answer).strip(),
            "accepted": normalise(pq.accepted).strip() if pq.accepted else None,
            "rejected": normalise(pq.rejected).strip() if pq.rejected else None,
            "comment": normalise(pq.comment).strip() if pq.comment else None,
            "handout": normalise(pq.handout).strip() if pq.handout else None,
            "sources": [normalise(s).strip() for s in pq.sources],
            "authors": import_authors(pq.authors),
            "author_line": pq.author_text,
        }
        q = create_question(
            clean, channel=channel, status=status, origin=f"{origin}#{pq.number}"[:300]
        )
        if as_ == "submissions":
            enqueue("moderation.precheck", q.id)
        made.append(q)
        if progress:
            progress(1)
    if images:
        from webapp.submissions.packet_images import attach_packet_images

        assert uploads is not None  # images need the uploads folder
        attach_packet_images(made, images, uploads)
        db.session.flush()
    return made
