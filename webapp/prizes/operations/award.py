"""What a closed game owes (the unanswered questions' prizes) and the individual prizes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webapp.core.signals import best_player_awarded
from webapp.domain.books import BOOKS
from webapp.domain.donor import quoted
from webapp.domain.money import Money
from webapp.domain.prizes import (
    COMMISSION_MINUTES,
    GIFT_AGREEMENT,
    Award,
    AwardRule,
    PrizeRefused,
    award_to_author,
    award_to_each_expert,
    award_to_expert,
    unanswered_question_prizes,
)
from webapp.domain.vote import VoteRuleError, best_player_award
from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.games.operations import game_state
from webapp.prizes.models import (
    Prize,
)
from webapp.prizes.operations.common import PrizeError, new_prize, number_agreement
from webapp.prizes.operations.documents import issue_minutes
from webapp.submissions.models import Author


def unanswered_questions(game: Game, state: dict) -> list[tuple[int, list[int]]]:
    """``[(question_id, [author_id in authorship order])]`` of the game's unanswered
    questions, from the replayed ``state``."""
    keys = {(u["sector"], u["slot"]) for u in state["unanswered"]}
    return [
        (eq.question.id, [qa.author_id for qa in eq.question.authors])
        for env in game.envelopes
        for eq in env.questions
        if (env.sector, eq.slot) in keys
    ]


def owed_on_close(game: Game, state: dict | None, user_id: int | None) -> list[Prize]:
    """What a closed game owes, as games' close asks it (:func:`webapp.games.close.close_game`,
    which hands the final replayed ``state`` while it closes the game): one Prize per author
    share of each unanswered question (2023 §4.11.1, 2009 §1.2.2) at the season's amount,
    one GiftAgreement per prize numbered ``<year>-0001`` without gaps, and
    ``prizes.issue_agreement`` queued for each. With ``state`` None (the game was closed
    before) nothing is made. Returns the game's unanswered-question prizes."""
    if state is not None:
        season = game.season
        if season.unanswered_prize is None:  # games' close refuses such a season first
            raise PrizeError(f"у сезона {quoted(season.name)} не задан приз за невзятый вопрос")
        entitlements = unanswered_question_prizes(
            season.book.unanswered_rule,
            unanswered_questions(game, state),
            Money(season.unanswered_prize, season.currency),
        )
        for ent in entitlements:
            prize = new_prize(
                game,
                user_id,
                f"игра закрыта: {game.label}",
                question_id=ent.question_key,
                author_id=ent.author_key,
                kind=ent.kind,
                amount=ent.money.amount,
                currency=ent.money.currency,
                rule=ent.rule,
            )
            number_agreement(prize, season)
    return prizes_of(game, kind="unanswered_question")


def prizes_of(game: Game, kind: str | None = None) -> list[Prize]:
    """The game's prizes (of one ``kind`` if given), in creation order."""
    stmt = db.select(Prize).where(Prize.game_id == game.id).order_by(Prize.id)
    if kind is not None:
        stmt = stmt.where(Prize.kind == kind)
    return list(db.session.scalars(stmt).all())


def _season_amount(season: Season, rule: AwardRule) -> Money | None:
    if rule.amount is None:
        return None
    value = season.prize_amount(rule.amount.key)
    return None if value is None else Money(value, season.currency)


def _award_key(game: Game, rule: AwardRule, award: Award) -> str:
    """What makes an award unique: once per game, or once per person for a prize every
    expert gets (``AwardRule.one_per_person``)."""
    if rule.one_per_person:
        return f"{game.id}:{award.kind}:{' '.join(award.recipient.split()).casefold()}"
    return f"{game.id}:{award.kind}"


def award_rule(season: Season, kind: str) -> AwardRule:
    """The individual prize ``kind`` of the season's book. PrizeError for a kind the book
    lacks: naming the book that has it, or an unknown kind."""
    rule = season.book.awards.get(kind)
    if rule is not None:
        return rule
    owners = [b for b in BOOKS.values() if kind in b.awards]
    if not owners:
        raise PrizeError(f"неизвестный вид приза {kind!r}")
    other = owners[0].awards[kind]
    raise PrizeError(
        f"приз «{other.label}» есть только в правилах "
        f"{', '.join(b.name for b in owners)} года, а сезон играет по правилам "
        f"{season.book.name} года",
        other.rule,
    )


#: ``award_prize``'s ``vote`` when the caller handed none (only the best player needs one).
NOT_HANDED: Any = object()


