"""The embargo: what of a game the public may see, and from when.

A game is **published** when it is closed (its outcomes and prizes are made) and its air
time (``Game.air_at``, UTC; set on the game page or through the API in the season's time
zone) has passed. Until then every public surface behaves as if the game did not exist: no
page, feed, export or API answer shows its questions, answers, outcomes, authors, date, or
the game at all, and a page about the game answers ``404`` to anyone without a staff role.
After the air an editor may still hold one question back (``Question.held_back_at``, a legal
complaint, say): it never appears on a public surface, though its game does.

Every public surface asks here, and nowhere else:

- :func:`is_published` ``(game, now=None) -> bool``: one game;
- :func:`published_games` ``(now=None) -> Select[Game]``: the published games, newest air
  first (add ``.where``/``.limit`` to it; ``db.session.scalars(published_games())``);
- :func:`published_questions` ``(now=None) -> Select[(EnvelopeQuestion, Game)]``: the
  questions asked in published games (outcome ``answered``/``unanswered``), held-back ones
  left out, newest air first, then by sector and slot;
- :func:`public_game_or_404` ``(game_id, now=None) -> Game``: a public page's game, else
  ``404`` (staff of any role see every game);
- :func:`question_published` ``(question, now=None) -> bool``: the question was asked in a
  published game (whether or not it is held back: its author's own pages still show the
  author what became of it);
- :func:`question_public` ``(question, now=None) -> bool``: published and not held back;
- :func:`played_in` ``(question) -> Game | None``: the game a question was asked in (a
  question's public history, ``webapp.archive.history``, asks it with :func:`is_published`).

``now``: an aware datetime (default: the current time, UTC).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Select

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import EnvelopeQuestion, Game
from webapp.submissions.models import Question

#: The outcomes of a question that was asked on air (``unasked`` ones went back to the pool).
ASKED = ("answered", "unanswered")


def is_published(game: Game, now: datetime | None = None) -> bool:
    """True if ``game`` is closed, the producer gave its air time (``air_time_given``: a
    game created without one is never public on a placeholder hour) and that time is at or
    before ``now``."""
    return (
        game.status == "closed"
        and bool(game.air_time_given)
        and game.air_at is not None
        and game.air_at <= (now or utcnow())
    )


def _published(now: datetime | None):
    """The SQL condition of :func:`is_published` on ``Game``."""
    return db.and_(
        Game.status == "closed", Game.air_time_given.is_(True), Game.air_at <= (now or utcnow())
    )


def published_games(now: datetime | None = None) -> Select:
    """A select of the games published at ``now`` (:func:`is_published`), newest air time
    first (then the highest id)."""
    return db.select(Game).where(_published(now)).order_by(Game.air_at.desc(), Game.id.desc())


def published_questions(now: datetime | None = None) -> Select:
    """A select of ``(EnvelopeQuestion, Game)`` rows: the questions asked in the games
    published at ``now``, held-back questions left out; newest air time first, then the
    game's id, the sector and the slot. ``EnvelopeQuestion.question`` loads the question."""
    from webapp.games.models import Envelope

    return (
        db.select(EnvelopeQuestion, Game)
        .join(Game, Game.id == EnvelopeQuestion.game_id)
        .join(Envelope, Envelope.id == EnvelopeQuestion.envelope_id)
        .join(Question, Question.id == EnvelopeQuestion.question_id)
        .where(
            _published(now),
            EnvelopeQuestion.outcome.in_(ASKED),
            Question.held_back_at.is_(None),
        )
        .order_by(Game.air_at.desc(), Game.id.desc(), Envelope.sector, EnvelopeQuestion.slot)
    )


def public_game_or_404(game_id: int, now: datetime | None = None) -> Game:
    """For a public page about one game: the game if it is published at ``now``, or if
    the caller has a staff role (any: staff see every game); else ``abort(404)``, the
    same answer as for a game that does not exist."""
    from flask import abort

    from webapp.core.access import current_staff

    game = db.session.get(Game, game_id)
    if game is None or not (is_published(game, now) or current_staff() is not None):
        abort(404)
    return game


def played_in(question: Question) -> Game | None:
    """The game in which ``question`` was asked (outcome ``answered``/``unanswered``), or
    None (not asked yet, or returned to the pool unasked)."""
    return db.session.scalar(
        db.select(Game)
        .join(EnvelopeQuestion, EnvelopeQuestion.game_id == Game.id)
        .where(EnvelopeQuestion.question_id == question.id, EnvelopeQuestion.outcome.in_(ASKED))
        .order_by(Game.air_at.desc())
        .limit(1)
    )


def question_published(question: Question, now: datetime | None = None) -> bool:
    """True if ``question`` was asked in a game published at ``now``."""
    game = played_in(question)
    return game is not None and is_published(game, now)


def question_public(question: Question, now: datetime | None = None) -> bool:
    """True if ``question`` was asked in a game published at ``now`` and is not held back."""
    return question.held_back_at is None and question_published(question, now)
