"""PostgreSQL: a viewer's new question written in one statement (issue 3, the load target).

The ORM writes a submission as five statements (author upsert, question, author link,
status record, outbox rows), each a round trip with the unit of work's bookkeeping around
it. Here the same rows are written by one data-modifying ``WITH`` statement: PostgreSQL
runs the inserts together and returns the new question's id and its outbox ids. The rows
are the ones :func:`webapp.submissions.operations.create_question` + ``set_status`` +
``enqueue`` write; ``tests/webapp/submissions/test_pg_intake.py`` compares both paths
column by column. SQLite (the embedded default) keeps the ORM path: it has no
data-modifying ``WITH`` and its full-text table is kept in step by the ORM flush hook.

A repeated idempotency key inserts nothing (``ON CONFLICT (idempotency_key) DO NOTHING``,
which also waits for a first click still being committed) and the statement returns no row.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date

from sqlalchemy import JSON, Boolean, Date, Integer, String, Text, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY

from webapp.core.crypto import encrypt, lookup_hash
from webapp.core.models import UTCDateTime, utcnow
from webapp.core.request_id import current_request_id
from webapp.domain.question_states import check_transition
from webapp.domain.text import matching_key
from webapp.extensions import db

INTAKE_STATUS = "received"

_QUESTION = """
q AS (
  INSERT INTO question (public_token, text, answer, accepted, rejected, comment, sources,
    handout, channel, status, matching_key, language, consent_version, consent_on_air,
    age_confirmed, handout_image, idempotency_key, postmark_date, letter_scan, created_at)
  VALUES (:public_token, :text, :answer, :accepted, :rejected, :comment, :sources,
    :handout, :channel, :status, :matching_key, :language, :consent_version, :consent_on_air,
    :age_confirmed, :handout_image, :idempotency_key, :postmark_date, :letter_scan, :at)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id),"""
# The author upsert reads q, so it runs only when the question was inserted: a repeated
# idempotency key (q empty) writes no author either, even in autocommit.
_FIRST_AUTHOR_UPSERT = """
a AS (
  INSERT INTO author (name, city, email_hash, email_encrypted, link_version, created_at)
  SELECT :a_name, :a_city, :a_email_hash, :a_email_encrypted, 0, :at FROM q
  ON CONFLICT (email_hash) DO UPDATE SET name = excluded.name, city = excluded.city
  RETURNING id),"""
_FIRST_AUTHOR_GIVEN = """
a AS (SELECT CAST(:a_id AS integer) AS id),"""
_REST = """
qa AS (
  INSERT INTO question_author (question_id, author_id, position)
  SELECT q.id, a.id, 0 FROM q, a
  UNION ALL
  SELECT q.id, more.author_id, more.position
  FROM q, unnest(CAST(:more_author_ids AS integer[])) WITH ORDINALITY AS more(author_id, position)),
sc AS (
  INSERT INTO question_status_change (question_id, from_status, to_status, at)
  SELECT q.id, NULL, :status, :at FROM q),
ob AS (
  INSERT INTO outbox_message (task, args, created_at, attempts, request_id)
  SELECT t.task, json_build_array(q.id), :at, 0, :request_id
  FROM q, unnest(CAST(:tasks AS varchar[])) WITH ORDINALITY AS t(task, n)
  ORDER BY t.n
  RETURNING id)
SELECT q.id, ARRAY(SELECT ob.id FROM ob ORDER BY ob.id) AS outbox_ids FROM q
"""

_TYPES = [
    bindparam("at", type_=UTCDateTime), bindparam("sources", type_=JSON),
    bindparam("consent_on_air", type_=Boolean), bindparam("age_confirmed", type_=Boolean),
    bindparam("postmark_date", type_=Date), bindparam("more_author_ids", type_=ARRAY(Integer)),
    bindparam("tasks", type_=ARRAY(String)),
    *(bindparam(n, type_=Text) for n in (
        "text", "answer", "accepted", "rejected", "comment", "handout", "matching_key",
        "request_id")),
]
_WITH_UPSERT = text("WITH" + _QUESTION + _FIRST_AUTHOR_UPSERT + _REST).bindparams(*_TYPES)
_WITH_GIVEN = text("WITH" + _QUESTION + _FIRST_AUTHOR_GIVEN + _REST).bindparams(*_TYPES)


@dataclass(frozen=True)
class Inserted:
    """The new question: ``id``, ``public_token`` and the ids of its outbox rows (ascending,
    in the order of ``tasks``)."""

    id: int
    public_token: str
    outbox_ids: tuple[int, ...]


def insert_received(clean: dict, channel: str, *, tasks: list[str],
                    more_author_ids: list[int], first_author_id: int | None = None,
                    language: str | None = None, consent_version: str | None = None,
                    consent_on_air: bool = False, age_confirmed: bool = False,
                    idempotency_key: str | None = None, handout_image: str | None = None,
                    postmark_date: date | None = None,
                    letter_scan: str | None = None,
                    own_transaction: bool = False) -> Inserted | None:
    """Write one new question (status ``received``) with its authors, status record and
    outbox rows in one statement of the current transaction (PostgreSQL only).

    ``clean``: the fields of ``operations.validate`` (``authors``: ``[(name, city,
    email), …]``). The first author is upserted by e-mail inside the statement unless
    ``first_author_id`` is given (an author without e-mail, already resolved); the other
    authors are ``more_author_ids`` (resolved by ``operations.upsert_author``).
    ``tasks``: outbox task names, each called with the question's id.
    Returns :class:`Inserted`, or None when ``idempotency_key`` is already stored (nothing
    was inserted but the author upsert: the caller rolls back). Raises IntegrityError or
    another DBAPIError from the database; ForbiddenTransition never (new → received).
    """
    check_transition(None, INTAKE_STATUS)
    token = secrets.token_urlsafe(24)  # 192 bits
    params = {
        "at": utcnow(), "public_token": token, "text": clean["question"],
        "answer": clean["answer"], "accepted": clean.get("accepted"),
        "rejected": clean.get("rejected"), "comment": clean.get("comment"),
        "sources": clean.get("sources") or [], "handout": clean.get("handout"),
        "channel": channel, "status": INTAKE_STATUS,
        "matching_key": matching_key(clean["question"]), "language": language,
        "consent_version": consent_version, "consent_on_air": consent_on_air,
        "age_confirmed": age_confirmed, "handout_image": handout_image,
        "idempotency_key": idempotency_key, "postmark_date": postmark_date,
        "letter_scan": letter_scan, "more_author_ids": more_author_ids, "tasks": tasks,
        "request_id": current_request_id(),
    }
    if first_author_id is None:
        name, city, email = clean["authors"][0]
        if not email:
            raise ValueError("the first author has no e-mail: pass first_author_id")
        params.update(a_name=name, a_city=city, a_email_hash=lookup_hash(email),
                      a_email_encrypted=encrypt(email))
        statement = _WITH_UPSERT
    else:
        params["a_id"] = first_author_id
        statement = _WITH_GIVEN
    if own_transaction:
        with db.engine.connect() as conn:
            row = conn.execution_options(isolation_level="AUTOCOMMIT").execute(
                statement, params).first()
    else:
        row = db.session.execute(statement, params).first()
    if row is None:
        return None
    return Inserted(id=row.id, public_token=token, outbox_ids=tuple(row.outbox_ids))