def award_prize(
    game: Game,
    kind: str,
    user_id: int | None,
    *,
    recipient: str = "",
    team: Sequence[str] = (),
    author_id: int | None = None,
    reason: str = "",
    vote: dict | None = NOT_HANDED,
) -> list[Prize]:
    """Award an individual prize of the season's rule book after ``game``.

    ``kind``: a key of the season's ``book.awards`` (:func:`award_rule`; the prize's
    :class:`~webapp.domain.prizes.AwardRule` says everything that differs between prizes).
    Experts' prizes take ``recipient`` (a name) and ``team`` (the experts' names: the roster
    the recipient must belong to; for an ``each_expert`` prize every member gets one);
    authors' prizes take ``author_id`` (an Author among the game's unanswered-question
    authors). The game's winner comes from the rules engine's replay; the game must be
    finished or closed. Amounts come from the season's amount of the rule's
    ``amount.key`` (:meth:`Season.prize_amount`). The paperwork the rule names (2023 Crystal
    Owls: a numbered gift agreement and the prize commission's minutes) is queued.

    A prize ``decided_by_vote`` (2009 §3.1) follows the game's audience vote, on every page
    that awards it (``webapp.domain.vote.best_player_award``): after a closed vote the
    winner, anyone else (or deciding a tie) only with the sponsor's representative's
    ``reason``; refused while the vote is open; with no vote held only with a ``reason``.
    The vote belongs to a later feature (votes build on prizes), so the caller hands it in:
    ``vote`` is ``webapp.votes.queries.best_player_vote(game)`` (None: no vote held), read
    by the votes feature's award, the API and — handed by the app — the prizes' award page;
    a best player awarded without it is a programming error (TypeError). The team defaults
    to the vote's candidates; the decision is kept for the audit (``best_player_awarded``
    of ``webapp.core.signals``, the prize's history note).

    Idempotent: awarding the same prize to the same person again returns the existing
    prize; to another person raises PrizeError. Raises PrizeError (carrying the clause) for
    a refusal by the rule book; nothing is written then.
    """
    season = game.season
    rule = award_rule(season, kind)
    if game.status not in ("finished", "closed"):
        raise PrizeError(
            f"игра {game.id} ещё не окончена: призы присуждаются после игры", rule.rule
        )
    state = game_state(game)
    winner = state["winner"]
    prize_money = _season_amount(season, rule)
    overridden = False
    if not rule.decided_by_vote:
        vote = None
    elif vote is NOT_HANDED:
        raise TypeError("award_prize: a prize decided by the vote needs the game's vote handed in")
    else:
        try:
            recipient, overridden = best_player_award(
                vote["status"] if vote else None,
                vote["candidates"] if vote else [],
                vote["winner"] if vote else None,
                recipient,
                reason,
            )
        except VoteRuleError as exc:
            raise PrizeError(exc.message, exc.rule) from exc
        if vote and not [t for t in team if t.strip()]:
            team = list(vote["candidates"])
    try:
        if rule.recipient == "each_expert":
            awards = award_to_each_expert(
                rule, game_kind=game.kind, winner=winner, team=team, prize=prize_money
            )
        elif rule.recipient == "team":
            awards = [
                award_to_expert(
                    rule,
                    game_kind=game.kind,
                    winner=winner,
                    recipient=recipient,
                    team=team,
                    prize=prize_money,
                )
            ]
        else:
            author = db.session.get(Author, author_id) if author_id is not None else None
            if author is None:
                raise PrizeRefused(rule.rule, "не выбран автор вопроса")
            authors = [a for _q, ids in unanswered_questions(game, state) for a in ids]
            awards = [
                award_to_author(
                    rule,
                    game_kind=game.kind,
                    winner=winner,
                    author_key=author.id,
                    author_name=author.name,
                    unanswered_authors=authors,
                    prize=prize_money,
                )
            ]
    except PrizeRefused as exc:
        raise PrizeError(exc.message, exc.rule) from exc
    out = []
    for award in awards:
        key = _award_key(game, rule, award)
        existing = db.session.scalar(db.select(Prize).where(Prize.award_key == key))
        if existing is not None:
            same = (
                existing.author_id == award.author_key
                and (existing.recipient_name or "").casefold() == award.recipient.casefold()
            )
            if not same:
                raise PrizeError(
                    f"приз «{rule.label}» этой игры уже присуждён: {existing.payee}", rule.rule
                )
            out.append(existing)
            continue
        money = award.money
        note = f"присуждён: {rule.label}"
        if overridden:
            note = f"{note}; решение представителя Генерального спонсора: {reason.strip()}"
        prize = new_prize(
            game,
            user_id,
            note[:300],
            kind=award.kind,
            author_id=award.author_key,
            recipient_name=award.recipient,
            amount=money.amount if money else None,
            currency=money.currency if money else season.currency,
            trophy=award.trophy,
            rule=award.rule,
            award_key=key,
        )
        if COMMISSION_MINUTES in award.paperwork:
            issue_minutes(prize, season)
        if GIFT_AGREEMENT in award.paperwork:
            number_agreement(prize, season)
        if rule.decided_by_vote:
            best_player_awarded.send(
                game,
                prize=prize,
                vote_id=vote["vote_id"] if vote else None,
                winner_name=(
                    vote["candidates"][vote["winner"] - 1] if vote and vote["winner"] else None
                ),
                chosen=award.recipient,
                overridden=overridden,
                reason=(reason or "").strip(),
                user_id=user_id,
            )
        out.append(prize)
    return out
