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


@PG
def test_the_numbers_counted_message_is_read_by_its_key_at_any_size(app, api, sms, finished_game):
    """A repeat reads its number's counted message through ``uq_vote_counted_msisdn``, as a
    one-off statement and as the generic plan of a prepared one (psycopg prepares what a
    connection runs often), with 20 000 counted rows and no statistics yet (a vote in its
    burst): not through the tally index, which would visit every counted row of the vote."""
    from sqlalchemy import text

    from webapp.extensions import db
    from webapp.votes.operations.common import msisdn_key

    vote_id = open_vote(api, finished_game()).json["vote"]["id"]
    with db.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO vote_message (vote_id, message_id, msisdn_hash, text, received_at,"
                " arrived_at, result, candidate) SELECT :v, 'bulk-' || g, md5(g::text), '1',"
                " now(), now(), 'counted', 1 + g % 3 FROM generate_series(1, 20000) g"
            ),
            {"v": vote_id},
        )
    assert sms("m1", "+79160000001", "2").json == {"result": "counted"}
    with statements(db.engine) as sent:
        assert sms("m2", "+79160000001", "2").json == {"result": "repeat"}
    (holder,) = [s for s in sent if s.startswith("SELECT vote_message.id")]
    key = msisdn_key("+79160000001")
    with db.engine.connect() as conn:
        reltuples = text("SELECT reltuples FROM pg_class WHERE relname = 'vote_message'")
        assert conn.execute(reltuples).scalar() < 0  # never analysed nor vacuumed
        once = list(
            conn.exec_driver_sql(f"EXPLAIN {holder}", {"vote_id": vote_id, "key": key}).scalars()
        )
        generic_sql = holder.replace("%(vote_id)s", "$1").replace("%(key)s", "$2")
        conn.execute(text("SET plan_cache_mode = force_generic_plan"))
        conn.exec_driver_sql(f"PREPARE holder(integer, varchar) AS {generic_sql}")
        # a utility statement takes no parameters: the arguments written in (an int, a hex key)
        assert key.isalnum()
        args = f"{vote_id:d}, '{key}'"
        generic = list(conn.exec_driver_sql(f"EXPLAIN EXECUTE holder({args})").scalars())
        for plan in (once, generic):
            assert "Index Scan using uq_vote_counted_msisdn on vote_message" in plan[0], plan
            assert not any("ix_vote_message_tally" in line for line in plan), plan
        row = conn.exec_driver_sql(f"EXECUTE holder({args})").one()
        assert row.message_id == "m1"


def test_the_tally_index_keys_and_the_migration_down_and_up(app):
    """Migration 0047: the tally index is keyed by ``(vote_id, candidate)``, ``result``
    included (PostgreSQL); down gives back ``(vote_id, result, candidate)``."""
    from flask_migrate import downgrade, upgrade

    from webapp.extensions import db

    def tally_index() -> tuple[list, list]:
        db.session.remove()
        (ix,) = [
            ix
            for ix in db.inspect(db.engine).get_indexes("vote_message")
            if ix["name"] == "ix_vote_message_tally"
        ]
        return ix["column_names"], ix.get("dialect_options", {}).get("postgresql_include", [])

    postgresql = db.engine.dialect.name == "postgresql"
    assert tally_index() == (["vote_id", "candidate"], ["result"] if postgresql else [])
    downgrade(revision="0046_statistics_by_month")
    assert tally_index() == (["vote_id", "result", "candidate"], [])
    upgrade(revision="heads")
    assert tally_index() == (["vote_id", "candidate"], ["result"] if postgresql else [])
