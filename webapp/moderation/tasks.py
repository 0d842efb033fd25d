"""The moderation feature's task names, shared by what requests them
(``webapp.tasks.outbox.enqueue``) and the worker that defines them (``workers.moderation``). Stored
in outbox rows and read by the reconciliation (``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

from webapp.submissions.tasks import PRECHECK

#: The editors' decision e-mailed to the first author (after a decision is committed).
NOTIFY_DECISION = "moderation.notify_decision"
#: Rebuild the duplicate index after its version changes.
REINDEX = "moderation.reindex"

#: Write the file of a queue export too large for a request (its ExportJob id).
EXPORT_QUEUE = "moderation.export_queue"
#: Beat: delete the files of expired queue exports.
PURGE_EXPORTS = "moderation.purge_exports"

#: The tasks of this feature the worker runs (``workers.moderation``).
TASKS = (PRECHECK, NOTIFY_DECISION, REINDEX, EXPORT_QUEUE, PURGE_EXPORTS)
#: Periodic tasks (Celery beat entries, name → entry): the expired exports, hourly.
BEAT: dict[str, dict] = {
    "moderation-purge-exports": {"task": PURGE_EXPORTS, "schedule": timedelta(hours=1)}
}
