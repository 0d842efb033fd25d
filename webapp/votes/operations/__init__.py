"""Writes of the 2009 §3.1 audience vote: open, close, one SMS, the award decision, the
purge of phone-number hashes. Operations flush and raise an
:class:`~webapp.core.errors.OperationError` (VoteError 409, VoteInputError 422) to refuse;
the caller commits: the request edge (``webapp.core.edge``) for a request, the task for a
worker (``webapp.tasks.outbox.commit``). The one write that does not wait for that commit is the
SMS insert on PostgreSQL (:func:`receive_sms`, reason there).

Counting one SMS (:func:`receive_sms`) takes no lock in Python and needs no read-modify-
write: the answer is decided by ``webapp.domain.vote`` and made true by the database keys
(see ``webapp.votes.models``): an ``INSERT … SELECT … FROM vote WHERE status = 'open'
FOR KEY SHARE … ON CONFLICT DO NOTHING RETURNING``. The ``FOR KEY SHARE`` lock (PostgreSQL;
SQLite serialises writers anyway) makes closing wait for the inserts in flight and makes
the inserts that come after see the vote closed, so the frozen result equals the log.

A package by step (this module re-exports the public names, so callers import from
``webapp.votes.operations``): ``common`` (the errors, the gateway's signature),
``opening`` (open, close), ``sms`` (one SMS), ``award`` (the award, the purge).
"""

from __future__ import annotations

from webapp.votes.operations.award import (  # noqa: F401
    purge_numbers,
    record_award,
)
from webapp.votes.operations.common import (  # noqa: F401
    RESULT_DOCUMENT,
    SignatureUnavailable,
    VoteError,
    VoteInputError,
    msisdn_key,
    signature_ok,
)
from webapp.votes.operations.opening import (  # noqa: F401
    close_vote,
    open_vote,
)
from webapp.votes.operations.sms import (  # noqa: F401
    Sms,
    receive_sms,
)
from webapp.votes.queries import log_lines  # noqa: F401  (imported from here before the split)
