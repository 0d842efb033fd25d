"""Moderation tasks (thin wrappers over ``webapp.moderation.operations``)."""

from webapp.core.crypto import decrypt
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.moderation import tasks
from webapp.moderation.duplicates import ensure_indexed, index_missing, rebuild_index
from webapp.moderation.export_jobs import purge_exports as purge_exports_op
from webapp.moderation.export_jobs import run_export
from webapp.moderation.operations import precheck as precheck_op
from webapp.moderation.reasons import decision_email
from webapp.observability import PRECHECK_LATENCY
from webapp.submissions.models import Question, QuestionStatusChange
from webapp.tasks.outbox import commit
from webapp.tasks.registry import task
from workers.notify import send_mail


@task(tasks.PRECHECK, acks_late=True)
def precheck(question_id: int) -> int | None:
    """Pre-check question ``question_id``; idempotent (one report per check version).
    Returns the report id, or None when the question is gone.

    Two transactions: the question joins the duplicate index first (committed, so a
    near-identical question pre-checked at the same moment sees it), then the checks run
    (committed by the task edge, ``webapp.tasks.celery.SovaTask``).
    """
    if ensure_indexed(question_id):
        # Kept on purpose: the index rows must be visible to the other pre-checks before
        # this one's checks run (two near-identical questions pre-checked at the same
        # moment then find each other), so they get a transaction of their own.
        commit()
    report = precheck_op(question_id)
    new = report is not None and report in db.session.new
    db.session.flush()  # the new report's id, returned below
    question = db.session.get(Question, question_id) if new else None
    if question is not None:  # from the question's arrival to its report, once per question
        PRECHECK_LATENCY.observe((utcnow() - question.created_at).total_seconds())
    return report.id if report else None


@task(tasks.NOTIFY_DECISION, acks_late=True)
def notify_decision(question_id: int) -> bool:
    """E-mail the first author the editors' decision (the same text the editor previewed:
    ``webapp.moderation.reasons.decision_email``). False when there is nobody to write to
    or the question is no longer approved/rejected (a later decision sends its own), or
    when the ledger (key ``decision:<status change id>``) has it sent already."""
    q = db.session.get(Question, question_id)
    if q is None or q.status not in ("approved", "rejected") or not q.authors:
        return False
    author = q.authors[0].author
    if not author.email_encrypted:
        return False
    decision = "approve" if q.status == "approved" else "reject"
    subject, body = decision_email(decision, q.language, q.text, q.rejection_reason)
    # one e-mail per decision (its status change), however often this task runs
    change = db.session.scalar(
        db.select(QuestionStatusChange.id)
        .where(QuestionStatusChange.question_id == q.id, QuestionStatusChange.to_status == q.status)
        .order_by(QuestionStatusChange.id.desc())
    )
    return send_mail(
        decrypt(author.email_encrypted), subject, body, key=f"decision:{change}" if change else None
    )


@task(tasks.INDEX_QUESTIONS, acks_late=True)
def index_questions(first_id: int, last_id: int) -> int:
    """Index the questions ``first_id``…``last_id`` that have no duplicate index rows yet
    (owed by a ``sova import`` whose own index writer did not finish). Returns how many
    were indexed; running it again indexes none."""
    return index_missing(first_id, last_id)


@task(tasks.REINDEX, acks_late=True)
def reindex() -> int:
    """Rebuild the duplicate index (after ``duplicates.INDEX_VERSION`` changes). Returns the
    number of questions indexed; running it twice gives the same index."""
    return rebuild_index()


@task(
    tasks.EXPORT_QUEUE,
    acks_late=True,
    soft_time_limit=1800,  # ≈ 200 µs of CPU a row (XLSX): half a million rows in minutes
    time_limit=1860,
)
def export_queue(job_id: int) -> str | None:
    """Write the file of queue export job ``job_id`` (``webapp.moderation.export_jobs``),
    committing its progress after every batch. Idempotent: a ready file is not written
    again. Returns the job's status (None: no such job)."""
    job = run_export(job_id)
    return job.status if job is not None else None


@task(tasks.PURGE_EXPORTS)
def purge_exports() -> int:
    """Beat (hourly): delete the files of the queue exports past their expiry. Returns how
    many expired."""
    return purge_exports_op()
