"""Requesting a document (``webapp.core.documents.request_document``): one pending row and
its kind's rendering task in the outbox, in the caller's transaction; asking again reuses
the row and queues nothing unless the earlier request is overdue."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp.core.documents import Owner, request_document
from webapp.core.models import Document, OutboxMessage, utcnow
from webapp.extensions import db
from webapp.tasks.outbox import commit


def _outbox() -> list[tuple[str, list]]:
    return [
        (m.task, m.args)
        for m in db.session.scalars(db.select(OutboxMessage).order_by(OutboxMessage.id))
    ]


def test_a_new_key_is_a_pending_row_and_its_rendering_queued(app):
    doc, made = request_document("host_cards", "host_cards:game:7:v1", Owner(game_id=7))
    commit()
    assert made
    assert (doc.kind, doc.key, doc.game_id, doc.prize_id, doc.version, doc.status) == (
        "host_cards",
        "host_cards:game:7:v1",
        7,
        None,
        1,
        "pending",
    )
    assert _outbox() == [("games.render_envelopes", [doc.id])]


def test_a_prize_document_is_rendered_from_its_prize(app):
    doc, _made = request_document(
        "commission_minutes",
        "commission_minutes:prize:12:v2",
        Owner(game_id=3, prize_id=12),
        version=2,
    )
    commit()
    assert (doc.game_id, doc.prize_id, doc.version) == (3, 12, 2)
    assert _outbox() == [("prizes.render_minutes", [12])]


def test_asking_again_reuses_the_row_and_queues_only_an_overdue_request(app):
    first, _made = request_document("envelopes", "envelopes:game:5:v1", Owner(game_id=5))
    commit()
    again, made = request_document("envelopes", "envelopes:game:5:v1", Owner(game_id=5))
    commit()
    assert (again.id, made) == (first.id, False)
    assert _outbox() == [("games.render_envelopes", [first.id])]

    # the broker lost the request: handed over eleven minutes ago and never done
    db.session.execute(db.update(OutboxMessage).values(sent_at=utcnow() - timedelta(minutes=11)))
    request_document("envelopes", "envelopes:game:5:v1", Owner(game_id=5))
    commit()
    assert _outbox() == [("games.render_envelopes", [first.id])] * 2

    # rendered: nothing more is queued
    first.status = "ready"
    db.session.execute(db.update(OutboxMessage).values(sent_at=utcnow() - timedelta(minutes=11)))
    request_document("envelopes", "envelopes:game:5:v1", Owner(game_id=5))
    commit()
    assert len(_outbox()) == 2


def test_a_task_taking_another_rows_id_is_given_it(app):
    doc, _made = request_document(
        "vote_result", "vote_result:vote:4:v1", Owner(game_id=9), task_arg=4
    )
    commit()
    assert _outbox() == [("votes.render_result", [4])]
    assert doc.game_id == 9


def test_a_kind_no_task_renders_or_a_missing_argument_is_refused(app):
    with pytest.raises(LookupError, match="signed_scan"):
        request_document("signed_scan", "signed_scan:1", Owner())
    with pytest.raises(ValueError, match="task_arg"):
        request_document("vote_result", "vote_result:vote:5:v1", Owner(game_id=9))
    db.session.rollback()
    assert db.session.scalar(db.select(db.func.count()).select_from(Document)) == 0
