"""Writes of the author pages: the audited merge of two author rows, and the editor's
confirmation that a question's author line is its author. Flush only; the request edge
commits.

Trust: a match is only *suggested*; nothing merges by itself. The merge is the
chief editor's explicit action, audited (:class:`AuthorMerge`). It moves question links
and prizes — the money follows the surviving row, and the prize's e-mails go to the
survivor's address — so a survivor with an *unconfirmed* address is refused: anyone can
type any name with their own address into the form, and a merge into that row would send
a prize winner's link to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.authors.models import AuthorMerge
from webapp.authors.queries import address_confirmed, confirmed_ids, games_of, question_links
from webapp.core.errors import OperationError
from webapp.core.models import utcnow
from webapp.domain.books import rule_reference
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.models import Prize, PrizeStatusChange
from webapp.submissions.models import Author, Question, QuestionAuthor
from webapp.submissions.operations import confirm_authorship


class AuthorError(OperationError):
    """A merge or a confirmation refused (409: the state of the data does not allow it);
    ``str(exc)`` is the Russian sentence for the editor, ``problems`` every reason."""

    status = 409

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems), error={"message": "; ".join(problems)})
        self.problems = problems


@dataclass
class MergePlan:
    """What merging ``source`` into ``target`` would do: the question links and prizes that
    move, the rows merged earlier into ``source`` that follow, whether ``source``'s
    confirmed address moves to ``target`` (which has none), and ``problems`` (Russian
    sentences; a plan with problems is refused, nothing is written)."""

    source: Author
    target: Author
    links: list[QuestionAuthor] = field(default_factory=list)
    prizes: list[Prize] = field(default_factory=list)
    followers: list[Author] = field(default_factory=list)
    move_email: bool = False
    problems: list[str] = field(default_factory=list)


def _rule(game: Game) -> str:
    """«п. 4.11.1 Правил сезона 2023 г.» (or the 2009 clause) for ``game``'s rule set."""
    return rule_reference(game.season.book.one_author_rule)


def _author(author_id: int) -> Author | None:
    if not isinstance(author_id, int) or not 0 < author_id <= 2**31 - 1:
        return None
    return db.session.get(Author, author_id)


def plan_merge(source_id: int, target_id: int) -> MergePlan:
    """The :class:`MergePlan` of merging author ``source_id`` into ``target_id`` (the
    survivor). AuthorError when either row is missing. Refusals (``problems``):

    - the same row, or a row already merged into another;
    - both authors on one question (one person twice on an author line: correct the line);
    - ``target`` has an address that is not confirmed (module doc);
    - both have a prize for one game: one person would hold two prizes of one game
      (the book's ``one_author_rule``); the office decides first which
      prize stands — Sova does not pick one and never silently pays twice;
    - both have a question on the table of one game not yet closed: the merged person would
      be twice in that game; replace one of the questions first.

    Reads only."""
    source, target = _author(source_id), _author(target_id)
    missing = [str(i) for i, a in ((source_id, source), (target_id, target)) if a is None]
    if missing:
        raise AuthorError([f"нет автора №{', №'.join(missing)}"])
    assert source is not None and target is not None
    plan = MergePlan(source, target)
    problems = plan.problems
    if source.id == target.id:
        problems.append("нельзя объединить автора с самим собой")
        return plan
    for a in (source, target):
        if a.merged_into_id is not None:
            problems.append(f"автор №{a.id} уже объединён с автором №{a.merged_into_id}")
    plan.links = question_links(source.id)
    target_questions = set(
        db.session.scalars(
            db.select(QuestionAuthor.question_id).where(QuestionAuthor.author_id == target.id)
        ).all()
    )
    for link in plan.links:
        if link.question_id in target_questions:
            problems.append(f"оба автора указаны в одном вопросе №{link.question_id}")
    if target.email_hash is not None and not address_confirmed(target):
        problems.append(
            f"адрес автора №{target.id} не подтверждён: его нельзя оставить при объединении "
            "(адрес в форме мог ввести кто угодно); оставьте другого автора"
        )
    plan.prizes = list(
        db.session.scalars(
            db.select(Prize).where(Prize.author_id == source.id).order_by(Prize.id)
        ).all()
    )
    target_prizes = db.session.scalars(db.select(Prize).where(Prize.author_id == target.id)).all()
    by_game: dict[int, list[int]] = {}
    for p in target_prizes:
        by_game.setdefault(p.game_id, []).append(p.id)
    for p in plan.prizes:
        if p.game_id in by_game:
            ids = ", ".join(f"№{i}" for i in sorted([p.id, *by_game[p.game_id]]))
            problems.append(
                f"у обоих авторов есть приз за игру №{p.game_id} (призы {ids}): один человек "
                f"не получает два приза за одну игру ({_rule(p.game)}); сначала решите, какой приз "
                "остаётся"
            )
    source_games, target_games = games_of(source.id), games_of(target.id)
    for game_id in sorted(set(source_games) & set(target_games)):
        if source_games[game_id].status != "closed":
            problems.append(
                f"оба автора в игре №{game_id}: после объединения автор был бы в игре дважды "
                f"({_rule(source_games[game_id])}); сначала замените один из вопросов"
            )
    plan.followers = list(
        db.session.scalars(
            db.select(Author).where(Author.merged_into_id == source.id).order_by(Author.id)
        ).all()
    )
    plan.move_email = (
        source.email_hash is not None
        and target.email_hash is None
        and bool(confirmed_ids([source.id]))
    )
    return plan


