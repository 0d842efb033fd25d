"""Writes for moderation: the pre-check report and the editor's decision.

A package by topic (this module re-exports the public names, so callers import from
``webapp.moderation.operations``): ``common`` (labels, errors, claims), ``editing``,
``precheck``, ``decisions``.
"""

from __future__ import annotations

from webapp.moderation.duplicates import (  # noqa: F401  (re-exported for callers)
    COMPARED_STATUSES,
    DUPLICATE_THRESHOLD,
    MAX_CANDIDATES,
    ensure_indexed,
    find_duplicates,
)
from webapp.moderation.operations.common import (  # noqa: F401
    CHECK_LABELS,
    CLAIM_TTL,
    FIELD_LABELS,
    STATUS_NAMES,
    ClaimConflict,
    ModerationError,
    claim,
    claim_holder,
    release,
    status_label,
)
from webapp.moderation.operations.decisions import (  # noqa: F401
    approver_of,
    bulk_decide,
    bulk_preview,
    bulk_sign_off,
    decide,
    decision_applies,
    full_reason,
    sign_off,
    signoff_preview,
)
from webapp.moderation.operations.editing import (  # noqa: F401
    EDITABLE,
    EDITABLE_STATUSES,
    add_comment,
    add_stress,
    correct_author,
    edit_question,
    hold_back,
    mark_leak_intended,
    open_letter_scan,
    reveal_authors,
)
from webapp.moderation.operations.precheck import (  # noqa: F401
    duplicate_candidates,
    handout_check,
    images_check,
    leak_check,
    precheck,
    question_language,
    reading_check,
    refresh_images_check,
    refresh_leak_check,
    refresh_reading_check,
    refresh_stress_check,
    run_checks,
    stress_check,
    stress_suggestion,
)
