"""Writes of the 2009 §3.1 audience vote: open, close, one SMS, the award decision, the
purge of phone-number hashes. Operations flush; the caller commits (one commit per request
or task, ``webapp.jobs.commit``).

Counting one SMS (:func:`receive_sms`) takes no lock in Python and needs no read-modify-
write: the answer is decided by ``webapp.domain.vote`` and made true by the database keys
(see ``webapp.votes.models``): an ``INSERT … SELECT … FROM vote WHERE status = 'open'
FOR KEY SHARE … ON CONFLICT DO NOTHING RETURNING``. The ``FOR KEY SHARE`` lock (PostgreSQL;
SQLite serialises writers anyway) makes closing wait for the inserts in flight and makes
the inserts that come after see the vote closed, so the frozen result equals the log.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import func, insert, literal, select, update

from webapp.core.crypto import lookup_hash
from webapp.core.models import Document, utcnow
from webapp.domain import vote as rules
from webapp.extensions import db
from webapp.games.models import Game
from webapp.jobs import enqueue
from webapp.votes.models import Vote, VoteAward, VoteMessage

RESULT_DOCUMENT = "vote_result"


class VoteError(Exception):
    """A refusal (409): ``message`` in Russian, ``rule`` the clause or None."""

    def __init__(self, message: str, rule: str | None = rules.RULE):
        super().__init__(message)
        self.message = message
        self.rule = rule

    @property
    def error(self) -> dict:
        return {"message": self.message, "rule": self.rule}


class VoteInputError(Exception):
    """Invalid input (422): ``errors`` ``{field: [message]}``."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(str(errors))
        self.errors = errors


# --- the gateway's signature --------------------------------------------------------------

class SignatureUnavailable(Exception):
    """``SOVA_SMS_SECRET`` is not set: the callback is off (503)."""


def signature_ok(body: bytes, signature: str | None) -> bool:
    """True if ``signature`` is the hex HMAC-SHA256 of the raw request ``body`` under
    ``SOVA_SMS_SECRET`` (compared in constant time, ``hmac.compare_digest``). Raises
    SignatureUnavailable when no secret is configured."""
    secret = current_app.config.get("SOVA_SMS_SECRET")
    if not secret:
        raise SignatureUnavailable()
    expected = hmac.new(secret.encode(), body, "sha256").hexdigest()
    return hmac.compare_digest(expected, (signature or "").strip().lower())


def msisdn_key(msisdn: str) -> str | None:
    """Keyed hash (hex) of the normalised phone number, never the number itself; None if
    it is no phone number (:func:`webapp.domain.vote.normalise_msisdn`)."""
    number = rules.normalise_msisdn(msisdn)
    return lookup_hash(f"msisdn:{number}") if number else None


# --- open and close -----------------------------------------------------------------------

def open_vote(game: Game, user_id: int | None, candidates: list[str] | None = None,
              now: datetime | None = None) -> Vote:
    """Open the §3.1 vote of ``game`` (a finished 2009 game) with ``candidates`` (names,
    numbered 1..N in order; default the game team's experts). Idempotent for the game's
    open vote. Raises VoteError (409) for another rule set, an unfinished game, a vote of
    this game already held, or another game's vote open; VoteInputError (422) for no
    candidates or two that fold alike."""
    current = db.session.scalar(select(Vote).where(Vote.status == "open"))
    if current is not None and current.game_id == game.id:
        return current
    if game.season.ruleset != "2009":
        raise VoteError("зрительское голосование за лучшего игрока есть только в правилах "
                        "2009 года")
    if game.status not in ("finished", "closed"):
        raise VoteError("голосование открывается, когда игра окончена")
    if db.session.scalar(select(Vote.id).where(Vote.game_id == game.id)) is not None:
        raise VoteError("голосование этой игры уже проведено")
    if current is not None:
        raise VoteError(f"открыто голосование другой игры (№ {current.game_id}): "
                        "одновременно может идти только одно", None)
    if candidates is None or not [c for c in candidates if str(c).strip()]:
        candidates = list(game.team_row.experts) if game.team_row else []
    try:
        names = rules.candidate_names(candidates)
    except rules.VoteRuleError as exc:
        raise VoteInputError({"candidates": [exc.message]}) from exc
    vote = Vote(game_id=game.id, status="open", candidates=names, opened_at=now or utcnow(),
                opened_by=user_id)
    db.session.add(vote)
    db.session.flush()
    return vote


def _lock(vote_id: int) -> Vote:
    """The vote row, locked ``FOR UPDATE`` (waits for the SMS inserts in flight)."""
    return db.session.scalar(select(Vote).where(Vote.id == vote_id)
                             .with_for_update().execution_options(populate_existing=True))


