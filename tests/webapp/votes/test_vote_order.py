"""The vote is exact in a way anyone can check (contracts/api.md, 2009 §3.1): "the first
vote of a number" is the gateway's first (``received_at``, then ``message_id``), and numbers
are one voter in any spelling — so the same messages delivered in two shuffled orders from
16 threads close with the same tally, equal to a recount of the gateway's own log. On
SQLite and on PostgreSQL (where the 16 requests really run at once)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from tests.webapp.votes.helpers import EXPERTS, close_vote, open_vote, sign

SPELLINGS = ("+7 916 {a} {b}-{c}", "8916{a}{b}{c}", "916{a}{b}{c}", "007 916 {a} {b} {c}")


def gateway_log(seed: int = 11) -> list[dict]:
    """The gateway's log: 60 numbers with 1–4 messages each (a number in several
    spellings, texts naming one of the six candidates or none), times an hour ahead of
    now, a fifth of them at an instant another message shares (the message id decides)."""
    rng = random.Random(seed)
    base = datetime.now(UTC) + timedelta(hours=1)
    instants = [base + timedelta(milliseconds=rng.randrange(0, 60_000)) for _ in range(40)]
    log = []
    for i in range(60):
        a, b, c = f"{100 + i:03d}", f"{rng.randrange(100):02d}", f"{rng.randrange(100):02d}"
        for j in range(rng.randint(1, 4)):
            at = (
                rng.choice(instants)
                if rng.random() < 0.2
                else instants[0] + timedelta(microseconds=rng.randrange(10**8))
            )
            text = rng.choice(["1", "2", "3", "4", "5", "6", "Друзь", "7", "Поташёв"])
            log.append(
                {
                    "message_id": f"g{rng.randrange(10**6):06d}-{i}-{j}",
                    "msisdn": rng.choice(SPELLINGS).format(a=a, b=b, c=c),
                    "text": text,
                    "received_at": at,
                }
            )
    return log


def body(msg: dict) -> bytes:
    import json

    return json.dumps(
        {**msg, "received_at": msg["received_at"].isoformat()}, ensure_ascii=False
    ).encode()


def deliver(app, messages: list[dict]) -> None:
    """Send ``messages`` from 16 threads (each its own client), every answer a 200."""

    def post(msg):
        resp = app.test_client().post(
            "/api/v1/votes/sms",
            data=body(msg),
            content_type="application/json",
            headers={"X-Sova-Signature": sign(body(msg))},
        )
        assert resp.status_code == 200, resp.data
        return resp.json["result"]

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(post, messages))


def test_two_shuffled_deliveries_close_with_the_gateway_s_recount(app, api, finished_game):
    from webapp.domain import vote as rules
    from webapp.extensions import db
    from webapp.votes.models import Vote, VoteMessage

    log = gateway_log()
    recount = rules.tally(
        EXPERTS,
        [{**m, "msisdn": rules.e164(m["msisdn"], "RU")} for m in log],
        opened_at=datetime.now(UTC),
    )
    # one counted vote per voter with a valid message, whatever the spellings
    voters = {
        m["message_id"].split("-")[1] for m in log if recount.answers[m["message_id"]] != "invalid"
    }
    assert recount.counted == len(voters)
    assert recount.repeats > 20 and recount.invalid > 5  # the log exercises every rule
    frozen, stored = [], []
    for day, seed in ((1, 1), (2, 2)):
        gid = finished_game(day=day)
        assert open_vote(api, gid).status_code == 200
        order = log + random.Random(seed).sample(log, 15)  # some resent as well
        random.Random(seed).shuffle(order)
        deliver(app, order)
        closed = close_vote(api, gid).json["vote"]
        db.session.rollback()
        vote = db.session.get(Vote, closed["id"])
        frozen.append((vote.votes, vote.counted, vote.repeats, vote.invalid, vote.late))
        stored.append(
            dict(
                db.session.execute(
                    db.select(VoteMessage.message_id, VoteMessage.result).where(
                        VoteMessage.vote_id == vote.id
                    )
                ).all()
            )
        )
    expected = (
        {str(n): recount.votes.get(n, 0) for n in range(1, 7)},
        recount.counted,
        recount.repeats,
        recount.invalid,
        0,
    )
    assert frozen[0] == frozen[1] == expected
    assert stored[0] == stored[1] == recount.answers
