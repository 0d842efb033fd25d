"""``POST /api/v1/games/{id}/envelopes`` with the number of printed copies (``copies``,
1..20, default 1; each copy its own serial), as the game page prints them."""

from __future__ import annotations

import pytest

from tests.webapp.games import helpers as h
from webapp.games.operations import assign_envelopes
from webapp.games.queries import game_copies

TABLE = {"blitz": 4, "superblitz": None, "sector13": None}


@pytest.fixture
def game(app):
    h.approved_questions(17)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.commit()
    return g


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"copies": 0}, "Целое число от 1 до 20."),
        ({"copies": 21}, "Целое число от 1 до 20."),
        ({"copies": "3"}, "Ожидается целое число."),
        ({"copies": 2.5}, "Ожидается целое число."),
        ({"copies": True}, "Ожидается целое число."),
        ({"copies": None}, "Поле не может быть null."),
    ],
)
def test_bad_copies_are_422_and_print_nothing(game, api, body, message):
    r = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer", json=body)
    assert (r.status_code, r.json) == (422, {"errors": {"copies": [message]}})
    assert game_copies(game.id) == []
    assert game.table_locked_at is None


def test_copies_make_one_serial_per_copy_and_are_fixed_by_the_first_request(game, api):
    r = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer", json={"copies": 3})
    assert r.status_code == 202
    assert r.json["status"] == "queued" and r.json["copies"] == 3
    assert len(r.json["documents"]) == 2
    assert [c.serial for c in game_copies(game.id)] == [
        f"{game.id}-E01",
        f"{game.id}-E02",
        f"{game.id}-E03",
        f"{game.id}-H01",
        f"{game.id}-H02",
        f"{game.id}-H03",
    ]
    again = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer", json={"copies": 5})
    assert (again.status_code, again.json) == (202, r.json)
    assert len(game_copies(game.id)) == 6


def test_without_a_body_one_copy(game, api):
    r = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer")
    assert (r.status_code, r.json["copies"]) == (202, 1)
    assert [c.serial for c in game_copies(game.id)] == [f"{game.id}-E01", f"{game.id}-H01"]


def test_openapi_documents_the_optional_copies(app, client):
    spec = client.get("/api/v1/openapi.json").json
    op = spec["paths"]["/api/v1/games/{game_id}/envelopes"]["post"]
    assert op["requestBody"]["required"] is False
    ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    prop = spec["components"]["schemas"][ref]["properties"]["copies"]
    assert (prop["type"], prop["minimum"], prop["maximum"], prop["default"]) == (
        "integer",
        1,
        20,
        1,
    )
    assert "422" in op["responses"]


def test_asking_again_queues_a_lost_request_only_once_it_is_overdue(game, api):
    """The first request's tasks were handed to the broker and lost (Redis
    restarted empty). Asking again at once queues nothing; once the request is overdue
    (``SOVA_OWED_AFTER_SECONDS``), asking again queues each still-pending document again."""
    from datetime import timedelta

    from webapp.core.models import OutboxMessage, utcnow
    from webapp.extensions import db
    from webapp.tasks.outbox import relay_pending

    def queued():
        return [
            (m.task, m.args)
            for m in db.session.scalars(
                db.select(OutboxMessage)
                .where(OutboxMessage.task == "games.render_envelopes")
                .order_by(OutboxMessage.id)
            )
        ]

    first = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer")
    assert first.status_code == 202
    docs = first.json["documents"]
    assert relay_pending() >= 2  # handed to the broker, which then loses them
    assert api("post", f"/api/v1/games/{game.id}/envelopes", role="producer").status_code == 202
    assert queued() == [("games.render_envelopes", [d]) for d in docs]
    db.session.execute(db.update(OutboxMessage).values(sent_at=utcnow() - timedelta(minutes=11)))
    db.session.commit()
    again = api("post", f"/api/v1/games/{game.id}/envelopes", role="producer")
    assert (again.status_code, again.json) == (202, first.json)
    assert queued() == [("games.render_envelopes", [d]) for d in docs * 2]
