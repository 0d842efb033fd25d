"""The tasks the submissions feature requests (``webapp.tasks.outbox.enqueue``) by name, shared
with the worker that defines them (``workers.notify``, ``workers.moderation``): the web
never imports ``workers``. A name is stored in outbox rows and read by the reconciliation
(``webapp.tasks.owed``): never rename one.

``PRECHECK`` is the moderation feature's task, declared here because a question's arrival
requests it and this feature may not import moderation (the features' layers);
``webapp.moderation.tasks`` re-exports it."""

#: The pre-check of a question that arrived (``workers.moderation.precheck``).
PRECHECK = "moderation.precheck"
#: «Your question arrived» to its first author (``workers.notify.received``).
RECEIVED = "notify.received"
#: An author's one-time «my questions» link (``workers.notify.my_link``).
MY_LINK = "notify.my_link"

#: The tasks of this feature the worker runs (``workers.notify``).
TASKS = (RECEIVED, MY_LINK)
#: Periodic tasks (Celery beat entries, name → entry): none.
BEAT: dict[str, dict] = {}
