"""The beat's safety nets: resend outbox messages the fast path did not send, and tasks the
broker lost (``outbox.reconcile``)."""

from celery import shared_task

from webapp import jobs, owed


@shared_task(name=jobs.SWEEP, ignore_result=True)
def sweep() -> int:
    """Send unsent outbox rows older than 30 s; returns how many were sent."""
    return jobs.sweep()


@shared_task(name=jobs.RECONCILE, ignore_result=True)
def reconcile() -> dict:
    """Send again what was handed to the broker but never done, and queue overdue owed
    work that has no request (:func:`webapp.owed.reconcile`); returns the counts."""
    return owed.reconcile()
