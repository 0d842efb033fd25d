"""The prizes feature's task names and periodic tasks, shared by what requests them
(``webapp.tasks.outbox.enqueue``, the beat) and the worker that defines them (``workers.prizes``).
Stored in outbox rows and read by the reconciliation (``webapp.tasks.owed``): never rename one."""

from datetime import timedelta

#: Render the gift agreement of a prize (its id) and mark it issued.
ISSUE_AGREEMENT = "prizes.issue_agreement"
#: Render the prize commission minutes of a prize (its id).
RENDER_MINUTES = "prizes.render_minutes"
#: Render a payment register PDF Document (its id).
RENDER_REGISTER = "prizes.render_register"
#: E-mail the payee a fresh one-time link to the details form (the prize's id).
SEND_DETAILS_LINK = "prizes.send_details_link"
#: Beat: remind payees who have not sent their details.
REMIND_DETAILS = "prizes.remind_details"
#: Beat: delete payee details after the retention period.
PURGE_PAYEE_DETAILS = "prizes.purge_payee_details"

#: The tasks of this feature the worker runs (``workers.prizes``).
TASKS = (
    ISSUE_AGREEMENT,
    RENDER_MINUTES,
    RENDER_REGISTER,
    SEND_DETAILS_LINK,
    REMIND_DETAILS,
    PURGE_PAYEE_DETAILS,
)
#: Document kind → (the task that renders it, the Document attribute the task takes).
DOCUMENT_TASKS = {
    "gift_agreement": (ISSUE_AGREEMENT, "prize_id"),
    "commission_minutes": (RENDER_MINUTES, "prize_id"),
    "payment_register": (RENDER_REGISTER, "id"),
}
#: Periodic tasks (Celery beat entries, name → entry), daily.
BEAT = {
    "prizes-remind-details": {"task": REMIND_DETAILS, "schedule": timedelta(hours=24)},
    "prizes-purge-payee-details": {"task": PURGE_PAYEE_DETAILS, "schedule": timedelta(hours=24)},
}
