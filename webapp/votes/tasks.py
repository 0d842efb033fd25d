"""The audience vote's task names and periodic tasks, shared by what requests them
(``webapp.tasks.outbox.enqueue``, the beat) and the worker that defines them (``workers.votes``).
Stored in outbox rows and read by the reconciliation (``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

#: Render the result document of a closed vote (its id).
RENDER_RESULT = "votes.render_result"
#: Beat: delete the phone-number hashes of votes closed long enough ago.
PURGE_NUMBERS = "votes.purge_numbers"

#: The tasks of this feature the worker runs (``workers.votes``).
TASKS = (RENDER_RESULT, PURGE_NUMBERS)
#: Periodic tasks (Celery beat entries, name → entry), daily.
BEAT = {"votes-purge-numbers": {"task": PURGE_NUMBERS, "schedule": timedelta(hours=24)}}
