"""The task edge (``webapp.tasks.celery.SovaTask``): one transaction per task run, as the request
edge gives one per request. A task that returns has its writes committed and its outbox
row marked done; a task that raises (an error, or the ``Retry`` of ``self.retry()``) leaves
nothing written and nothing queued, and its outbox row stays owed."""

from __future__ import annotations

import pytest
from celery.exceptions import Retry
from sqlalchemy import func, select

from webapp.core.models import Document, OutboxMessage, utcnow
from webapp.extensions import db
from webapp.tasks.outbox import commit, enqueue


def committed(model, *where) -> int:
    """Rows of ``model`` another connection sees (committed ones only). On SQLite every
    transaction takes the write lock at its start: call it while the session holds none."""
    with db.engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(model).where(*where))


def _document(key: str) -> Document:
    return Document(
        key=key, kind="gift_agreement", version=1, status="pending", created_at=utcnow()
    )


def _tasks(app):
    """Three tasks on ``app``'s Celery app, each writing a document and queueing a task:
    one returns, one raises an error, one asks to be retried."""
    celery = app.extensions["celery"]

    def writes(key: str) -> int:
        doc = _document(key)
        db.session.add(doc)
        db.session.flush()
        enqueue("games.render_envelopes", doc.id)
        return doc.id

    @celery.task(name="test.edge.returns", shared=False)
    def returns(n: int) -> int:
        return writes(f"edge:returns:{n}")

    @celery.task(name="test.edge.raises", shared=False)
    def raises(n: int) -> None:
        writes(f"edge:raises:{n}")
        raise ValueError("the body failed after its writes")

    @celery.task(name="test.edge.retries", shared=False, bind=True)
    def retries(self, n: int) -> None:
        writes(f"edge:retries:{n}")
        raise Retry("again in 30 s", when=30)  # what self.retry() raises in a worker

    return returns, raises, retries


def _outbox_row(task: str, *args: int) -> int:
    """The id of an outbox row for ``task``, committed and handed to the broker (as the
    relay does)."""
    row = enqueue(task, *args)
    row.sent_at, row.attempts = utcnow(), 1
    commit()
    return row.id


def test_a_task_that_returns_has_its_writes_committed_and_its_row_done(app):
    returns, _raises, _retries = _tasks(app)
    row_id = _outbox_row("test.edge.returns", 1)
    returns.apply(args=[1], task_id=f"outbox-{row_id}-1", throw=True)
    db.session.remove()  # forget the session: only what was committed is left
    assert committed(Document, Document.key == "edge:returns:1") == 1
    doc_id = db.session.scalar(select(Document.id).where(Document.key == "edge:returns:1"))
    queued = db.session.scalars(
        select(OutboxMessage.args).where(OutboxMessage.task == "games.render_envelopes")
    ).all()
    assert queued == [[doc_id]]
    assert db.session.get(OutboxMessage, row_id).done_at is not None


@pytest.mark.parametrize("which", ["raises", "retries"])
def test_a_task_that_raises_leaves_nothing_written_and_stays_owed(app, which):
    tasks = dict(zip(("returns", "raises", "retries"), _tasks(app), strict=True))
    row_id = _outbox_row(f"test.edge.{which}", 2)
    expected = ValueError if which == "raises" else Retry
    with pytest.raises(expected):
        tasks[which].apply(args=[2], task_id=f"outbox-{row_id}-1", throw=True)
    db.session.remove()
    assert committed(Document) == 0
    assert committed(OutboxMessage, OutboxMessage.task == "games.render_envelopes") == 0
    assert db.session.get(OutboxMessage, row_id).done_at is None  # the reconciler sends it again
    # the session is usable after the rollback: the next task commits normally
    tasks["returns"](3)
    assert committed(Document, Document.key == "edge:returns:3") == 1


def test_a_task_called_in_process_commits_on_return_and_rolls_back_on_raise(app):
    """Called as a function (the tests' ``drain``, a CLI), the task still runs in its edge."""
    returns, raises, _retries = _tasks(app)
    assert returns(4) == db.session.scalar(
        select(Document.id).where(Document.key == "edge:returns:4")
    )
    with pytest.raises(ValueError):
        raises(5)
    assert committed(Document, Document.key == "edge:returns:4") == 1
    assert committed(Document, Document.key == "edge:raises:5") == 0


def test_a_real_task_whose_render_fails_keeps_only_the_failure(app, monkeypatch):
    """``prizes.render_register`` whose render raises: the document's ``failed`` status is
    the one write kept (committed by ``workers.rendering`` on purpose, for the producer's
    page); the task raises, and nothing else the run wrote is left."""
    import workers.tasks  # noqa: F401  (registers the tasks)
    from webapp.prizes import register
    from workers import rendering

    doc = _document("payment_register:2023-12:v1")
    doc.kind = register.REGISTER_PDF
    db.session.add(doc)
    commit()
    doc_id = doc.id

    def broken_render(template, context, **kwargs):
        db.session.add(_document("edge:written-during-render"))  # a stray write: not kept
        raise RuntimeError("the fonts are gone")

    monkeypatch.setattr(register, "register_pdf_context", lambda d: {})
    monkeypatch.setattr(rendering, "render_pdf", broken_render)
    with pytest.raises(RuntimeError):
        app.extensions["celery"].tasks["prizes.render_register"](doc_id)
    db.session.remove()
    assert committed(Document) == 1  # not the stray one
    failed = db.session.get(Document, doc_id)
    assert (failed.status, failed.error) == ("failed", "RuntimeError: the fonts are gone")


def test_on_postgresql_a_task_that_raises_leaves_nothing_and_one_that_returns_commits(pg_app):
    returns, raises, retries = _tasks(pg_app)
    with pytest.raises(ValueError):
        raises(6)
    with pytest.raises(Retry):
        retries(7)
    assert committed(Document) == 0
    assert committed(OutboxMessage) == 0
    returns(8)
    assert committed(Document, Document.key == "edge:returns:8") == 1
    assert committed(OutboxMessage) == 1
