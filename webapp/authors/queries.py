"""Reads for the chief editor's author pages: likely matches (``webapp.domain.authors``),
one author's questions, prizes and games, and the merge audit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, case, func, not_, or_, select, union_all
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
    folded keys): two rows not merged, ``a.id < b.id``, the same non-empty ``name_key``,
    the same ``city_key`` or one of them empty, and not two confirmed addresses (rows never
    share an address). Columns: both rows' id, name, city, email_hash, confirmed flag, and
    the reason; ordered as :func:`webapp.domain.authors.suggest` orders (folded name,
    code-point order; ids). ``author_id``: only the pairs of that row.

    Three disjoint joins, put together (``UNION ALL``): the same name and the same city
    (both empty included), and the same name where only the first or only the second city
    is empty. Each join meets only the rows it keeps through the index on
    ``(name_key, city_key)`` (migration 0040): one join on the name alone pairs every row
    of a common name with every other city of it, and then throws most pairs away."""
    a, b = aliased(Author), aliased(Author)
    # the partial index of the confirmed links (migration 0040) repeats this predicate
    confirmed = select(QuestionAuthor.author_id).where(QuestionAuthor.confirmed_at.is_not(None))
    a_confirmed = a.id.in_(confirmed)
    b_confirmed = b.id.in_(confirmed)
    name_order: Any = a.name_key
    if db.session.get_bind().dialect.name == "postgresql":
        name_order = a.name_key.collate("C")  # Python's order of strings (code points)
    columns = (
        a.id,
        a.name,
        a.city,
        a.email_hash,
        a_confirmed.label("a_confirmed"),
        b.id,
        b.name,
        b.city,
        b.email_hash,
        b_confirmed.label("b_confirmed"),
        case((and_(a.city_key != "", b.city_key != ""), "name_city"), else_="name_no_city").label(
            "reason"
        ),
        name_order.label("name_order"),
    )
    same_name = and_(b.name_key == a.name_key, b.id > a.id)
    common = [
        a.merged_into_id.is_(None),
        b.merged_into_id.is_(None),
        a.name_key != "",
        not_(and_(a.email_hash.is_not(None), b.email_hash.is_not(None), a_confirmed, b_confirmed)),
    ]
    if author_id is not None:
        common.append(or_(a.id == author_id, b.id == author_id))
    branches = [
        select(*columns).join(b, and_(same_name, b.city_key == a.city_key)),
        select(*columns).join(b, and_(same_name, b.city_key == "")).where(a.city_key != ""),
        select(*columns).join(b, and_(same_name, b.city_key != "")).where(a.city_key == ""),
    ]
    pairs = union_all(*(branch.where(*common) for branch in branches)).subquery("pairs")
    c = list(pairs.c)
    return select(*c[:11]).order_by(c[11], c[0], c[5])


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
    """One page of :func:`suggestions`: (pairs, page clamped to 1..pages, pages). The
    pairs are found once: the total comes with the page's rows (a window count); only a
    page past the end asks again, for the last page."""
    stmt = _pairs_statement()
    counted = stmt.add_columns(func.count().over())
    page = max(1, page)
    rows = db.session.execute(counted.offset((page - 1) * per_page).limit(per_page)).all()
    if not rows and page > 1:
        total = db.session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
        pages = max(1, -(-(total or 0) // per_page))
        return suggestions_page(pages, per_page) if total else ([], 1, 1)
    total = rows[0][-1] if rows else 0
    pages = max(1, -(-total // per_page))
    return [_match(r[:-1]) for r in rows], page, pages


def matches_of(author: Author) -> list[tuple[Author, str]]:
    """The authors not merged that are likely the same person as ``author``, with the
    reason (:func:`webapp.domain.authors.match`), by id."""
    others = {}
    for m in map(_match, db.session.execute(_pairs_statement(author.id))):
        other = m.b if m.a.id == author.id else m.a
        others[other.id] = m.reason
    rows = db.session.scalars(select(Author).where(Author.id.in_(list(others)))).all()
    return [(o, others[o.id]) for o in sorted(rows, key=lambda o: o.id)]


#: Question links per page of an author's summary (an archive's author may have thousands).
LINKS_SHOWN = 100


@dataclass
class AuthorSummary:
    """What the chief editor sees of one author row: ``links`` (a page of its question
    links, :data:`LINKS_SHOWN` by question id from after ``links_after``, each with the
    byline as given and whether confirmed; ``links_total`` of them in all; ``links_more``:
    more after this page), ``prizes``,
    ``games`` (the games whose table holds one of its questions, by id), ``address``:
    ``"confirmed"``, ``"unconfirmed"`` or ``None`` (no address; the address itself is not
    shown here)."""

    author: Author
    links: list[QuestionAuthor] = field(default_factory=list)
    prizes: list[Prize] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)
    address: str | None = None
    merged_from: list[Author] = field(default_factory=list)
    links_total: int = 0
    links_after: int | None = None
    links_more: bool = False


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


def summary(author: Author, links_after: int | None = None) -> AuthorSummary:
    """:class:`AuthorSummary` of ``author``: its links after question ``links_after`` (the
    first ones without), a page of them; the statements are as many whatever the links."""
    # The author as the range «id ≤ author_id ≤ id» in the order (author_id, question_id),
    # which only the index on those two columns gives. With «author_id = id» PostgreSQL
    # takes the order as question id alone, which the unique (question_id, author_id)
    # index gives too, and it prices that index's walk low (its rows lie in the table's
    # order): for an author of many of the newest questions the walk reads every older
    # link first, the archive's.
    page = (
        db.select(QuestionAuthor)
        .where(QuestionAuthor.author_id >= author.id, QuestionAuthor.author_id <= author.id)
        .order_by(QuestionAuthor.author_id, QuestionAuthor.question_id)
        .limit(LINKS_SHOWN + 1)  # one more: whether a next page exists
    )
    if links_after is not None:
        page = page.where(QuestionAuthor.question_id > links_after)
    links = list(db.session.scalars(page).all())
    more = len(links) > LINKS_SHOWN
    del links[LINKS_SHOWN:]
    total = db.session.scalar(db.select(func.count()).where(QuestionAuthor.author_id == author.id))
    prizes = list(
        db.session.scalars(
            db.select(Prize).where(Prize.author_id == author.id).order_by(Prize.id)
        ).all()
    )
    address = None
    if author.email_hash is not None:
        address = "confirmed" if confirmed_ids([author.id]) else "unconfirmed"
    merged_from = list(
        db.session.scalars(
            db.select(Author).where(Author.merged_into_id == author.id).order_by(Author.id)
        ).all()
    )
    games = [g for _id, g in sorted(games_of(author.id).items())]
    return AuthorSummary(
        author, links, prizes, games, address, merged_from, total or 0, links_after, more
    )


def merges(limit: int = 50) -> list[AuthorMerge]:
    """The latest merges, newest first."""
    return list(
        db.session.scalars(
            db.select(AuthorMerge).order_by(AuthorMerge.id.desc()).limit(limit)
        ).all()
    )
