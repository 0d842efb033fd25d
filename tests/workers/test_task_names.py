"""Task names and periodic tasks, declared by each feature (``webapp/<feature>/tasks.py``)
and by the outbox (``webapp.tasks.outbox``): the worker defines exactly those, the beat runs the
schedule they declare, and the names stay what in-flight outbox rows hold."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp.tasks.celery import beat_schedule, task_names

#: The names outbox rows and the reconciliation already use: renaming one would orphan
#: every row queued under the old name.
NAMES = {
    "outbox.sweep",
    "outbox.reconcile",
    "moderation.precheck",
    "moderation.notify_decision",
    "moderation.reindex",
    "moderation.export_queue",
    "moderation.purge_exports",
    "notify.received",
    "notify.my_link",
    "games.render_envelopes",
    "prizes.issue_agreement",
    "prizes.render_minutes",
    "prizes.render_register",
    "prizes.send_details_link",
    "prizes.remind_details",
    "prizes.purge_payee_details",
    "votes.render_result",
    "votes.purge_numbers",
}


def test_the_declared_names_are_the_ones_in_use():
    assert task_names() == NAMES


def test_the_worker_defines_every_declared_task_and_no_other(app):
    import workers.tasks  # noqa: F401  (registers the tasks)

    registered = {n for n in app.extensions["celery"].tasks if not n.startswith("celery.")}
    assert registered == NAMES


def test_the_beat_runs_each_features_entries(app):
    schedule = app.extensions["celery"].conf.beat_schedule
    assert {name: (e["task"], e["schedule"]) for name, e in schedule.items()} == {
        "outbox-sweep": ("outbox.sweep", timedelta(seconds=30)),
        "outbox-reconcile": ("outbox.reconcile", timedelta(seconds=60)),
        "moderation-purge-exports": ("moderation.purge_exports", timedelta(hours=1)),
        "prizes-remind-details": ("prizes.remind_details", timedelta(hours=24)),
        "prizes-purge-payee-details": ("prizes.purge_payee_details", timedelta(hours=24)),
        "votes-purge-numbers": ("votes.purge_numbers", timedelta(hours=24)),
    }
    assert beat_schedule({"SOVA_RECONCILE_SECONDS": 15})["outbox-reconcile"]["schedule"] == (
        timedelta(seconds=15)
    )


def test_two_features_declaring_one_beat_entry_is_an_error(monkeypatch):
    from webapp.votes import tasks as votes

    monkeypatch.setitem(votes.BEAT, "prizes-remind-details", votes.BEAT["votes-purge-numbers"])
    with pytest.raises(ValueError, match="prizes-remind-details"):
        beat_schedule({})


def test_every_pending_document_kind_has_its_rendering_task():
    from webapp.core.models import Document
    from webapp.tasks.owed import DOCUMENT_TASKS

    assert {kind: task for kind, (task, _attr) in DOCUMENT_TASKS.items()} == {
        "envelopes": "games.render_envelopes",
        "host_cards": "games.render_envelopes",
        "sector13_card": "games.render_envelopes",
        "gift_agreement": "prizes.issue_agreement",
        "commission_minutes": "prizes.render_minutes",
        "payment_register": "prizes.render_register",
    }
    assert all(hasattr(Document, attr) for _task, attr in DOCUMENT_TASKS.values())
