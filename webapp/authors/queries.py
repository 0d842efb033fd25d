"""Reads for the chief editor's author pages: likely matches (``webapp.domain.authors``),
one author's questions, prizes and games, and the merge audit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, case, func, not_, or_, select
from sqlalchemy.orm import aliased

from webapp.authors.models import AuthorMerge
from webapp.domain.authors import AuthorKey, Match
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


#: Likely pairs per page of the chief editor's list.
PAIRS_PER_PAGE = 50


def _pairs_statement(author_id: int | None = None):
    """The SELECT of likely pairs (:func:`webapp.domain.authors.match`, in SQL on the
    folded keys): two rows not merged, ``a.id < b.id``, the same non-empty ``name_key``
    (an index: each row meets only the rows of its own name), the same ``city_key`` or one
    of them empty, and not two confirmed addresses (rows never share an address). Columns:
    both rows' id, name, city, email_hash, confirmed flag, and the reason; ordered as
    :func:`webapp.domain.authors.suggest` orders (folded name, code-point order; ids).
    ``author_id``: only the pairs of that row."""
    a, b = aliased(Author), aliased(Author)
    confirmed = select(QuestionAuthor.author_id).where(QuestionAuthor.confirmed_at.is_not(None))
    a_confirmed = a.id.in_(confirmed)
    b_confirmed = b.id.in_(confirmed)
    stmt = (
        select(
            a.id,
            a.name,
            a.city,
            a.email_hash,
            a_confirmed,
            b.id,
            b.name,
            b.city,
            b.email_hash,
            b_confirmed,
            case((and_(a.city_key != "", b.city_key != ""), "name_city"), else_="name_no_city"),
        )
        .join(b, and_(b.name_key == a.name_key, b.id > a.id))
        .where(
            a.merged_into_id.is_(None),
            b.merged_into_id.is_(None),
            a.name_key != "",
            or_(a.city_key == b.city_key, a.city_key == "", b.city_key == ""),
            not_(
                and_(a.email_hash.is_not(None), b.email_hash.is_not(None), a_confirmed, b_confirmed)
            ),
        )
    )
    if author_id is not None:
        stmt = stmt.where(or_(a.id == author_id, b.id == author_id))
    name_order: Any = a.name_key
    if db.session.get_bind().dialect.name == "postgresql":
        name_order = a.name_key.collate("C")  # Python's order of strings (code points)
    return stmt.order_by(name_order, a.id, b.id)


def _match(row) -> Match:
    """A :class:`Match` from a row of :func:`_pairs_statement` (the address hash only
    when confirmed, as matching sees it)."""
    (a_id, a_name, a_city, a_mail, a_ok, b_id, b_name, b_city, b_mail, b_ok, reason) = row
    return Match(
        AuthorKey(a_id, a_name, a_city, a_mail if a_ok else None),
        AuthorKey(b_id, b_name, b_city, b_mail if b_ok else None),
        reason,
    )


def suggestions() -> list[Match]:
    """Every likely pair among the authors not merged, as
    :func:`webapp.domain.authors.suggest` finds them."""
    return [_match(r) for r in db.session.execute(_pairs_statement())]


def suggestions_page(page: int = 1, per_page: int = PAIRS_PER_PAGE) -> tuple[list[Match], int, int]:
    """One page of :func:`suggestions`: (pairs, page clamped to 1..pages, pages)."""
    stmt = _pairs_statement()
    total = db.session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    pages = max(1, -(-(total or 0) // per_page))
    page = min(max(1, page), pages)
    rows = db.session.execute(stmt.offset((page - 1) * per_page).limit(per_page))
    return [_match(r) for r in rows], page, pages


def matches_of(author: Author) -> list[tuple[Author, str]]:
    """The authors not merged that are likely the same person as ``author``, with the
    reason (:func:`webapp.domain.authors.match`), by id."""
    others = {}
    for m in map(_match, db.session.execute(_pairs_statement(author.id))):
        other = m.b if m.a.id == author.id else m.a
        others[other.id] = m.reason
    rows = db.session.scalars(select(Author).where(Author.id.in_(list(others)))).all()
    return [(o, others[o.id]) for o in sorted(rows, key=lambda o: o.id)]


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
