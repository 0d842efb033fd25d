"""The audience vote's tasks (``webapp.tasks.registry``): requested by name through the
outbox (``webapp.tasks.outbox.enqueue``) or run by the beat, their bodies in
``workers.votes``. Stored in outbox rows and read by the reconciliation
(``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

from webapp.tasks.registry import declare

#: Render the result document of a closed vote. It takes the vote's id, which its Document
#: row does not hold (``takes=None``), so the reconciliation does not request it again.
RENDER_RESULT = declare(
    "votes.render_result", body="workers.votes", renders=("vote_result",), takes=None
)
#: Beat, daily: delete the phone-number hashes of votes closed long enough ago.
PURGE_NUMBERS = declare("votes.purge_numbers", body="workers.votes", schedule=timedelta(hours=24))
