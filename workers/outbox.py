"""The beat's safety net: resend outbox messages the fast path did not send."""

from celery import shared_task

from webapp import jobs


@shared_task(name="outbox.sweep", ignore_result=True)
def sweep() -> int:
    """Send unsent outbox rows older than 30 s; returns how many were sent."""
    return jobs.sweep()
