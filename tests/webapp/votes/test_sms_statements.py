"""The SMS callback's statements on PostgreSQL (the broadcast burst's hot path, see
docs/performance.md): a new number's vote is ONE statement (the insert, in autocommit:
no BEGIN, no COMMIT, nothing through the request's session); a repeat, a resent message
and a message after the vote closed cost only the look-ups their answer needs."""

from __future__ import annotations

import pytest

from tests.query_count import statements
from tests.webapp.votes.helpers import close_vote, open_vote

PG = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)


def first_words(sent: list[str]) -> list[str]:
    return [" ".join(s.split()[:3]) for s in sent]


@PG
def test_statements_per_message(app, api, sms, finished_game):
    from webapp.extensions import db

    gid = finished_game()
    open_vote(api, gid)
    assert sms("m0", "+79160000000", "1").json == {"result": "counted"}  # the vote is known
    with statements(db.engine) as sent:
        assert sms("m1", "+79160000001", "2").json == {"result": "counted"}
    assert first_words(sent) == ["INSERT INTO vote_message"]
    with statements(db.engine) as sent:
        assert sms("m2", "+79160000002", "никто").json == {"result": "invalid"}
    assert first_words(sent) == ["INSERT INTO vote_message"]
    # the number's counted vote refuses the insert: not the message id, so the number's
    # holder is read and the repeat filed
    with statements(db.engine) as sent:
        assert sms("m3", "+79160000001", "3").json == {"result": "repeat"}
    assert first_words(sent) == [
        "INSERT INTO vote_message",
        "SELECT vote_message.result FROM",
        "SELECT vote_message.id, vote_message.received_at,",
        "INSERT INTO vote_message",
    ]
    # a resent message id: refused by its key, answered from the log, nothing written
    with statements(db.engine) as sent:
        assert sms("m1", "+79160000001", "2").json == {"result": "counted"}
    assert first_words(sent) == [
        "INSERT INTO vote_message",
        "SELECT vote_message.result FROM",
        "SELECT vote.status FROM",
    ]
    # after the close: the first message finds the remembered vote closed (its inserts
    # refused), reads the latest vote and files the message late under it; the next ones
    # read the latest vote once and file
    close_vote(api, gid)
    with statements(db.engine) as sent:
        assert sms("m4", "+79160000004", "1").json == {"result": "late"}
    assert first_words(sent) == [
        "INSERT INTO vote_message",
        "SELECT vote_message.result FROM",
        "SELECT vote_message.id, vote_message.received_at,",
        "INSERT INTO vote_message",
        "SELECT vote_message.result FROM",
        "SELECT vote.status FROM",
        "SELECT vote.id, vote.status,",
        "INSERT INTO vote_message",
    ]
    with statements(db.engine) as sent:
        assert sms("m5", "+79160000005", "1").json == {"result": "late"}
    assert first_words(sent) == ["SELECT vote.id, vote.status,", "INSERT INTO vote_message"]
