"""Task names and periodic tasks, declared once by each feature (``webapp/<feature>/tasks.py``)
and by the outbox (``webapp.tasks.outbox``) through ``webapp.tasks.registry``: the worker
defines exactly those, the beat runs the schedule they declare, and the names stay what
in-flight outbox rows hold."""

from __future__ import annotations

from datetime import timedelta

import pytest

from webapp.tasks.registry import beat_schedule, declare, task, task_names

#: The names outbox rows and the reconciliation already use: renaming one would orphan
#: every row queued under the old name.
NAMES = {
    "outbox.sweep",
    "outbox.reconcile",
    "moderation.precheck",
    "moderation.notify_decision",
    "moderation.reindex",
    "moderation.index_questions",
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


def test_a_name_declared_twice_otherwise_is_an_error():
    with pytest.raises(ValueError, match="votes.purge_numbers"):
        declare("votes.purge_numbers", body="workers.prizes", schedule=timedelta(hours=24))
    assert beat_schedule({})["votes-purge-numbers"]["schedule"] == timedelta(hours=24)


def test_a_document_kind_has_one_rendering_task():
    with pytest.raises(ValueError, match="gift_agreement"):
        declare("prizes.render_twice", body="workers.prizes", renders=("gift_agreement",))
    assert "prizes.render_twice" not in task_names()


def test_a_body_registers_only_under_its_declaration():
    with pytest.raises(LookupError, match="prizes.undeclared"):
        task("prizes.undeclared")
    with pytest.raises(ValueError, match="declared with its body in workers.votes"):

        @task("votes.purge_numbers")
        def purge_numbers() -> int:  # pragma: no cover - refused before it is registered
            return 0


def test_every_pending_document_kind_has_its_rendering_task():
    from webapp.core.models import Document
    from webapp.tasks.registry import document_tasks, renderer

    DOCUMENT_TASKS = document_tasks()
    assert {kind: name for kind, (name, _attr) in DOCUMENT_TASKS.items()} == {
        "envelopes": "games.render_envelopes",
        "host_cards": "games.render_envelopes",
        "sector13_card": "games.render_envelopes",
        "gift_agreement": "prizes.issue_agreement",
        "commission_minutes": "prizes.render_minutes",
        "payment_register": "prizes.render_register",
    }
    assert all(hasattr(Document, attr) for _task, attr in DOCUMENT_TASKS.values())
    # the vote's result is rendered from the vote's id, which its Document row does not hold
    assert renderer("vote_result").name == "votes.render_result"
    assert "vote_result" not in DOCUMENT_TASKS
