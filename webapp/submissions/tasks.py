"""The tasks the submissions feature requests (``webapp.tasks.registry``), by name through
the outbox (``webapp.tasks.outbox.enqueue``); their bodies in ``workers.notify`` and
``workers.moderation``, which the web never imports. A name is stored in outbox rows and
read by the reconciliation (``webapp.tasks.owed``): never rename one.

``PRECHECK`` is the moderation feature's task, declared here because a question's arrival
requests it and this feature may not import moderation (the features' layers);
``webapp.moderation.tasks`` re-exports it."""

from webapp.tasks.registry import declare

#: The pre-check of a question that arrived (``workers.moderation.precheck``).
PRECHECK = declare("moderation.precheck", body="workers.moderation")
#: «Your question arrived» to its first author (``workers.notify.received``).
RECEIVED = declare("notify.received", body="workers.notify")
#: An author's one-time «my questions» link (``workers.notify.my_link``).
MY_LINK = declare("notify.my_link", body="workers.notify")
