"""Counting one SMS (:func:`receive_sms`): the open vote's cached state, one
``INSERT … SELECT … FOR KEY SHARE … ON CONFLICT DO NOTHING RETURNING`` per message
(batched by :class:`~webapp.votes.group_commit.GroupCommit` on PostgreSQL), the answer for
a resent message."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import current_app
from sqlalchemy import bindparam, literal_column, select, text
from sqlalchemy.exc import IntegrityError

from webapp.core.models import utcnow
from webapp.domain import vote as rules
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.votes.group_commit import GroupCommit
from webapp.votes.models import Vote, VoteMessage
from webapp.votes.operations.common import VoteInputError, msisdn_key

# --- one SMS ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sms:
    """One gateway callback: ``message_id`` (the gateway's id, ≤ 100 chars), ``msisdn``
    (phone number as sent), ``text`` (the SMS), ``received_at`` (aware datetime, the
    gateway's clock)."""

    message_id: str
    msisdn: str
    text: str
    received_at: datetime


#: The open vote as this process last saw it, per database URL: ``(id, opened_at,
#: candidates, region)`` (``region``: where numbers are read, the season's country). Only a
#: vote seen OPEN is remembered, and nothing trusts it blindly: the insert itself re-checks ``status = 'open'`` under the row lock, and a refused insert
#: drops the entry and looks again (so a vote closed — or closed and followed by another —
#: meanwhile is noticed at once). It saves one round trip per message.
_open_cache: dict[str, tuple[int, datetime, list[str], str]] = {}


def forget_open_votes() -> None:
    """Forget the open vote of every database this process saw: for a database replaced
    under the same URL, whose votes the remembered ones are not."""
    _open_cache.clear()


def _latest_vote(conn):
    """``(id, status, opened_at, candidates, currency)`` of the latest vote (the open one,
    if any: a vote opens only when none is open, so the open vote is always the latest)
    and its season's currency, or None."""
    return conn.execute(
        select(Vote.id, Vote.status, Vote.opened_at, Vote.candidates, Season.currency)
        .join(Game, Game.id == Vote.game_id)
        .join(Season, Season.id == Game.season_id)
        .order_by(Vote.id.desc())
        .limit(1)
    ).first()


def _open_state(conn, fresh: bool, seen: list):
    """The open vote's state (remembered unless ``fresh``), or None; a latest vote read
    from the database is appended to ``seen`` (a late message files under it without
    reading it again)."""
    url = str(db.engine.url)
    if not fresh and url in _open_cache:
        return _open_cache[url]
    _open_cache.pop(url, None)
    row = _latest_vote(conn)
    seen.append(row)
    if row is None or row.status != "open":
        return None
    state = (row.id, row.opened_at, list(row.candidates), rules.region_of(row.currency))
    _open_cache[url] = state
    return state


_INSERTS: dict[tuple[str, bool], object] = {}


def _insert_statement(dialect: str, only_if_open: bool):
    """``INSERT INTO vote_message (…) SELECT :params… FROM vote WHERE id = :vote_id [AND
    status = 'open' FOR KEY SHARE] ON CONFLICT DO NOTHING RETURNING id``, built once per
    dialect (constructing it per message cost more than executing it)."""
    stmt = _INSERTS.get((dialect, only_if_open))
    if stmt is not None:
        return stmt
    from sqlalchemy.dialects.postgresql import insert as pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    dialect_insert: Callable[..., Any] = pg_insert if dialect == "postgresql" else sqlite_insert
    cols = {
        "vote_id": bindparam("vote_id", type_=db.Integer),
        "message_id": bindparam("message_id", type_=db.String),
        "msisdn_hash": bindparam("msisdn_hash", type_=db.String),
        "text": bindparam("text", type_=db.String),
        "received_at": bindparam("received_at", type_=VoteMessage.received_at.type),
        "arrived_at": bindparam("arrived_at", type_=VoteMessage.arrived_at.type),
        "result": bindparam("result", type_=db.String),
        "candidate": bindparam("candidate", type_=db.Integer),
    }
    # Core tables, not the ORM entities: the session would take a parameter dict with an
    # ORM insert for a "bulk insert" of its own
    vote, message = Vote.__table__, VoteMessage.__table__
    source = select(*[v.label(k) for k, v in cols.items()]).where(vote.c.id == bindparam("vote_id"))
    if only_if_open:
        source = source.where(vote.c.status == "open").with_for_update(read=True, key_share=True)
    stmt = (
        dialect_insert(message)
        .from_select(list(cols), source)
        .on_conflict_do_nothing()
        .returning(message.c.id)
    )
    _INSERTS[(dialect, only_if_open)] = stmt
    return stmt


def _insert(
    conn,
    vote_id: int,
    sms: Sms,
    key: str,
    now: datetime,
    result: str,
    candidate: int | None,
    only_if_open: bool,
) -> str | None:
    """Insert one log row; returns ``result`` if it was inserted, None if a key refused it
    (the message id is known, or — for ``counted`` — the number has a counted vote) or
    the vote is no longer open (``only_if_open``)."""
    stmt = _insert_statement(db.engine.dialect.name, only_if_open)
    row = conn.execute(
        stmt, {"vote_id": vote_id, **_log_row(sms, key, now, result, candidate)}
    ).first()
    return result if row is not None else None


def _log_row(sms: Sms, key: str, now: datetime, result: str, candidate: int | None) -> dict:
    """The ``vote_message`` columns of one message but its vote (``text`` cut to 500)."""
    return {
        "message_id": sms.message_id,
        "msisdn_hash": key,
        "text": sms.text[:500],
        "received_at": sms.received_at,
        "arrived_at": now,
        "result": result,
        "candidate": candidate,
    }


#: One INSERT for a whole batch of first attempts (PostgreSQL; see ``group_commit``): the
#: same rows, keys and vote-row lock as :func:`_insert_statement`, in the batch's order (a
#: number's first counted vote in the batch wins, the later ones are refused by its key and
#: take the per-message path of :func:`_receive`).
_BATCH_INSERT = text(
    """
    INSERT INTO vote_message
        (vote_id, message_id, msisdn_hash, text, received_at, arrived_at, result, candidate)
    SELECT vote.id, m.message_id, m.msisdn_hash, m.text, m.received_at, m.arrived_at,
           m.result, m.candidate
    FROM vote, unnest(
        CAST(:message_id AS varchar[]), CAST(:msisdn_hash AS varchar[]),
        CAST(:text AS varchar[]), CAST(:received_at AS timestamptz[]),
        CAST(:arrived_at AS timestamptz[]), CAST(:result AS varchar[]),
        CAST(:candidate AS integer[])
    ) WITH ORDINALITY AS m(message_id, msisdn_hash, text, received_at, arrived_at, result,
                           candidate, n)
    WHERE vote.id = :vote_id AND vote.status = 'open'
    ORDER BY m.n
    FOR KEY SHARE OF vote
    ON CONFLICT DO NOTHING
    RETURNING message_id
    """
)


_COLUMNS = ("message_id", "msisdn_hash", "text", "received_at", "arrived_at", "result")


#: One group commit per database (a process may serve several apps: the tests do)
_groups: dict[str, GroupCommit] = {}


def _flush_batch(conn, items: Sequence[tuple[int, dict]]) -> list[bool]:
    """Write ``items`` (``(vote_id, row)``) with one statement per vote (one transaction:
    ``conn`` is in autocommit); returns, per item, whether its row was inserted."""
    inserted: set[tuple[int, str]] = set()
    for vote_id in dict.fromkeys(v for v, _row in items):
        rows = [row for v, row in items if v == vote_id]
        params: dict[str, Any] = {c: [r[c] for r in rows] for c in _COLUMNS}
        params["candidate"] = [r["candidate"] for r in rows]
        params["vote_id"] = vote_id
        inserted.update((vote_id, mid) for mid in conn.execute(_BATCH_INSERT, params).scalars())
    return [(v, row["message_id"]) in inserted for v, row in items]


def _insert_batched(
    conn, vote_id: int, sms: Sms, key: str, now: datetime, result: str, candidate: int | None
) -> str | None:
    """:func:`_insert` (``only_if_open``) through the process's group commit."""
    row = _log_row(sms, key, now, result, candidate)
    group = _groups.setdefault(str(db.engine.url), GroupCommit(max_batch=64))
    done = group.submit((vote_id, row), lambda items: _flush_batch(conn, items))
    return result if done else None


def _known(conn, vote_id: int, message_id: str) -> str | None:
    return conn.execute(
        select(VoteMessage.result).where(
            VoteMessage.vote_id == vote_id, VoteMessage.message_id == message_id
        )
    ).scalar()


def receive_sms(sms: Sms, now: datetime | None = None) -> str:
    """Count one SMS of the gateway; returns ``counted``, ``repeat``, ``invalid`` or
    ``late`` (002_e025d5ded135c1c4.txt §3.1; rules in ``webapp.domain.vote``).

    A resent ``message_id`` (same vote) gets its stored answer and changes nothing. A
    message while no vote is open is filed ``late`` under the latest vote (not stored if no
    vote was ever held). Raises VoteInputError for a phone number that is none (read in
    the vote's season's country, :func:`webapp.domain.vote.e164`).

    "The first" valid message of a number is the gateway's first
    (:func:`webapp.domain.vote.gateway_order`), not Sova's: a valid message that arrives
    after a later one of its number takes the counted vote from it (:func:`_take_over`;
    the later one becomes a repeat), so the log's counts are at every moment a recount of
    what has arrived, in whatever order it arrived.

    On PostgreSQL each statement runs in its own transaction (an autocommit connection):
    the usual path is ONE round trip (the insert), and every statement is atomic and
    idempotent on its own, so no multi-statement transaction is needed (the take-over
    demotes and inserts in one statement). On SQLite the statements run in the
    session's transaction (writers are serialised there anyway) and the caller (the
    request edge) commits.

    Why the PostgreSQL path does not wait for the edge's commit (the one documented
    exception to "one transaction per request, committed by ``webapp.core.edge``"):
    through the session the message would cost a BEGIN, the insert and a COMMIT (psycopg
    sends each on its own) instead of one round trip on the hottest path (the 20 000-message burst, see
    docs/performance-history.md) — and the ``FOR KEY SHARE`` row lock on the vote would be held
    until the edge's commit, so closing would wait for whole requests rather than for one
    statement. Nothing is lost by it: the request writes nothing else, a refused input
    (VoteInputError) is raised before any write, and each insert is its own
    idempotent fact (the message-id key), so a request that fails after it answers the
    same on the gateway's retry.
    """
    now = now or utcnow()
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            return _receive(conn, sms, now)
    return _receive(db.session, sms, now)


def _key(sms: Sms, region: str) -> str:
    """The keyed hash of the message's number read in ``region``; VoteInputError if it is
    no phone number."""
    key = msisdn_key(sms.msisdn, region)
    if key is None:
        raise VoteInputError({"msisdn": ["Не номер телефона."]})
    return key


def _vote_open(conn, vote_id: int) -> bool:
    return conn.execute(select(Vote.status).where(Vote.id == vote_id)).scalar() == "open"


#: The number's counted message, by its key ``uq_vote_counted_msisdn``: ``'counted'`` is
#: written into the statement, not bound, because the partial index serves only a
#: statement that names its predicate — a prepared statement (psycopg prepares what a
#: connection runs often) planned once for any ``result`` could not use it and read the
#: vote's rows instead, ever more of them as the burst goes on
_HOLDER = select(VoteMessage.id, VoteMessage.received_at, VoteMessage.message_id).where(
    VoteMessage.vote_id == bindparam("vote_id"),
    VoteMessage.msisdn_hash == bindparam("key"),
    VoteMessage.result == literal_column(f"'{rules.COUNTED}'"),
)

#: How often one message re-reads its number's counted vote after losing a race for it
#: (each loss means another message of the same number was settled meanwhile).
_SETTLE_TRIES = 50


def _counted_or_repeat(
    conn, vote_id: int, sms: Sms, key: str, now: datetime, candidate: int | None
) -> str | None:
    """Settle a valid message whose number already has a counted vote (its ``counted``
    insert was refused by ``uq_vote_counted_msisdn``): ``counted`` if it comes first in
    the gateway's order (it takes the vote over), else ``repeat``; the stored answer if
    its message id turned up meanwhile; None if the vote is no longer open."""
    mine = rules.gateway_order(sms.received_at, sms.message_id)
    for _ in range(_SETTLE_TRIES):
        holder = conn.execute(_HOLDER, {"vote_id": vote_id, "key": key}).first()
        if holder is None:
            done = _insert(conn, vote_id, sms, key, now, rules.COUNTED, candidate, True)
        elif mine < rules.gateway_order(holder.received_at, holder.message_id):
            done = _take_over(conn, vote_id, holder.id, sms, key, now, candidate)
        else:
            done = _insert(conn, vote_id, sms, key, now, rules.REPEAT, candidate, True)
        if done:
            return done
        known = _known(conn, vote_id, sms.message_id)
        if known:
            return known
        if not _vote_open(conn, vote_id):
            return None
    raise RuntimeError(f"vote {vote_id}: message {sms.message_id!r} not settled")


_DEMOTE = text("UPDATE vote_message SET result = 'repeat' WHERE id = :id AND result = 'counted'")

#: The take-over on PostgreSQL as ONE statement (``conn`` is in autocommit, so one
#: statement is one transaction): lock the vote row ``FOR KEY SHARE`` if it is open (as
#: every insert does, so closing waits for it), demote the holder if it is still counted,
#: and insert this message counted only if the holder was demoted. No ``ON CONFLICT``: a
#: known message id raises, and the whole statement — the demotion with it — is undone.
_TAKE_OVER = text(
    """
    WITH v AS (
        SELECT id FROM vote WHERE id = :vote_id AND status = 'open' FOR KEY SHARE
    ), d AS (
        UPDATE vote_message SET result = 'repeat'
        WHERE id = :holder AND result = 'counted' AND vote_id IN (SELECT id FROM v)
        RETURNING id
    )
    INSERT INTO vote_message
        (vote_id, message_id, msisdn_hash, text, received_at, arrived_at, result, candidate)
    SELECT :vote_id, :message_id, :msisdn_hash, :text, :received_at, :arrived_at,
           'counted', :candidate
    FROM d
    RETURNING id
    """
).bindparams(
    bindparam("received_at", type_=VoteMessage.received_at.type),
    bindparam("arrived_at", type_=VoteMessage.arrived_at.type),
)


def _take_over(
    conn,
    vote_id: int,
    holder_id: int,
    sms: Sms,
    key: str,
    now: datetime,
    candidate: int | None,
) -> str | None:
    """Atomically: the number's counted message ``holder_id`` (later in the gateway's
    order) becomes a repeat and this message is stored counted. Returns ``counted``, or
    None with nothing changed if the vote is not open, the holder was settled meanwhile,
    or the message id is known. PostgreSQL: one statement (:data:`_TAKE_OVER`); SQLite: a
    savepoint of the session's transaction (writers are serialised there)."""
    row = _log_row(sms, key, now, rules.COUNTED, candidate)
    if db.engine.dialect.name == "postgresql":
        params = {k: v for k, v in row.items() if k != "result"}
        try:
            done = conn.execute(_TAKE_OVER, {"vote_id": vote_id, "holder": holder_id, **params})
        except IntegrityError:
            return None
        return rules.COUNTED if done.first() is not None else None
    savepoint = conn.begin_nested()
    if (
        _vote_open(conn, vote_id)
        and conn.execute(_DEMOTE, {"id": holder_id}).rowcount == 1
        and _insert(conn, vote_id, sms, key, now, rules.COUNTED, candidate, True)
    ):
        savepoint.commit()
        return rules.COUNTED
    savepoint.rollback()
    return None


def _receive(conn, sms: Sms, now: datetime) -> str:
    seen: list = []
    for fresh in (False, True):
        state = _open_state(conn, fresh, seen)
        if state is None:
            break
        vote_id, opened_at, candidates, region = state
        key = _key(sms, region)
        if sms.received_at < opened_at:
            break  # sent before the vote opened: late
        candidate = rules.match_candidate(sms.text, candidates)
        result = rules.classify(
            is_open=True, before_open=False, candidate=candidate, already_counted=False
        )
        if (
            not fresh
            and db.engine.dialect.name == "postgresql"
            and current_app.config.get("SOVA_VOTE_GROUP_COMMIT", True)
        ):
            done = _insert_batched(conn, vote_id, sms, key, now, result, candidate)
        else:
            done = _insert(conn, vote_id, sms, key, now, result, candidate, only_if_open=True)
        if done:
            return done
        known = _known(conn, vote_id, sms.message_id)
        if known:
            if fresh or _vote_open(conn, vote_id):
                return known
            continue  # an answer of the vote this process remembered, closed since
        if result == rules.COUNTED:
            # not the message id, so the number's counted vote refused it (unless the vote
            # closed meanwhile: then the settling finds no open vote either)
            done = _counted_or_repeat(conn, vote_id, sms, key, now, candidate)
            if done:
                return done
        # the vote is no longer open: look again (another may have opened since)
    if seen and (seen[-1] is None or seen[-1].status != "open"):
        latest = seen[-1]  # the latest vote as just read: none, or not open
    else:
        latest = _latest_vote(conn)
    key = _key(sms, rules.region_of(latest.currency if latest else None))
    if latest is None:
        return rules.LATE
    done = _insert(conn, latest.id, sms, key, now, rules.LATE, None, only_if_open=False)
    return done or _known(conn, latest.id, sms.message_id) or rules.LATE
