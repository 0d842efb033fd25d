"""The moderation feature's tasks (``webapp.tasks.registry``): requested by name through
the outbox (``webapp.tasks.outbox.enqueue``) or run by the beat, their bodies in
``workers.moderation``. Stored in outbox rows and read by the reconciliation
(``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

from webapp.submissions.tasks import PRECHECK
from webapp.tasks.registry import declare

__all__ = [
    "EXPORT_QUEUE",
    "INDEX_QUESTIONS",
    "NOTIFY_DECISION",
    "PRECHECK",
    "PURGE_EXPORTS",
    "REINDEX",
]

#: The editors' decision e-mailed to the first author (after a decision is committed).
NOTIFY_DECISION = declare("moderation.notify_decision", body="workers.moderation")
#: Rebuild the duplicate index after its version changes.
REINDEX = declare("moderation.reindex", body="workers.moderation")
#: Index the questions of an id range that have no duplicate index rows yet (first id,
#: last id): what ``sova import --as archive`` owes when its own index writer did not
#: finish a file's rows (:func:`webapp.moderation.duplicates.index_missing`).
INDEX_QUESTIONS = declare("moderation.index_questions", body="workers.moderation")
#: Write the file of a queue export too large for a request (its ExportJob id).
EXPORT_QUEUE = declare("moderation.export_queue", body="workers.moderation")
#: Beat, hourly: delete the files of expired queue exports.
PURGE_EXPORTS = declare(
    "moderation.purge_exports", body="workers.moderation", schedule=timedelta(hours=1)
)
