"""The 2009 §3.1 audience vote through the API (contracts/api.md), on SQLite and on
PostgreSQL: exact answers and counts for every rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.webapp.votes.helpers import EXPERTS, close_vote, open_vote, sign, sms_body


def tally(api, game_id, role="producer"):
    resp = api("get", f"/api/v1/games/{game_id}/vote", role=role)
    assert resp.status_code == 200, resp.json
    return resp.json["vote"]


def counts(vote):
    return (
        [c["votes"] for c in vote["candidates"]],
        vote["counted"],
        vote["repeats"],
        vote["invalid"],
        vote["late"],
    )


def test_every_rule_exact(app, api, sms, finished_game):
    gid = finished_game()
    resp = open_vote(api, gid)
    assert resp.status_code == 200, resp.json
    vote = resp.json["vote"]
    assert vote["status"] == "open"
    assert [(c["n"], c["name"]) for c in vote["candidates"]] == list(enumerate(EXPERTS, 1))

    answers = [
        sms("m1", "+7 916 000-00-01", "3").json["result"],  # first vote counts
        sms("m2", "89160000001", "1").json["result"],  # same number: repeat
        sms("m3", "+79160000002", "Друзь").json["result"],  # two Друзь: invalid
        sms("m4", "+79160000002", "инна  ДРУЗЬ").json["result"],  # then valid: counted
        sms("m5", "+79160000003", "7").json["result"],  # no candidate 7: invalid
        sms("m6", "+79160000003", "").json["result"],  # empty: invalid
        sms("m7", "+79160000004", "Поташев").json["result"],  # ё folded: counted
        sms("m8", "+79160000004", "Поташёв").json["result"],  # repeat
        sms("m1", "+7 916 000-00-01", "3").json["result"],  # resent: same answer
        sms("m1", "+7 916 000-00-01", "5").json["result"],  # resent, other text
        sms("m3", "+79160000002", "Друзь").json["result"],  # resent invalid
    ]
    assert answers == [
        "counted",
        "repeat",
        "invalid",
        "counted",
        "invalid",
        "invalid",
        "counted",
        "repeat",
        "counted",
        "counted",
        "invalid",
    ]
    vote = tally(api, gid)
    assert counts(vote) == ([0, 1, 1, 0, 1, 0], 3, 2, 3, 0)
    assert tally(api, gid, role="host")["counted"] == 3


def test_nothing_is_stored_in_clear(app, api, sms, finished_game):
    from webapp.extensions import db
    from webapp.votes.models import VoteMessage

    gid = finished_game()
    open_vote(api, gid)
    assert sms("x1", "+7 916 555-44-33", "2").json["result"] == "counted"
    row = db.session.scalar(db.select(VoteMessage))
    assert "5554433" not in repr(row.__dict__) and len(row.msisdn_hash) == 64


def test_signature(app, client, api, sms, finished_game):
    from webapp.extensions import db
    from webapp.votes.models import VoteMessage

    gid = finished_game()
    open_vote(api, gid)
    body = sms_body("f1", "+79160000009", "1")
    forged = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(body, "not-the-secret")},
    )
    assert forged.status_code == 401
    missing = client.post("/api/v1/votes/sms", data=body, content_type="application/json")
    assert missing.status_code == 401
    # a valid signature of another body does not pass either
    other = sms_body("f1", "+79160000009", "2")
    swapped = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(other)},
    )
    assert swapped.status_code == 401
    assert db.session.scalar(db.select(db.func.count()).select_from(VoteMessage)) == 0
    # the right signature (upper-case hex too) passes
    ok = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(body).upper()},
    )
    assert ok.status_code == 200 and ok.json == {"result": "counted"}


def test_no_secret_configured_is_503(make_app):
    app = make_app(WTF_CSRF_ENABLED=False)
    body = sms_body("z1", "+79160000009", "1")
    resp = app.test_client().post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(body)},
    )
    assert resp.status_code == 503


def test_bad_body_is_422_after_signature(app, client, finished_game, api):
    body = b'{"message_id": "", "msisdn": "+7916", "text": "1"}'
    resp = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(body)},
    )
    assert resp.status_code == 422
    assert set(resp.json["errors"]) == {"message_id", "received_at"}
    body = sms_body("n1", "not a phone", "1")
    resp = client.post(
        "/api/v1/votes/sms",
        data=body,
        content_type="application/json",
        headers={"X-Sova-Signature": sign(body)},
    )
    assert resp.status_code == 422 and set(resp.json["errors"]) == {"msisdn"}


def test_late_and_window(app, api, sms, finished_game):
    gid = finished_game()
    # before any vote: late, nothing to file it under
    assert sms("early", "+79160000001", "1").json["result"] == "late"
    resp = open_vote(api, gid)
    opened = datetime.fromisoformat(resp.json["vote"]["opened_at"])
    # sent before the vote opened (gateway's clock), delivered now: late
    assert (
        sms("w1", "+79160000001", "1", received_at=opened - timedelta(seconds=5)).json["result"]
        == "late"
    )
    # the same number may still vote in the window
    assert sms("w2", "+79160000001", "1").json["result"] == "counted"
    assert close_vote(api, gid).status_code == 200
    # after closing: late, and a resent counted message keeps its answer
    assert sms("w3", "+79160000002", "1").json["result"] == "late"
    assert sms("w2", "+79160000001", "1").json["result"] == "counted"
    assert sms("w3", "+79160000002", "1").json["result"] == "late"
    vote = tally(api, gid)
    assert vote["status"] == "closed"
    assert counts(vote) == ([1, 0, 0, 0, 0, 0], 1, 0, 0, 2)


def test_open_close_rules(app, api, finished_game):
    g1, g2 = finished_game(day=1), finished_game(day=2)
    live = finished_game(day=3, status="live")
    g2023 = finished_game("2023", day=4)
    assert open_vote(api, live).json["error"]["message"] == (
        "голосование открывается, когда игра окончена"
    )
    resp = open_vote(api, g2023)
    assert resp.status_code == 409
    assert resp.json["error"]["rule"] == "002_e025d5ded135c1c4.txt §3.1"
    assert close_vote(api, g1).status_code == 409  # no vote yet
    assert open_vote(api, g1, ["Анна", "Борис"]).status_code == 200
    again = open_vote(api, g1, role="producer")  # idempotent
    assert again.status_code == 200
    assert [c["name"] for c in again.json["vote"]["candidates"]] == ["Анна", "Борис"]
    other = open_vote(api, g2)  # one vote open at a time
    assert other.status_code == 409
    assert "одновременно может идти только одно" in other.json["error"]["message"]
    first = close_vote(api, g1).json["vote"]
    second = close_vote(api, g1).json["vote"]  # closing twice: same vote
    assert first == second and first["status"] == "closed"
    assert open_vote(api, g1).status_code == 409  # held already
    assert open_vote(api, g2).status_code == 200  # now g2 may open
    assert open_vote(api, 999999).status_code == 404
    assert api("get", f"/api/v1/games/{g1 + 1000}/vote", role="host").status_code == 404


def test_candidates_must_be_distinct(app, api, finished_game):
    gid = finished_game()
    resp = open_vote(api, gid, ["Анна", "АННА"])
    assert resp.status_code == 422 and "candidates" in resp.json["errors"]


def test_roles(app, api, finished_game):
    gid = finished_game()
    for role in ("editor", "accountant", "chief_editor"):
        assert open_vote(api, gid, role=role).status_code == 403
    assert api("post", f"/api/v1/games/{gid}/vote", json={"action": "open"}).status_code == 401


def test_openapi_documents_the_vote(app, client):
    spec = client.get("/api/v1/openapi.json").json
    assert {"post"} <= set(spec["paths"]["/api/v1/votes/sms"])
    assert {"get", "post"} <= set(spec["paths"]["/api/v1/games/{game_id}/vote"])
    params = spec["paths"]["/api/v1/votes/sms"]["post"]["parameters"]
    assert any(p["name"] == "X-Sova-Signature" for p in params)


def test_close_freezes_result_and_log_digest(app, api, sms, finished_game):
    import hashlib

    from webapp.extensions import db
    from webapp.votes.models import Vote
    from webapp.votes.operations import log_lines

    gid = finished_game()
    open_vote(api, gid)
    for i in range(5):
        sms(f"c{i}", f"+7916000010{i}", "3" if i < 3 else "Овдеенко")
    sms("r", "+79160000100", "2")
    vote = close_vote(api, gid).json["vote"]
    assert vote["winner"] == 3
    row = db.session.get(Vote, vote["id"])
    assert (row.counted, row.repeats, row.invalid, row.late) == (5, 1, 0, 0)
    assert row.votes == {"1": 0, "2": 0, "3": 3, "4": 0, "5": 0, "6": 2}
    lines = list(log_lines(row))
    assert len(lines) == 6
    assert (
        row.log_sha256
        == vote["log_sha256"]
        == hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    )
    assert vote["document"]["status"] == "pending"


def test_purge_after_retention(app, api, sms, finished_game):
    from webapp.extensions import db
    from webapp.tasks.outbox import commit
    from webapp.votes.models import Vote, VoteMessage
    from webapp.votes.operations import purge_numbers

    gid = finished_game()
    open_vote(api, gid)
    sms("p1", "+79160000001", "1")
    vote_id = close_vote(api, gid).json["vote"]["id"]
    vote = db.session.get(Vote, vote_id)
    assert purge_numbers(vote.purge_after - timedelta(seconds=1)) == 0
    assert purge_numbers(vote.purge_after + timedelta(seconds=1)) == 1
    commit()
    assert db.session.scalars(db.select(VoteMessage.msisdn_hash)).all() == [None]
    assert purge_numbers(datetime.now(UTC) + timedelta(days=365)) == 0
    assert tally(api, gid)["counted"] == 1


@pytest.mark.parametrize("secret_env", ["", "x"])
def test_config_default(monkeypatch, make_app, secret_env):
    monkeypatch.setenv("SOVA_SMS_SECRET", secret_env)
    app = make_app()
    assert app.config["SOVA_SMS_SECRET"] == (secret_env or None)
    assert app.config["SOVA_VOTE_RETENTION_DAYS"] == 30


def test_two_opens_at_once_one_wins(app, api, finished_game):
    """The partial unique index admits one open vote even when the application check is
    passed by two requests at the same moment (simulated: the check sees none)."""
    from webapp.extensions import db
    from webapp.games.models import Game
    from webapp.votes import operations as ops
    from webapp.votes.models import Vote

    g1, g2 = finished_game(day=1), finished_game(day=2)
    assert open_vote(api, g1).status_code == 200
    real_scalar = db.session.scalar
    calls = {"n": 0}

    def blind_first(stmt, *a, **kw):  # the first look-up ("a vote open?") sees none
        calls["n"] += 1
        return None if calls["n"] == 1 else real_scalar(stmt, *a, **kw)

    db.session.scalar = blind_first
    try:
        with pytest.raises(ops.VoteError, match="одновременно может идти только одно"):
            ops.open_vote(db.session.get(Game, g2), None)
    finally:
        db.session.scalar = real_scalar
    db.session.rollback()
    assert db.session.scalar(db.select(db.func.count()).select_from(Vote)) == 1