def close_vote(game: Game, user_id: int | None, now: datetime | None = None) -> Vote:
    """Close the open vote of ``game``: freeze the counts, the winner and the SHA-256 of the
    log, set the retention deadline and queue the signed result PDF (``votes.render_result``,
    Document kind ``vote_result``). Closing a closed vote returns it unchanged. Raises
    VoteError if the game never had a vote."""
    vote = db.session.scalar(select(Vote).where(Vote.game_id == game.id)
                             .order_by(Vote.id.desc()))
    if vote is None:
        raise VoteError("у этой игры нет голосования", None)
    vote = _lock(vote.id)
    if vote.status == "closed":
        return vote
    now = now or utcnow()
    vote.status, vote.closed_at, vote.closed_by = "closed", now, user_id
    db.session.flush()
    counts = live_counts(vote)
    vote.votes = {str(c["n"]): c["votes"] for c in counts["candidates"]}
    vote.counted, vote.repeats = counts["counted"], counts["repeats"]
    vote.invalid, vote.late = counts["invalid"], counts["late"]
    vote.winner = rules.winner({c["n"]: c["votes"] for c in counts["candidates"]})
    vote.log_sha256 = rules.log_digest(log_lines(vote))
    days = int(current_app.config.get("SOVA_VOTE_RETENTION_DAYS", 30))
    vote.purge_after = now + timedelta(days=days)
    doc = Document(key=f"{RESULT_DOCUMENT}:vote:{vote.id}:v1", kind=RESULT_DOCUMENT,
                   game_id=game.id, version=1, status="pending")
    db.session.add(doc)
    db.session.flush()
    vote.document_id = doc.id
    enqueue("votes.render_result", vote.id)
    db.session.flush()
    return vote


# --- counts and the log -------------------------------------------------------------------

def live_counts(vote: Vote) -> dict:
    """The contract's counts of ``vote`` from its log (one GROUP BY on the tally index):
    ``{candidates: [{n, name, votes}], counted, repeats, invalid, late}``."""
    rows = db.session.execute(
        select(VoteMessage.result, VoteMessage.candidate, func.count())
        .where(VoteMessage.vote_id == vote.id)
        .group_by(VoteMessage.result, VoteMessage.candidate)).all()
    t = rules.Tally(list(vote.candidates))
    for result, candidate, n in rows:
        if result == rules.COUNTED:
            t.votes[candidate] = t.votes.get(candidate, 0) + n
        elif result == rules.REPEAT:
            t.repeats += n
        elif result == rules.INVALID:
            t.invalid += n
        else:
            t.late += n
    return t.as_json()


def _iso(at: datetime | None) -> str | None:
    return at.isoformat() if at is not None else None


def log_lines(vote: Vote, batch: int = 5000):
    """The vote log in arrival order (``id``), as :func:`webapp.domain.vote.log_line`
    strings; streamed in batches of ``batch`` rows."""
    last = 0
    seq = 0
    while True:
        rows = db.session.execute(
            select(VoteMessage.id, VoteMessage.message_id, VoteMessage.msisdn_hash,
                   VoteMessage.text, VoteMessage.received_at, VoteMessage.arrived_at,
                   VoteMessage.result, VoteMessage.candidate)
            .where(VoteMessage.vote_id == vote.id, VoteMessage.id > last)
            .order_by(VoteMessage.id).limit(batch)).all()
        if not rows:
            return
        for r in rows:
            seq += 1
            yield rules.log_line(seq, r.message_id, r.msisdn_hash or "", r.text,
                                 _iso(r.received_at), _iso(r.arrived_at), r.result,
                                 r.candidate)
        last = rows[-1].id


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


_candidates_cache: dict[tuple[int, datetime], list[str]] = {}


def _latest_vote():
    """``(id, status, opened_at)`` of the latest vote (the open one, if any: a vote opens
    only when none is open, so the open vote is always the latest), or None."""
    return db.session.execute(
        select(Vote.id, Vote.status, Vote.opened_at).order_by(Vote.id.desc()).limit(1)).first()


def _candidates(vote_id: int, opened_at: datetime) -> list[str]:
    """A vote's candidates (fixed once it is open; cached per process by id and opening
    time, so a recreated database with the same ids cannot hit a stale entry)."""
    names = _candidates_cache.get((vote_id, opened_at))
    if names is None:
        names = list(db.session.scalar(select(Vote.candidates).where(Vote.id == vote_id)))
        if len(_candidates_cache) > 64:
            _candidates_cache.clear()
        _candidates_cache[(vote_id, opened_at)] = names
    return names


def _insert(vote_id: int, sms: Sms, key: str, now: datetime, result: str,
            candidate: int | None, only_if_open: bool) -> str | None:
    """Insert one log row; returns ``result`` if it was inserted, None if a key refused it
    (the message id is known, or — for ``counted`` — the number has a counted vote) or
    the vote is no longer open (``only_if_open``)."""
    cols = {"vote_id": literal(vote_id), "message_id": literal(sms.message_id),
            "msisdn_hash": literal(key), "text": literal(sms.text[:500]),
            "received_at": literal(sms.received_at, VoteMessage.received_at.type),
            "arrived_at": literal(now, VoteMessage.arrived_at.type),
            "result": literal(result), "candidate": literal(candidate, db.Integer)}
    source = select(*[v.label(k) for k, v in cols.items()]).where(Vote.id == vote_id)
    if only_if_open:
        source = source.where(Vote.status == "open").with_for_update(read=True, key_share=True)
    dialect = db.engine.dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    stmt = (dialect_insert(VoteMessage).from_select(list(cols), source)
            .on_conflict_do_nothing().returning(VoteMessage.id))
    if dialect not in ("postgresql", "sqlite"):  # pragma: no cover - other databases
        stmt = insert(VoteMessage).from_select(list(cols), source)
    return result if db.session.execute(stmt).first() is not None else None


