"""The moderation feature's task names, shared by what requests them
(``webapp.jobs.enqueue``) and the worker that defines them (``workers.moderation``). Stored
in outbox rows and read by the reconciliation (``webapp.owed``): never rename one."""

from webapp.submissions.tasks import PRECHECK

#: The editors' decision e-mailed to the first author (after a decision is committed).
NOTIFY_DECISION = "moderation.notify_decision"
#: Rebuild the duplicate index after its version changes.
REINDEX = "moderation.reindex"

#: The tasks of this feature the worker runs (``workers.moderation``).
TASKS = (PRECHECK, NOTIFY_DECISION, REINDEX)
#: Periodic tasks (Celery beat entries, name → entry): none.
BEAT: dict[str, dict] = {}
