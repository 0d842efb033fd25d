"""The task edge in a real worker (``webapp.tasks.celery.SovaTask``) on PostgreSQL and Redis: a
task that returns is committed and its outbox row marked done; a task that raises is rolled
back and its row stays owed (for ``outbox.reconcile``), keeping only the failure the render
commits on purpose (``workers.rendering``). The fixtures of tests/fixtures/faults.py."""

from __future__ import annotations

from datetime import date

import pytest

from tests.helpers import wait_for

pytestmark = pytest.mark.integration


def test_a_worker_commits_a_task_that_returns_and_keeps_one_that_raises_owed(faults):
    from webapp.core.models import Document, OutboxMessage, utcnow
    from webapp.extensions import db
    from webapp.prizes.register import REGISTER_PDF, request_register_pdf
    from webapp.prizes.tasks import RENDER_REGISTER
    from webapp.tasks.outbox import commit, enqueue

    app, workers, _redis = faults
    with app.app_context():
        good = request_register_pdf(date(2024, 1, 1), date(2024, 1, 31)).id
        bad_doc = Document(
            key=f"{REGISTER_PDF}:2024-13-01:2024-13-31:v1",  # no 13th month: the build raises
            kind=REGISTER_PDF,
            version=1,
            status="pending",
            created_at=utcnow(),
        )
        db.session.add(bad_doc)
        db.session.flush()
        bad = bad_doc.id
        enqueue(RENDER_REGISTER, bad)
        commit()  # the relay hands both to the broker
        db.session.remove()
    workers.start()

    def documents():
        with app.app_context():
            try:
                return {
                    d.id: (d.status, d.error)
                    for d in db.session.scalars(db.select(Document).order_by(Document.id))
                }
            finally:
                db.session.remove()

    wait_for(lambda: "pending" not in {s for s, _ in documents().values()}, 120, "both renders")
    assert documents() == {
        good: ("ready", None),
        bad: ("failed", "ValueError: month must be in 1..12"),
    }

    def rows():
        with app.app_context():
            try:
                return {
                    args[0]: (sent is not None, done is not None)
                    for args, sent, done in db.session.execute(
                        db.select(OutboxMessage.args, OutboxMessage.sent_at, OutboxMessage.done_at)
                    ).all()
                }
            finally:
                db.session.remove()

    wait_for(lambda: rows()[good] == (True, True), 30, "the returned task marked done")
    assert rows() == {good: (True, True), bad: (True, False)}  # the raising one is still owed
