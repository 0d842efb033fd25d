"""The prizes feature's tasks (``webapp.tasks.registry``): requested by name through the
outbox (``webapp.tasks.outbox.enqueue``) or run by the beat, their bodies in
``workers.prizes``. Stored in outbox rows and read by the reconciliation
(``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

from webapp.tasks.registry import declare

DAILY = timedelta(hours=24)

#: Render the gift agreement of a prize (its id) and mark it issued.
ISSUE_AGREEMENT = declare(
    "prizes.issue_agreement",
    body="workers.prizes",
    renders=("gift_agreement",),
    takes="prize_id",
)
#: Render the prize commission minutes of a prize (its id).
RENDER_MINUTES = declare(
    "prizes.render_minutes",
    body="workers.prizes",
    renders=("commission_minutes",),
    takes="prize_id",
)
#: Render a payment register PDF Document (its id).
RENDER_REGISTER = declare(
    "prizes.render_register", body="workers.prizes", renders=("payment_register",)
)
#: E-mail the payee a fresh one-time link to the details form (the prize's id).
SEND_DETAILS_LINK = declare("prizes.send_details_link", body="workers.prizes")
#: Beat, daily: remind payees who have not sent their details.
REMIND_DETAILS = declare("prizes.remind_details", body="workers.prizes", schedule=DAILY)
#: Beat, daily: delete payee details after the retention period.
PURGE_PAYEE_DETAILS = declare("prizes.purge_payee_details", body="workers.prizes", schedule=DAILY)
