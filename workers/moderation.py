"""Pre-check task (thin wrapper over ``webapp.moderation.operations.precheck``)."""

from celery import shared_task

from webapp.jobs import commit
from webapp.moderation.operations import precheck as precheck_op


@shared_task(name="moderation.precheck", ignore_result=True, acks_late=True)
def precheck(question_id: int) -> int | None:
    """Pre-check question ``question_id``; idempotent (one report per check version).
    Returns the report id, or None when the question is gone."""
    report = precheck_op(question_id)
    commit()
    return report.id if report else None
