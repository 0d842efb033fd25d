"""Writing one submission (:func:`receive`): the authors, the question's rows, the repeated
idempotency key, one statement on PostgreSQL (:mod:`webapp.submissions.pg_intake`) or the
ORM elsewhere. Flushes only; the caller commits."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from pathlib import Path

from sqlalchemy import bindparam
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from webapp.core.crypto import encrypt, lookup_hash
from webapp.core.models import utcnow
from webapp.domain.text import matching_key
from webapp.extensions import db
from webapp.submissions.images import ImageError, adopt_kept_image, store_image
from webapp.submissions.models import (
    Author,
    Question,
    QuestionAuthor,
    author_keys,
    set_status,
)
from webapp.submissions.operations.validation import (
    CONSENT_VERSION,
    SubmissionError,
    SubmissionInput,
    validate,
)
from webapp.submissions.pg_intake import insert_received
from webapp.submissions.tasks import PRECHECK, RECEIVED
from webapp.tasks.outbox import enqueue, track


def upsert_author(name: str, city: str | None, email: str | None) -> int:
    """The id of the author with this normalised e-mail, or of a new one (with this name
    and city). Without an e-mail (paper letters, imports) a new author row is made per
    name+city.

    An existing author is never renamed (an address typed into a form proves
    nothing; the name and city as given go on the question's link, :class:`QuestionAuthor`).
    With an e-mail it is one statement, ``INSERT … ON CONFLICT (email_hash) DO UPDATE SET
    email_hash = excluded.email_hash RETURNING id`` (PostgreSQL and SQLite; the update sets
    the key to itself only so that an existing row's id is returned): two concurrent first
    submissions from one address make one author.

    A row without e-mail that an editor merged into another gives the
    surviving author's id: the next packet writing «Дмитрий Шахлов» links to the person.
    A row found by e-mail is returned as it is, merged or not (the game rule counts it as
    its person, ``Author.person_id``).
    """
    if email:
        insert = pg_insert if db.engine.dialect.name == "postgresql" else sqlite_insert
        stmt = insert(Author).values(
            name=name,
            city=city,
            **author_keys(name, city),
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
    :func:`webapp.submissions.pg_intake.insert_received`). ``columns``: further
    Question column values (``idempotency_key=…``). Raises TypeError on an unknown column.
    """
    known = {c.key for c in Question.__table__.c} - {"id"}
    if set(columns) - known:
        raise TypeError(f"not question columns: {sorted(set(columns) - known)}")
    values = dict.fromkeys(known)
    # a new question has no pre-check yet: its duplicate score is 0 (the queue's order)
    # and its reading time 0 (the queue's order by it)
    values.update(
        consent_on_air=False, age_confirmed=False, duplicate_score=0.0, reading_seconds=0.0
    )
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
    author's status link); ``created`` is False when an earlier submission is returned
    instead: one with the same idempotency key (a double click: to the viewer, the one
    question they sent), or, with ``resent`` True, the viewer's own question sent again
    under another key (:func:`_resend_of`: the form brought back and sent a second time,
    which the viewer should be told)."""

    id: int
    public_token: str
    created: bool = True
    resent: bool = False


def receive(data: SubmissionInput, uploads: Path | None = None) -> Received:
    """A viewer's submission (form, API, or an editor typing in a letter).

    Writes the new Question (status ``received``) with ``moderation.precheck`` and
    ``notify.received`` queued in the same transaction; the caller commits. A repeated
    ``idempotency_key`` (a double click) returns the question made the first time and
    writes nothing: the repeat is found by the key's unique index, and the session is
    rolled back (the submission must be the whole transaction when a key is given). So
    does a resend of the same viewer's form under another key (:func:`_resend_of`).
    On PostgreSQL the rows are written by one statement (:mod:`pg_intake`), elsewhere by
    the ORM (:func:`create_question`); the rows are the same. When that statement is the
    whole transaction (one author, with an e-mail, no image, and the session has not begun
    one), it runs in autocommit: it commits itself, atomically, two round trips sooner,
    and the caller's ``commit()`` then only relays its outbox rows.
    ``uploads``: folder for the handout image; the files stored for this submission (the
    handout image, ``data.letter_scan`` under ``uploads``) are removed again when it is
    refused, fails or is a repeat. A kept image (``data.handout_image_kept``) is copied
    among the uploads (the kept file itself stays: the caller removes it once committed).
    Raises SubmissionError.
    """
    if data.idempotency_key and (data.handout_image or data.handout_image_kept):
        # Look first, so that a double click does not store the image twice. Without an
        # image the unique key itself catches the repeat (one round trip less).
        existing = _by_idempotency_key(data.idempotency_key)
        if existing is not None:
            return Received(existing.id, existing.public_token, created=False)
    image = None
    try:
        clean = validate(data, require_email=data.channel in ("web", "api"))
        resent = _resend_of(clean, data.channel, data.idempotency_key)
        if resent is not None:  # the back button's resend: nothing is stored yet
            return resent
        if data.handout_image or data.handout_image_kept:
            try:
                assert uploads is not None  # a handout image needs the uploads folder
                if data.handout_image:
                    image = store_image(data.handout_image, uploads)
                else:
                    assert data.handout_image_kept is not None
                    image = adopt_kept_image(uploads, data.handout_image_kept)
            except ImageError as exc:
                raise SubmissionError({"handout_image": [str(exc)]}) from exc
        tasks = [PRECHECK] + ([RECEIVED] if clean["authors"][0][2] else [])
        columns = dict(
            consent_version=CONSENT_VERSION if data.consent else None,
            language=data.language,
            consent_on_air=data.consent_on_air,
            age_confirmed=data.age_confirmed,
            idempotency_key=data.idempotency_key,
            handout_image=image,
            postmark_date=data.postmark_date,
            letter_scan=data.letter_scan,
            live_game_id=data.live_game_id,
        )
        postgres = db.session.get_bind().dialect.name == "postgresql"
        made = (receive_pg if postgres else receive_orm)(clean, data.channel, tasks, columns)
    except BaseException:
        _discard_uploads(uploads, image, data.letter_scan)
        raise
    if not made.created:  # a double click: the first submission keeps its own files
        _discard_uploads(uploads, image, data.letter_scan)
    return made


#: Channels of the viewer's form (``/submit``, ``/live``), where a resend of the same form
#: is the question it sent (:func:`_resend_of`).
FORM_CHANNELS = ("web", "live")
#: How long after a question a resend of its form returns it (the form's own life: its
#: signed start time is read 24 hours).
RESEND_WINDOW = timedelta(hours=24)


@cache
def _resend_statements():
    """The two ``SELECT`` of :func:`_resend_of`, built once per process (every form
    submission runs them; building their joins and conditions anew cost more than running
    them): the viewer by address (``email_hash``: unique), then that viewer's first-author
    questions of the channel since ``since``, not withdrawn (``author_id``, ``channel``,
    ``since``), with what the form's fields are compared with.

    Two statements, so that the second always starts from the one viewer (their index on
    ``question_author.author_id``): in one statement a prepared, generic plan may start
    from the question's text instead (its hash index), and then many stored questions of
    the same text — a spammer's, a benchmark's — are read and joined for every
    submission."""
    author = db.select(Author.id).where(Author.email_hash == bindparam("email_hash"))
    questions = (
        db.select(
            Question.id,
            Question.public_token,
            Question.idempotency_key,
            Question.text,
            Question.answer,
            QuestionAuthor.name,
            QuestionAuthor.city,
        )
        .join(QuestionAuthor, QuestionAuthor.question_id == Question.id)
        .where(
            QuestionAuthor.author_id == bindparam("author_id"),
            QuestionAuthor.position == 0,
            Question.channel == bindparam("channel"),
            Question.status != "withdrawn",
            Question.created_at >= bindparam("since"),
        )
        .order_by(Question.id)
    )
    return author, questions


def _resend_of(clean: dict, channel: str, key: str | None = None) -> Received | None:
    """The question that this submission from the viewer's form sends again, else None.

    The back button after a question was sent can bring the form back with its text but a
    new idempotency key (a page fetched again keeps what was typed, not its hidden
    fields), so the key alone does not catch the resend. The same form is: the same
    channel (:data:`FORM_CHANNELS`), the same address, first author's name and city,
    question and answer (as cleaned), sent within :data:`RESEND_WINDOW` and not
    withdrawn. The question stored under ``key`` itself is a double click's, not a
    resend (``resent`` False). Read in the session's transaction if it has begun one, else on a
    connection of its own, so that the submission can still be the whole transaction (the
    autocommit path of PostgreSQL). A viewer's questions of a day are few (the per-address
    limit), so they are compared here."""
    name, city, email = clean["authors"][0][:3]
    if channel not in FORM_CHANNELS or not email:
        return None
    author, questions = _resend_statements()

    def read(conn) -> Received | None:
        author_id = conn.execute(author, {"email_hash": lookup_hash(email)}).scalar()
        if author_id is None:  # a viewer's first question: nothing to send again
            return None
        params = {"author_id": author_id, "channel": channel, "since": utcnow() - RESEND_WINDOW}
        for row in conn.execute(questions, params):
            if (row.text, row.answer, row.name, row.city) == (
                clean["question"],
                clean["answer"],
                name,
                city,
            ):
                resent = key is None or row.idempotency_key != key
                return Received(row.id, row.public_token, created=False, resent=resent)
        return None

    if db.session().get_transaction() is not None:
        return read(db.session)
    with db.engine.connect() as conn:
        return read(conn)


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


def receive_pg(clean: dict, channel: str, tasks: list[str], columns: dict) -> Received:
    """Store a received question on PostgreSQL: one statement (one more per author without
    e-mail or co-author). Gives what :func:`receive_orm` gives for the same input."""
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


def receive_orm(clean: dict, channel: str, tasks: list[str], columns: dict) -> Received:
    """Store a received question through the ORM's unit of work (SQLite), the reference
    :func:`receive_pg` must agree with."""
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