def merge_authors(source_id: int, target_id: int, user_id: int) -> AuthorMerge:
    """Merge author ``source_id`` into ``target_id`` (the chief editor's action).

    Moves every question link of ``source`` (each keeps the name and city as given on its
    question, and its confirmation: an unconfirmed link stays unconfirmed) and every prize
    (its gift agreement, payee details and history follow the prize; each prize gets a
    history note «автор объединён: №A → №B»). Consents are the question's
    (``consent_version``, ``consent_on_air``) and follow the questions. Rows merged earlier
    into ``source`` now point at ``target``. ``source``'s address moves to ``target`` only
    when it is confirmed and ``target`` has none; otherwise it stays on ``source`` (a later
    submission with it is still counted as ``target`` by the game rule). ``source`` stays,
    with ``merged_into_id = target``. Writes one :class:`AuthorMerge`. Returns it.
    AuthorError with every problem of :func:`plan_merge` (nothing written). Flushes only."""
    plan = plan_merge(source_id, target_id)
    if plan.problems:
        raise AuthorError(plan.problems)
    source, target = plan.source, plan.target
    now = utcnow()
    for link in plan.links:
        link.author_id = target.id
    for prize in plan.prizes:
        prize.author_id = target.id
        db.session.add(
            PrizeStatusChange(
                prize_id=prize.id,
                from_status=prize.status,
                to_status=prize.status,
                by_user_id=user_id,
                note=f"автор объединён: №{source.id} → №{target.id}",
                created_at=now,
            )
        )
    for follower in plan.followers:
        follower.merged_into_id = target.id
    if plan.move_email:
        email_hash, email_encrypted = source.email_hash, source.email_encrypted
        source.email_hash = source.email_encrypted = None
        db.session.flush()  # the unique address leaves the source row first
        target.email_hash, target.email_encrypted = email_hash, email_encrypted
    source.merged_into_id = target.id
    record = AuthorMerge(
        from_author_id=source.id,
        into_author_id=target.id,
        by_user_id=user_id,
        at=now,
        moved={
            "questions": [link.question_id for link in plan.links],
            "prizes": [p.id for p in plan.prizes],
            "authors": [a.id for a in plan.followers],
            "email": plan.move_email,
        },
    )
    db.session.add(record)
    db.session.flush()
    for link in plan.links:
        db.session.expire(link, ["author"])
    for prize in plan.prizes:
        db.session.expire(prize, ["author"])
    return record


def confirm_author(question: Question, position: int, user_id: int) -> QuestionAuthor:
    """The chief editor confirms that the author line at ``position`` of ``question`` is
    its author row (:func:`webapp.submissions.operations.confirm_authorship`
    with the editor as witness; the question's history records it). From then on the
    question shows in that author's «Мои вопросы», and the row's address counts as
    confirmed for matching. Idempotent. AuthorError when there is no such author line.
    Flushes only."""
    link = next((qa for qa in question.authors if qa.position == position), None)
    if link is None:
        raise AuthorError(["такого автора у вопроса нет"])
    confirm_authorship(question, link.author_id, by_user_id=user_id)
    return link
