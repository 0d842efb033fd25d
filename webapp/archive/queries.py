"""Reads of the public archive: the aired games, a game's questions in the order asked,
the search, an author's page, the feed, and what «Мои вопросы» shows of an aired question.

Everything here starts from :mod:`webapp.games.publication` (``published_games``,
``published_questions``, ``public_game_or_404``, ``question_public``): a game that has not
aired, and a held-back question, are never read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from webapp.extensions import db
from webapp.games.models import EnvelopeQuestion, Game
from webapp.games.publication import (
    is_published,
    published_games,
    published_questions,
)
from webapp.games.queries import named_on_air
from webapp.moderation.queries import fulltext
from webapp.prizes.models import Prize
from webapp.submissions.models import TYPED_IN_CHANNELS, Author, Question, QuestionAuthor

#: Games per page of ``/archive``; questions found at most by one search; feed entries.
PAGE_SIZE = 20
SEARCH_LIMIT = 50
FEED_SIZE = 20
#: The prize of an unanswered question (``Prize.kind``).
QUESTION_PRIZE = "unanswered_question"


@dataclass
class Asked:
    """One question as the archive shows it: ``number`` «3» or «3.2» (round, then the part
    of a blitz), ``outcome`` ``answered``/``unanswered``, ``prize`` the sum of the authors'
    prizes for it (Decimal, or None), ``currency``, ``named``: the authors may be named
    (:func:`webapp.games.queries.named_on_air`)."""

    question: Question
    game: Game
    number: str
    outcome: str
    prize: Decimal | None = None
    currency: str = ""
    named: bool = False
    authors: list[QuestionAuthor] = field(default_factory=list)

    @property
    def body(self) -> str:
        """The question's text without the handout it begins with (shown in its box)."""
        from webapp.domain.handouts import without_leading_handout

        return without_leading_handout(self.question.text, self.question.handout)


