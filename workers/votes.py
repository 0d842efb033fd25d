"""Audience-vote tasks (2009 §3.1): the signed result PDF and the beat purge of phone-number
hashes."""

from webapp.extensions import db
from webapp.tasks.registry import task
from webapp.votes import tasks
from webapp.votes.models import Vote
from webapp.votes.operations import purge_numbers as purge
from webapp.votes.queries import result_context
from workers.rendering import render_document


@task(
    tasks.RENDER_RESULT,
    acks_late=True,
    soft_time_limit=120,
    time_limit=180,
)
def render_result(vote_id: int) -> int | None:
    """Render the result document of closed Vote ``vote_id`` (``vote_result.html``: counts
    per candidate, repeats, invalid, late, the time window, the log's SHA-256). Idempotent:
    a ready file is not rendered again. Returns the document id (None: no such vote or not
    closed)."""
    vote = db.session.get(Vote, vote_id)
    if vote is None or vote.status != "closed" or vote.document_id is None:
        return None
    render_document(vote.document_id, lambda _doc: ("vote_result.html", result_context(vote), None))
    return vote.document_id


@task(tasks.PURGE_NUMBERS)
def purge_numbers() -> int:
    """Beat (daily): delete the phone-number hashes of votes closed more than
    ``SOVA_VOTE_RETENTION_DAYS`` ago. Returns how many votes were purged."""
    return purge()
