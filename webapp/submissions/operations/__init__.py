"""Writes for intake: a viewer's submission, an import. Operations flush; callers commit.

One submission is one transaction: the Question, its Authors (one per normalised e-mail),
the status record and two outbox messages (``moderation.precheck``, ``notify.received``).

A package by topic (this module re-exports the public names, so callers import from
``webapp.submissions.operations``): ``validation`` (the limits, the inputs, the field
checks), ``intake`` (writing a submission: :func:`receive`, the idempotency key, the
PostgreSQL and ORM paths), ``authorship`` (confirming and withdrawing by the author),
``packet_import`` (storing a parsed packet, the editors' upload of a packet and its images).
"""

from __future__ import annotations

from webapp.submissions.operations.authorship import (  # noqa: F401
    OFFERED_UNTIL_AIR,
    WITHDRAWABLE,
    author_by_email,
    confirm_authorship,
    withdraw,
)
from webapp.submissions.operations.intake import (  # noqa: F401
    Received,
    create_question,
    question_values,
    receive,
    upsert_author,
)
from webapp.submissions.operations.packet_import import (  # noqa: F401
    AlreadyThere,
    UploadResult,
    already_there,
    import_authors,
    import_packet,
    import_upload,
    texts_already_there,
)
from webapp.submissions.operations.validation import (  # noqa: F401
    CONSENT_VERSION,
    LIMITS,
    MIN_QUESTION,
    AuthorInput,
    SubmissionError,
    SubmissionInput,
    clean_text,
    normalise_email,
    validate,
)
