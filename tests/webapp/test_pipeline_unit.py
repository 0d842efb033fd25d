"""The whole pipeline on SQLite with tasks run in-process (no worker): API and pages."""

from __future__ import annotations

from decimal import Decimal

from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ
from tests.helpers import api_game, api_season, submission, submit
from webapp.extensions import db
from webapp.prizes.models import Prize
from webapp.submissions.models import Question

GOOD = {
    "question": "Назовите город, в котором в 1989 году прошёл первый фестиваль «Белые ночи».",
    "answer": "Ленинград",
    "authors": [{"name": "Иван Сапего", "city": "Брест"}],
    "email": "Ivan@Example.com",
    "consent": True,
    "sources": ["https://example.org/a"],
}


def good(n: int) -> dict:
    """``GOOD`` made unique by ``n`` (question text, author, e-mail)."""
    return submission(
        n,
        **{
            **GOOD,
            "question": f"{GOOD['question']} Вариант номер {n}: {'слово ' * n}",
            "authors": [{"name": f"Автор {n}", "city": "Минск"}],
            "email": f"author{n}@example.com",
        },
    )


def test_submission_api_creates_question_and_outbox(app, client, api, drain):
    out = submit(client, good(1))
    q = db.session.get(Question, out["id"])
    assert q.status == "received"
    assert len(out["token"]) >= 32
    assert drain() == ["moderation.precheck", "notify.received"]
    db.session.expire_all()
    assert db.session.get(Question, out["id"]).status == "in_review"
    status = api("get", f"/api/v1/submissions/{out['token']}").json
    assert [h["status"] for h in status["history"]] == ["received", "in_review"]
    assert status["status"] == "in_review"


def test_bad_submission_is_422_and_writes_nothing(app, api):
    resp = api("post", "/api/v1/submissions", json=dict(GOOD, question="", consent=False))
    assert resp.status_code == 422
    assert set(resp.json["errors"]) == {"question", "consent"}
    resp = api("post", "/api/v1/submissions", json=dict(GOOD, question="x" * 3001))
    assert resp.status_code == 422
    assert "3000" in resp.json["errors"]["question"][0]
    resp = api("post", "/api/v1/submissions", json={"question": 5})
    assert resp.status_code == 422
    assert {"answer", "authors", "email", "consent", "question"} <= set(resp.json["errors"])
    assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 0


def test_full_pipeline_through_api(app, client, api, drain):
    for n in range(1, 16):
        submit(client, good(n))
    drain()
    queue = api("get", "/api/v1/questions?status=in_review", role="editor").json
    assert len(queue["items"]) == 15
    for item in queue["items"]:
        r = api(
            "post",
            f"/api/v1/questions/{item['id']}/decision",
            role="editor",
            json={"decision": "approve"},
        )
        assert r.status_code == 200 and r.json["status"] == "approved"
        r = api(
            "post",
            f"/api/v1/questions/{item['id']}/decision",
            role="chief_editor",
            json={"decision": "sign_off"},
        )  # a second editor checked the sources
        assert r.status_code == 200
    season = api_season(api, "Сезон 2023", "2023", currency="BYN")
    table = {"blitz": 4, "superblitz": None, "sector13": None}
    game = api_game(api, season, "2023-03-04", table).json["id"]
    sectors = api("post", f"/api/v1/games/{game}/assign", role="producer").json["sectors"]
    assert [len(s["question_ids"]) for s in sectors] == [1, 1, 1, 3] + [1] * 9
    events = LOSE_3_6_WITH_LOST_BLITZ
    for ev in events:
        r = api("post", f"/api/v1/games/{game}/events", role="host", json=ev)
        assert r.status_code == 201, (ev, r.json)
    state = r.json["state"]
    assert state["score"] == "3:6" and state["finished"] and state["winner"] == "viewers"
    refused = api(
        "post", f"/api/v1/games/{game}/events", role="host", json={"type": "spin", "sector": 10}
    )
    assert refused.status_code == 409
    assert refused.json["error"]["rule"].startswith("000_90d7c8192601ed3a.txt §3.10")
    closed = api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"]
    assert len(closed) == 6
    assert {p["amount"] for p in closed} == {"300.00"}
    again = api("post", f"/api/v1/games/{game}/close", role="producer").json["prizes"]
    assert again == closed
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)) == 6
    amounts = db.session.scalars(db.select(Prize.amount)).all()
    assert all(a == Decimal("300.00") for a in amounts)


def test_unknown_game_and_bad_game_input(app, api):
    assert api("post", "/api/v1/games/999/assign", role="producer").status_code == 404
    assert (
        api(
            "post", "/api/v1/games/999/events", role="host", json={"type": "spin", "sector": 1}
        ).status_code
        == 404
    )
    assert api("post", "/api/v1/games/999/close", role="producer").status_code == 404
    resp = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={"season_id": 999, "kind": "qualifying", "date": "2023-03-04", "table": {}},
    )
    assert resp.status_code == 422 and resp.json["errors"] == {"season_id": ["нет такого сезона"]}
    season = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "Сезон 2009", "ruleset": "2009"}
    ).json["id"]
    resp = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": season,
            "kind": "final",
            "date": "2009-13-01",
            "table": {"blitz": 14, "superblitz": 14},
        },
    )
    assert resp.status_code == 422
    assert {"kind", "date", "table.blitz"} <= set(resp.json["errors"])
    resp = api(  # 1.5 is not season 1: refused, no game created
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": season + 0.5,
            "kind": "qualifying",
            "date": "2009-03-01",
            "table": {"blitz": 7.5},
        },
    )
    assert resp.status_code == 422
    assert {"season_id", "table.blitz"} <= set(resp.json["errors"])
    from webapp.games.models import Game

    assert db.session.scalar(db.select(db.func.count()).select_from(Game)) == 0


def test_wrong_role_and_no_token(app, api):
    assert api("get", "/api/v1/questions").status_code == 401
    assert (
        api("get", "/api/v1/questions", headers={"Authorization": "Bearer nope"}).status_code == 401
    )
    assert api("get", "/api/v1/questions", role="host").status_code == 403
    assert (
        api(
            "post", "/api/v1/seasons", role="editor", json={"name": "x", "ruleset": "2023"}
        ).status_code
        == 403
    )


def test_assign_refuses_a_too_small_pool(app, api):
    season = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "Сезон 2023", "ruleset": "2023"}
    ).json["id"]
    game = api(
        "post",
        "/api/v1/games",
        role="producer",
        json={
            "season_id": season,
            "kind": "qualifying",
            "date": "2023-03-04",
            "table": {"blitz": 4},
        },
    ).json["id"]
    resp = api("post", f"/api/v1/games/{game}/assign", role="producer")
    assert resp.status_code == 409
    assert resp.json["error"]["needed"] == 15 and resp.json["error"]["available"] == 0


def test_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").json
    assert doc["openapi"] == "3.1.0"
    for path in (
        "/api/v1/submissions",
        "/api/v1/submissions/{token}",
        "/api/v1/questions",
        "/api/v1/questions/{question_id}/decision",
        "/api/v1/seasons",
        "/api/v1/games",
        "/api/v1/games/{game_id}/assign",
        "/api/v1/games/{game_id}/envelopes",
        "/api/v1/games/{game_id}/documents",
        "/api/v1/games/{game_id}/events",
        "/api/v1/games/{game_id}",
        "/api/v1/games/{game_id}/close",
        "/api/v1/prizes",
        "/api/v1/documents/{document_id}",
    ):
        assert path in doc["paths"], path
