"""The whole pipeline on SQLite with tasks run in-process (no worker): API and pages."""

from __future__ import annotations

from decimal import Decimal

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


def submit(api, n: int, **extra):
    body = dict(GOOD, **extra)
    body["question"] = f"{GOOD['question']} Вариант номер {n}: {'слово ' * n}"
    body["authors"] = [{"name": f"Автор {n}", "city": "Минск"}]
    body["email"] = f"author{n}@example.com"
    resp = api("post", "/api/v1/submissions", json=body)
    assert resp.status_code == 201, resp.json
    return resp.json


def test_submission_api_creates_question_and_outbox(app, api, drain):
    out = submit(api, 1)
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


def test_full_pipeline_through_api(app, api, drain):
    for n in range(1, 16):
        submit(api, n)
    drain()
    queue = api("get", "/api/v1/questions?status=in_review", role="editor").json
    assert len(queue["items"]) == 15
    for item in queue["items"]:
        r = api("post", f"/api/v1/questions/{item['id']}/decision", role="editor",
                json={"decision": "approve"})
        assert r.status_code == 200 and r.json["status"] == "approved"
    season = api("post", "/api/v1/seasons", role="producer",
                 json={"name": "Сезон 2023", "ruleset": "2023", "currency": "BYN"}).json["id"]
    game = api("post", "/api/v1/games", role="producer", json={
        "season_id": season, "kind": "qualifying", "date": "2023-03-04",
        "table": {"blitz": 4, "superblitz": None, "sector13": None}}).json["id"]
    sectors = api("post", f"/api/v1/games/{game}/assign", role="producer").json["sectors"]
    assert [len(s["question_ids"]) for s in sectors] == [1, 1, 1, 3] + [1] * 9
    events = [
        {"type": "spin", "sector": 1}, {"type": "answer", "correct": False},
        {"type": "spin", "sector": 2}, {"type": "answer", "correct": True},
        {"type": "spin", "sector": 4}, {"type": "answer", "correct": True},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 13}, {"type": "answer", "correct": False},
        {"type": "spin", "sector": 5}, {"type": "answer", "correct": True},
        {"type": "spin", "sector": 6}, {"type": "answer", "correct": False},
        {"type": "spin", "sector": 7}, {"type": "answer", "correct": True},
        {"type": "spin", "sector": 8}, {"type": "answer", "correct": False},
        {"type": "spin", "sector": 9}, {"type": "answer", "correct": False},
    ]
    for ev in events:
        r = api("post", f"/api/v1/games/{game}/events", role="host", json=ev)
        assert r.status_code == 201, (ev, r.json)
    state = r.json["state"]
    assert state["score"] == "3:6" and state["finished"] and state["winner"] == "viewers"
    refused = api("post", f"/api/v1/games/{game}/events", role="host",
                  json={"type": "spin", "sector": 10})
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
