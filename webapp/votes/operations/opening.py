"""Opening and closing a game's vote (closing freezes the counts and the log's digest and
queues the result document). Flushes only."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from webapp.core.documents import Owner, request_document
from webapp.core.models import utcnow
from webapp.domain import vote as rules
from webapp.extensions import db
from webapp.games.models import Game
from webapp.votes.models import Vote
from webapp.votes.operations.common import RESULT_DOCUMENT, VoteError, VoteInputError
from webapp.votes.queries import live_counts, log_lines

# --- open and close -----------------------------------------------------------------------


def open_vote(
    game: Game,
    user_id: int | None,
    candidates: list[str] | None = None,
    now: datetime | None = None,
) -> Vote:
    """Open the §3.1 vote of ``game`` (a finished 2009 game) with ``candidates`` (names,
    numbered 1..N in order; default the game team's experts). Idempotent for the game's
    open vote. Raises VoteError (409) for another rule set, an unfinished game, a vote of
    this game already held, or another game's vote open; VoteInputError (422) for no
    candidates or two that fold alike."""
    current = db.session.scalar(select(Vote).where(Vote.status == "open"))
    if current is not None and current.game_id == game.id:
        return current
    if not game.season.book.audience_vote:
        raise VoteError(
            _("зрительское голосование за лучшего игрока есть только в правилах 2009 года")
        )
    if game.status not in ("finished", "closed"):
        raise VoteError(_("голосование открывается, когда игра окончена"))
    if db.session.scalar(select(Vote.id).where(Vote.game_id == game.id)) is not None:
        raise VoteError(_("голосование этой игры уже проведено"))
    if current is not None:
        raise VoteError(
            _(
                "открыто голосование другой игры (№ %(game)s): одновременно может идти только одно",
                game=current.game_id,
            ),
            None,
        )
    if candidates is None or not [c for c in candidates if str(c).strip()]:
        candidates = list(game.team_row.experts) if game.team_row else []
    try:
        names = rules.candidate_names(candidates)
    except rules.VoteRuleError as exc:
        raise VoteInputError({"candidates": [exc.message]}) from exc
    vote = Vote(
        game_id=game.id,
        status="open",
        candidates=names,
        opened_at=now or utcnow(),
        opened_by=user_id,
    )
    try:
        with db.session.begin_nested():  # another vote opened at the same moment
            db.session.add(vote)
            db.session.flush()
    except IntegrityError as exc:
        raise VoteError(
            _("открыто голосование другой игры: одновременно может идти только одно"), None
        ) from exc
    return vote


def _lock(vote_id: int) -> Vote:
    """The vote row, locked ``FOR UPDATE`` (waits for the SMS inserts in flight)."""
    return db.session.scalars(
        select(Vote)
        .where(Vote.id == vote_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one()


def close_vote(game: Game, user_id: int | None, now: datetime | None = None) -> Vote:
    """Close the open vote of ``game``: freeze the counts, the winner and the SHA-256 of the
    log, set the retention deadline and queue the signed result PDF (``votes.render_result``,
    Document kind ``vote_result``). Closing a closed vote returns it unchanged. Raises
    VoteError if the game never had a vote."""
    vote = db.session.scalar(select(Vote).where(Vote.game_id == game.id).order_by(Vote.id.desc()))
    if vote is None:
        raise VoteError(_("у этой игры нет голосования"), None)
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
    # with game_id: the game page lists it among the game's documents (download
    # games.document, roles in webapp.games.views.DOCUMENT_ROLES: producer, host); the vote
    # page links it too (votes.result)
    doc, _made = request_document(
        RESULT_DOCUMENT,
        f"{RESULT_DOCUMENT}:vote:{vote.id}:v1",
        Owner(game_id=vote.game_id),
        task_arg=vote.id,
    )
    vote.document_id = doc.id
    db.session.flush()
    return vote
