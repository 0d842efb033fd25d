"""Reads for the chief editor's author pages: likely matches (``webapp.domain.authors``),
one author's questions, prizes and games, and the merge audit."""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.authors.models import AuthorMerge
from webapp.domain.authors import AuthorKey, Match, match, suggest
from webapp.extensions import db
from webapp.games.models import EnvelopeQuestion, EnvelopeReserve, Game
from webapp.prizes.models import Prize
from webapp.submissions.models import Author, QuestionAuthor


def confirmed_ids(author_ids=None) -> set[int]:
    """Ids of the authors with at least one confirmed question link (the e-mailed link or
    an editor, :func:`webapp.submissions.operations.confirm_authorship`); restricted to
    ``author_ids`` when given."""
    query = db.select(QuestionAuthor.author_id).where(QuestionAuthor.confirmed_at.is_not(None))
    if author_ids is not None:
        query = query.where(QuestionAuthor.author_id.in_(list(author_ids)))
    return set(db.session.scalars(query.distinct()).all())


def address_confirmed(author: Author) -> bool:
    """Whether ``author`` has an address and it is confirmed: the author has a confirmed
    question link (an address typed into a form proves nothing by itself)."""
    return author.email_hash is not None and bool(confirmed_ids([author.id]))


def _key(author: Author, confirmed: set[int]) -> AuthorKey:
    """The domain's view of a row: the address hash only when confirmed."""
    email = author.email_hash if author.id in confirmed else None
    return AuthorKey(author.id, author.name, author.city, email)


def _live_authors() -> list[Author]:
    """Every author row not merged into another, by id."""
    return list(
        db.session.scalars(
            db.select(Author).where(Author.merged_into_id.is_(None)).order_by(Author.id)
        ).all()
    )


def suggestions() -> list[Match]:
    """Likely pairs among the authors not merged (:func:`webapp.domain.authors.suggest`)."""
    authors = _live_authors()
    confirmed = confirmed_ids()
    return suggest(_key(a, confirmed) for a in authors)


def matches_of(author: Author) -> list[tuple[Author, str]]:
    """The authors not merged that are likely the same person as ``author``, with the
    reason (:func:`webapp.domain.authors.match`), by id."""
    confirmed = confirmed_ids()
    me = _key(author, confirmed)
    out = []
    for other in _live_authors():
        reason = match(me, _key(other, confirmed))
        if reason is not None:
            out.append((other, reason))
    return out


@dataclass
class AuthorSummary:
    """What the chief editor sees of one author row: ``links`` (its question links, each
    with the byline as given and whether confirmed), ``prizes``, ``games`` (the games whose
    table holds one of its questions, by id), ``address``: ``"confirmed"``,
    ``"unconfirmed"`` or ``None`` (no address; the address itself is not shown here)."""

    author: Author
    links: list[QuestionAuthor] = field(default_factory=list)
    prizes: list[Prize] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)
    address: str | None = None
    merged_from: list[Author] = field(default_factory=list)


def games_of(author_id: int) -> dict[int, Game]:
    """The games whose table (envelopes or reserves) holds a question of author row
    ``author_id``: ``{game id: Game}``."""
    qids = db.select(QuestionAuthor.question_id).where(QuestionAuthor.author_id == author_id)
    ids = set(
        db.session.scalars(
            db.select(EnvelopeQuestion.game_id).where(EnvelopeQuestion.question_id.in_(qids))
        ).all()
    ) | set(
        db.session.scalars(
            db.select(EnvelopeReserve.game_id).where(EnvelopeReserve.question_id.in_(qids))
        ).all()
    )
    if not ids:
        return {}
    return {g.id: g for g in db.session.scalars(db.select(Game).where(Game.id.in_(ids))).all()}


def question_links(author_id: int) -> list[QuestionAuthor]:
    """The ``question_author`` rows of author ``author_id``, by question id."""
    return list(
        db.session.scalars(
            db.select(QuestionAuthor)
            .where(QuestionAuthor.author_id == author_id)
            .order_by(QuestionAuthor.question_id)
        ).all()
    )


def summary(author: Author) -> AuthorSummary:
    """:class:`AuthorSummary` of ``author``."""
    links = question_links(author.id)
    prizes = list(
        db.session.scalars(
            db.select(Prize).where(Prize.author_id == author.id).order_by(Prize.id)
        ).all()
    )
    address = None
    if author.email_hash is not None:
        address = "confirmed" if any(link.confirmed_at for link in links) else "unconfirmed"
    merged_from = list(
        db.session.scalars(
            db.select(Author).where(Author.merged_into_id == author.id).order_by(Author.id)
        ).all()
    )
    games = [g for _id, g in sorted(games_of(author.id).items())]
    return AuthorSummary(author, links, prizes, games, address, merged_from)


def merges(limit: int = 50) -> list[AuthorMerge]:
    """The latest merges, newest first."""
    return list(
        db.session.scalars(
            db.select(AuthorMerge).order_by(AuthorMerge.id.desc()).limit(limit)
        ).all()
    )
