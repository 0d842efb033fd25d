"""Two editors claiming one question at the same moment (SQLite and PostgreSQL tests)."""

from __future__ import annotations

import threading

from webapp.extensions import db
from webapp.moderation.operations import ClaimConflict, claim
from webapp.tasks.outbox import commit


def claim_race(app, question_id: int, user_ids: list[int]) -> list[str]:
    """Each user claims ``question_id`` in a thread of its own (own app context, own
    connection), all released together by a barrier. Returns the sorted outcomes,
    ``"won"`` or ``"conflict"``, one per user."""
    barrier = threading.Barrier(len(user_ids))
    results: list[str] = []

    def editor(uid: int) -> None:
        with app.app_context():
            barrier.wait()
            try:
                claim(question_id, uid)
                commit()
                results.append("won")
            except ClaimConflict:
                db.session.rollback()
                results.append("conflict")
            finally:
                db.session.remove()

    threads = [threading.Thread(target=editor, args=(u,)) for u in user_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(results)