def games_page(page: int, now: datetime | None = None) -> tuple[list[Game], int, int]:
    """``(games, page, pages)``: the published games, newest air first, ``PAGE_SIZE`` a
    page; ``page`` is clamped to 1..pages."""
    stmt = published_games(now)
    total = db.session.scalar(db.select(db.func.count()).select_from(stmt.subquery())) or 0
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(1, page), pages)
    games = db.session.scalars(stmt.offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    return list(games), page, pages


def question_counts(game_ids: list[int], now: datetime | None = None) -> dict[int, int]:
    """``{game id: questions shown}`` (asked, not held back) for the games of a page."""
    if not game_ids:
        return {}
    sub = published_questions(now).where(Game.id.in_(game_ids)).order_by(None).subquery()
    rows = db.session.execute(db.select(sub.c.game_id, db.func.count()).group_by(sub.c.game_id))
    return {gid: n for gid, n in rows}


def rounds_order(game: Game) -> dict[int, int]:
    """``{sector: round number}``: the order in which the game's sectors were played (the
    rules engine's replay of its events); the sector order if the events cannot be read."""
    from webapp.games.operations.play import game_state

    try:
        rounds = game_state(game)["rounds"]
    except Exception:  # noqa: BLE001 — a page of the archive must not fail on an old record
        rounds = []
    order: dict[int, int] = {}
    for rnd in rounds:
        order.setdefault(rnd["sector"], len(order) + 1)
    return order


def _prizes(pairs: list[tuple[int, int]]) -> dict[tuple[int, int], tuple[Decimal, str]]:
    """``{(game id, question id): (sum of the question's prizes, currency)}``."""
    if not pairs:
        return {}
    games = {g for g, _q in pairs}
    questions = {q for _g, q in pairs}
    rows = db.session.execute(
        db.select(Prize.game_id, Prize.question_id, Prize.amount, Prize.currency).where(
            Prize.kind == QUESTION_PRIZE,
            Prize.game_id.in_(games),
            Prize.question_id.in_(questions),
            Prize.amount.is_not(None),
        )
    )
    wanted = set(pairs)
    out: dict[tuple[int, int], tuple[Decimal, str]] = {}
    for game_id, question_id, amount, currency in rows:
        key = (game_id, question_id)
        if key in wanted:
            total = out.get(key, (Decimal("0"), currency))[0]
            out[key] = (total + amount, currency)
    return out


def _asked(rows, numbers: dict[int, str] | None = None) -> list[Asked]:
    """``Asked`` items of ``(EnvelopeQuestion, Game)`` rows."""
    rows = list(rows)
    prizes = _prizes([(g.id, eq.question_id) for eq, g in rows])
    out = []
    for eq, game in rows:
        q = eq.question
        amount, currency = prizes.get((game.id, q.id), (None, game.season.currency))
        out.append(
            Asked(
                question=q,
                game=game,
                number=(numbers or {}).get(eq.id, ""),
                outcome=eq.outcome,
                prize=amount if eq.outcome == "unanswered" else None,
                currency=currency,
                named=named_on_air(q),
                authors=sorted(q.authors, key=lambda a: a.position),
            )
        )
    return out


def game_questions(game: Game, now: datetime | None = None) -> list[Asked]:
    """The published questions of ``game`` in the order asked: by round, then by slot
    (a blitz's parts «3.1», «3.2», «3.3»); held-back questions left out. Empty for a game
    that is not published at ``now`` (a staff member's preview shows no question)."""
    rows = list(db.session.execute(published_questions(now).where(Game.id == game.id)).all())
    order = rounds_order(game)
    sectors = {e.id: e for e in game.envelopes}
    sized = {e.id: len(e.questions) for e in game.envelopes}

    def key(row):
        eq = row[0]
        sector = sectors[eq.envelope_id].sector
        return (order.get(sector, 100 + sector), eq.slot)

    rows.sort(key=key)
    numbers: dict[int, str] = {}
    rounds: dict[int, int] = {}
    for eq, _game in rows:
        envelope = eq.envelope_id
        n = rounds.setdefault(envelope, len(rounds) + 1)
        numbers[eq.id] = f"{n}.{eq.slot}" if sized[envelope] > 1 else str(n)
    return _asked(rows, numbers)


def search(words: str, now: datetime | None = None) -> list[Asked]:
    """Published questions whose text or answer hold every word of ``words`` (the
    editors' full-text search, :func:`webapp.moderation.queries.fulltext`: Russian word
    forms on PostgreSQL), newest air first, at most ``SEARCH_LIMIT``."""
    if not words.split():
        return []
    stmt = fulltext(published_questions(now), words).limit(SEARCH_LIMIT)
    return _asked(db.session.execute(stmt).all())


def _person_ids(author_id: int) -> list[int]:
    """The author rows of one person: ``author_id`` and the rows merged into it."""
    merged = db.session.scalars(db.select(Author.id).where(Author.merged_into_id == author_id))
    return [author_id, *merged]


def author_questions(author_id: int, now: datetime | None = None) -> list[Asked]:
    """The published questions of the person ``author_id`` (a merged row: none) that
    name their authors (:func:`webapp.games.queries.named_on_air`) and that are credited
    to this person (:attr:`QuestionAuthor.credited`: the link confirmed, by the e-mailed
    link or an editor, or a row without an address that no sender typed in as a
    co-author), newest air first. A question sent
    with this person's address under another name is not theirs until they confirm it.
    Empty: the archive has no page for this person."""
    author = db.session.get(Author, author_id)
    if author is None or author.merged_into_id is not None:
        return []
    typed_in = (QuestionAuthor.position > 0) & Question.channel.in_(TYPED_IN_CHANNELS)
    credited = (
        db.select(QuestionAuthor.question_id)
        .join(Author, Author.id == QuestionAuthor.author_id)
        .join(Question, Question.id == QuestionAuthor.question_id)
        .where(
            QuestionAuthor.author_id.in_(_person_ids(author_id)),
            QuestionAuthor.confirmed_at.is_not(None) | (Author.email_hash.is_(None) & ~typed_in),
        )
    )
    stmt = published_questions(now).where(Question.id.in_(credited))
    return [a for a in _asked(db.session.execute(stmt).all()) if a.named]


def author_byline(author_id: int, items: list[Asked]) -> str:
    """The person's name and city as given with their newest aired question credited to
    them (:func:`author_questions`: never a name someone else typed with their address),
    «Анна Королёва, Минск»."""
    ids = set(_person_ids(author_id))
    for item in items:
        for qa in item.authors:
            if qa.author_id in ids and qa.credited:
                return qa.byline.display
    return ""


def feed_games(now: datetime | None = None) -> list[Game]:
    """The newest published games of the Atom feed (``FEED_SIZE``)."""
    return list(db.session.scalars(published_games(now).limit(FEED_SIZE)))


def archive_entry(question: Question, author_id: int, now: datetime | None = None) -> dict | None:
    """What «Мои вопросы» shows the viewer ``author_id`` of ``question``: for a question
    asked in a published game, ``{"game_id", "outcome", "prize", "currency",
    "public"}`` (``prize``: the sum of the prizes of the viewer ``author_id`` and the rows
    merged into it for this question, or None; ``public``: not held back, so the archive
    shows it); None before the air."""
    row = db.session.execute(
        db.select(EnvelopeQuestion, Game)
        .join(Game, Game.id == EnvelopeQuestion.game_id)
        .where(
            EnvelopeQuestion.question_id == question.id,
            EnvelopeQuestion.outcome.in_(("answered", "unanswered")),
        )
        .order_by(Game.air_at.desc())
        .limit(1)
    ).first()
    if row is None or not is_published(row[1], now):
        return None
    eq, game = row
    amount = db.session.scalar(
        db.select(db.func.sum(Prize.amount)).where(
            Prize.kind == QUESTION_PRIZE,
            Prize.game_id == game.id,
            Prize.question_id == question.id,
            Prize.author_id.in_(_person_ids(author_id)),
        )
    )
    return {
        "game_id": game.id,
        "outcome": eq.outcome,
        "prize": amount if eq.outcome == "unanswered" else None,
        "currency": game.season.currency,
        "public": question.held_back_at is None,
    }
