"""The beat's safety nets: resend outbox messages the fast path did not send, and tasks the
broker lost (``outbox.reconcile``)."""

from webapp.tasks import outbox, owed
from webapp.tasks.registry import task


@task(outbox.SWEEP)
def sweep() -> int:
    """Send unsent outbox rows older than 30 s; returns how many were sent."""
    return outbox.sweep()


@task(outbox.RECONCILE)
def reconcile() -> dict:
    """Send again what was handed to the broker but never done, and queue overdue owed
    work that has no request (:func:`webapp.tasks.owed.reconcile`); returns the counts."""
    return owed.reconcile()
