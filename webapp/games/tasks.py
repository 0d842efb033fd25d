"""The games feature's tasks (``webapp.tasks.registry``): requested by name through the
outbox (``webapp.tasks.outbox.enqueue``), their bodies in ``workers.games``. Stored in
outbox rows and read by the reconciliation (``webapp.tasks.owed``): never rename one."""

from webapp.tasks.registry import declare

#: Render an envelopes, host-cards or sector-13 card Document (its id).
RENDER_ENVELOPES = declare(
    "games.render_envelopes",
    body="workers.games",
    renders=("envelopes", "host_cards", "sector13_card"),
)
