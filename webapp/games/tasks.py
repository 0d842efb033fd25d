"""The games feature's task names, shared by what requests them (``webapp.tasks.outbox.enqueue``)
and the worker that defines them (``workers.games``). Stored in outbox rows and read by the
reconciliation (``webapp.tasks.owed``): never rename one."""

#: Render an envelopes, host-cards or sector-13 card Document (its id).
RENDER_ENVELOPES = "games.render_envelopes"

#: The tasks of this feature the worker runs (``workers.games``).
TASKS = (RENDER_ENVELOPES,)
#: Document kind → (the task that renders it, the Document attribute the task takes): how
#: the reconciliation (``webapp.tasks.owed``) requests a document still pending.
DOCUMENT_TASKS = {
    "envelopes": (RENDER_ENVELOPES, "id"),
    "host_cards": (RENDER_ENVELOPES, "id"),
    "sector13_card": (RENDER_ENVELOPES, "id"),
}
#: Periodic tasks (Celery beat entries, name → entry): none.
BEAT: dict[str, dict] = {}