def _known(vote_id: int, message_id: str) -> str | None:
    return db.session.scalar(select(VoteMessage.result).where(
        VoteMessage.vote_id == vote_id, VoteMessage.message_id == message_id))


def receive_sms(sms: Sms, now: datetime | None = None) -> str:
    """Count one SMS of the gateway; returns ``counted``, ``repeat``, ``invalid`` or
    ``late`` (002_e025d5ded135c1c4.txt §3.1; rules in ``webapp.domain.vote``).

    A resent ``message_id`` (same vote) gets its stored answer and changes nothing. A
    message while no vote is open is filed ``late`` under the latest vote (not stored if no
    vote was ever held). Raises VoteInputError for a phone number that is none.
    """
    key = msisdn_key(sms.msisdn)
    if key is None:
        raise VoteInputError({"msisdn": ["Не номер телефона."]})
    now = now or utcnow()
    latest = _latest_vote()
    if latest is None:
        return rules.LATE
    vote_id = latest.id
    if latest.status == "open":
        candidate = rules.match_candidate(sms.text, _candidates(vote_id, latest.opened_at))
        result = rules.classify(is_open=True, before_open=sms.received_at < latest.opened_at,
                                candidate=candidate, already_counted=False)
        if result != rules.LATE:
            done = _insert(vote_id, sms, key, now, result, candidate, only_if_open=True)
            if done:
                return done
            known = _known(vote_id, sms.message_id)
            if known:
                return known
            if result == rules.COUNTED:
                # not the message id, so the number's counted vote refused it (unless the
                # vote closed meanwhile: then the insert finds no open vote either)
                done = _insert(vote_id, sms, key, now, rules.REPEAT, candidate,
                               only_if_open=True)
                if done:
                    return done
                known = _known(vote_id, sms.message_id)
                if known:
                    return known
        else:
            candidate = None
    # late: no vote open (or it closed while we tried), or sent before it opened
    done = _insert(vote_id, sms, key, now, rules.LATE, None, only_if_open=False)
    return done or _known(vote_id, sms.message_id) or rules.LATE


# --- the award and the purge --------------------------------------------------------------

def record_award(vote: Vote, chosen: str, reason: str, user_id: int | None) -> VoteAward:
    """Record the §3.1 best player of the vote's game: the vote's winner, or — «в отдельных
    случаях» — another candidate chosen by the sponsor's representative with a ``reason``.
    Awards the prize (``webapp.prizes.operations.award_prize``, kind
    ``best_player_of_game``) and keeps the decision (VoteAward: who, when, winner, chosen,
    reason). Raises VoteError for an open vote, a choice the rules refuse or a prize
    refusal; nothing is written then."""
    from webapp.prizes.operations import PrizeError, award_prize

    if vote.status != "closed":
        raise VoteError("сначала закройте голосование")
    try:
        name, overridden = rules.award_choice(vote.candidates, vote.winner, chosen, reason)
    except rules.VoteRuleError as exc:
        raise VoteError(exc.message, exc.rule) from exc
    game = db.session.get(Game, vote.game_id)
    try:
        made = award_prize(game, "best_player_of_game", user_id, recipient=name,
                           team=list(vote.candidates))
    except PrizeError as exc:
        raise VoteError(exc.message, exc.rule) from exc
    prize = made[0] if made else None
    existing = db.session.scalar(select(VoteAward).where(VoteAward.vote_id == vote.id,
                                                         VoteAward.chosen_name == name))
    if existing is not None:
        return existing
    row = VoteAward(vote_id=vote.id, prize_id=prize.id if prize else None,
                    winner_name=vote.candidates[vote.winner - 1] if vote.winner else None,
                    chosen_name=name, overridden=overridden, reason=(reason or "").strip(),
                    by_user_id=user_id, at=utcnow())
    db.session.add(row)
    db.session.flush()
    return row


def purge_numbers(now: datetime | None = None) -> int:
    """Delete the phone-number hashes of every closed vote past ``purge_after`` (the beat
    task ``votes.purge_numbers``). Returns how many votes were purged. The counts, the log's
    recorded SHA-256 and the result document stay."""
    now = now or utcnow()
    ids = list(db.session.scalars(select(Vote.id).where(
        Vote.status == "closed", Vote.purge_after <= now, Vote.numbers_purged_at.is_(None))))
    for vote_id in ids:
        db.session.execute(update(VoteMessage).where(VoteMessage.vote_id == vote_id)
                           .values(msisdn_hash=None))
        db.session.execute(update(Vote).where(Vote.id == vote_id)
                           .values(numbers_purged_at=now))
    return len(ids)
