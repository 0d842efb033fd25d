"""Editor pages: the queue (filters, search, claims, shortcuts), a question with its
pre-check report and duplicates, claiming, and the chief editor's audited author reveal.

A package by screen (this module re-exports every name, so callers import from
``webapp.moderation.views``; every module adds its routes to the one blueprint ``bp``,
endpoints ``moderation.<function>``): ``common`` (the blueprint, its template filters, the
shortcuts, the marked diff, who sees authors), ``listing`` (the queue, bulk decisions, the
exports, the statistics), ``question_page`` (one question: decisions, claims, the reveal,
authors, images, edits, comments, the sign-off), ``signoffs`` (the sign-off of a selection),
``exports`` (the exports the worker writes: the request, the progress, the download)."""

from __future__ import annotations

from webapp.moderation.views.common import (  # noqa: F401
    SHORTCUTS,
    bp,
    channel_label_filter,
    marked_diff,
    question_status_filter,
    sees_authors,
)
from webapp.moderation.views.exports import (  # noqa: F401
    export_file,
    export_job,
    export_job_status,
    export_request,
)
from webapp.moderation.views.listing import (  # noqa: F401
    bulk,
    export_4s,
    export_name,
    export_queue,
    parse_ids,
    queue,
    queue_filter,
    statistics,
)
from webapp.moderation.views.question_page import (  # noqa: F401
    attach_image,
    claim_question,
    comment,
    correct,
    edit,
    hold_back_view,
    question,
    release_question,
    reveal,
    signoff,
)
from webapp.moderation.views.signoffs import bulk_signoff  # noqa: F401
