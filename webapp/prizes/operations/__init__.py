"""Writes of the prizes feature: what a closed game owes, individual prizes, statuses, paperwork.

Operations only flush; the view, task or command that calls them commits once
(``webapp.tasks.outbox.commit``). Every status change is recorded in ``PrizeStatusChange``.

A package by topic (this module re-exports the public names, so callers import from
``webapp.prizes.operations``): ``common``, ``award`` (what a closed game owes, individual prizes),
``documents`` (minutes, re-issued agreements), ``payment`` (scan, paid, closed).
"""

from __future__ import annotations

from webapp.prizes.operations.award import (  # noqa: F401
    award_prize,
    award_rule,
    owed_on_close,
    prizes_of,
    unanswered_questions,
)
from webapp.prizes.operations.common import (  # noqa: F401
    NO_AGREEMENT_TRANSITIONS,
    TRANSITIONS,
    PrizeError,
    agreement_prefix,
    change_status,
    next_agreement_seq,
    next_minutes_seq,
    refusal_text,
)
from webapp.prizes.operations.documents import (  # noqa: F401
    issue_minutes,
    reissue_agreement,
    reissue_for_new_air_date,
    reissue_for_new_donor,
    reissue_minutes,
)
from webapp.prizes.operations.payment import (  # noqa: F401
    SCAN_FORMATS,
    SCAN_MAX_BYTES,
    check_payment,
    close_prize,
    mark_paid,
    mark_signed,
    scan_format,
)
