"""Who is owed which prize: the unanswered-question shares and each individual prize a book
declares (an :class:`~webapp.domain.prizes.book.AwardRule`), checked against the game's kind
and result and the team or the game's authors
(:class:`~webapp.domain.prizes.book.PrizeRefused` with the clause otherwise)."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.domain.money import Money, split_equally
from webapp.domain.prizes.book import (
    Award,
    AwardRule,
    Entitlement,
    HasAwards,
    PrizeRefused,
)


def unanswered_question_prizes(
    rule: str, unanswered: list[tuple[int, list[int]]], prize: Money
) -> list[Entitlement]:
    """Rule 000_90d7c8192601ed3a.txt §4.11.1 (2023) and 002_e025d5ded135c1c4.txt §1.2.2
    (2009): the author of every question the experts did not answer right is owed the cash
    prize; co-authors share it equally to the kopeck, the odd kopeck to the first author.

    ``rule``: the clause of the season's book that owes the prize (``Book.unanswered_rule``,
    ``"000_90d7c8192601ed3a.txt §4.11.1"``), carried by every entitlement;
    ``unanswered``: ``[(question_key, [author_key, …] in authorship order)]``.
    Returns one Entitlement per author per unanswered question (a question without
    authors gives none).
    """
    out = []
    for question_key, authors in unanswered:
        if not authors:
            continue
        for author_key, share in zip(
            authors, split_equally(prize.amount, len(authors)), strict=True
        ):
            out.append(
                Entitlement(
                    question_key,
                    author_key,
                    "unanswered_question",
                    Money(share, prize.currency),
                    rule,
                )
            )
    return out


def _norm(name: str) -> str:
    return " ".join(name.replace("ё", "е").replace("Ё", "Е").split()).casefold()


def _check_game(rule: AwardRule, game_kind: str, winner: str | None) -> None:
    if rule.game_kind is not None and game_kind != rule.game_kind:
        raise PrizeRefused(
            rule.rule,
            f"приз «{rule.label}» присуждается только в игре вида "
            f"{rule.game_kind}, а эта игра — {game_kind}",
        )
    if rule.winner is not None and winner != rule.winner:
        side = "знатоки" if rule.winner == "experts" else "телезрители"
        raise PrizeRefused(
            rule.rule, f"приз «{rule.label}» присуждается, только если выиграли {side}"
        )


def _money(rule: AwardRule, prize: Money | None) -> Money | None:
    if rule.amount is None:
        return None
    if prize is None:
        raise PrizeRefused(rule.rule, f"у сезона не задана сумма приза «{rule.label}»")
    return prize


def _trophy(rule: AwardRule) -> str | None:
    return rule.trophy.key if rule.trophy else None


def _team_member(rule: AwardRule, recipient: str, team: Sequence[str]) -> str:
    clean = " ".join(recipient.split())
    if not clean:
        raise PrizeRefused(rule.rule, "не указан награждаемый")
    if _norm(clean) not in {_norm(m) for m in team}:
        raise PrizeRefused(
            rule.rule,
            f"«{clean}» не входит в состав команды знатоков этой "
            "игры: приз вручается только её участнику",
        )
    return clean


def award_to_expert(
    rule: AwardRule,
    *,
    game_kind: str,
    winner: str | None,
    recipient: str,
    team: Sequence[str],
    prize: Money | None,
) -> Award:
    """An individual prize ``rule`` (recipient ``team``) to one expert of the experts' team
    (``team``: the roster's names), e.g. 2023 §4.11.2 ``best_participant_of_series``, 2009
    §3.1 ``best_player_of_game`` (no amount). ``prize``: the season's amount of
    ``rule.amount`` (ignored for a prize without cash). Names compare case-, space- and
    ё-insensitively. Raises PrizeRefused (with the clause) for the wrong game kind or
    result, a missing amount, or a recipient not in ``team``.
    """
    if rule.recipient != "team":
        raise PrizeRefused(rule.rule, f"приз «{rule.label}» вручается не знатоку")
    _check_game(rule, game_kind, winner)
    name = _team_member(rule, recipient, team)
    return Award(
        rule.kind, name, None, _money(rule, prize), _trophy(rule), rule.rule, rule.paperwork
    )


def award_to_author(
    rule: AwardRule,
    *,
    game_kind: str,
    winner: str | None,
    author_key: int,
    author_name: str,
    unanswered_authors: Sequence[int],
    prize: Money | None,
) -> Award:
    """An author's prize ``rule`` (recipient ``author``), e.g. 2023 §4.11.3
    ``best_author_of_series``. The author must be one of the authors of the questions the
    experts did not answer in that game (``unanswered_authors``: author keys). Raises
    PrizeRefused with the clause otherwise (also for the wrong game kind, result or a
    missing amount).
    """
    if rule.recipient != "author":
        raise PrizeRefused(rule.rule, f"приз «{rule.label}» вручается не автору вопроса")
    _check_game(rule, game_kind, winner)
    if author_key not in set(unanswered_authors):
        raise PrizeRefused(
            rule.rule,
            f"«{author_name}» не автор ни одного вопроса, на который "
            "знатоки не ответили в этой игре",
        )
    return Award(
        rule.kind,
        author_name,
        author_key,
        _money(rule, prize),
        _trophy(rule),
        rule.rule,
        rule.paperwork,
    )


def award_to_each_expert(
    rule: AwardRule, *, game_kind: str, winner: str | None, team: Sequence[str], prize: Money | None
) -> list[Award]:
    """A prize ``rule`` (recipient ``each_expert``, e.g. 2023 §4.11.6 ``special_game_expert``:
    200,00 BYN) to each expert of the team. ``team``: names, duplicates (case/space-insensitive)
    and blanks dropped, order kept. Raises PrizeRefused for the wrong game kind or result,
    an empty team or a missing amount."""
    if rule.recipient != "each_expert":
        raise PrizeRefused(rule.rule, f"приз «{rule.label}» вручается не каждому знатоку")
    _check_game(rule, game_kind, winner)
    money = _money(rule, prize)
    seen: set[str] = set()
    out = []
    for member in team:
        name = " ".join(member.split())
        if name and _norm(name) not in seen:
            seen.add(_norm(name))
            out.append(
                Award(rule.kind, name, None, money, _trophy(rule), rule.rule, rule.paperwork)
            )
    if not out:
        raise PrizeRefused(rule.rule, "не указан состав команды знатоков этой игры")
    return out


def awards_available(book: HasAwards, game_kind: str, winner: str | None) -> list[AwardRule]:
    """The individual prizes of ``book`` a finished game of ``game_kind`` won by ``winner``
    gives (for the producer's page), in the book's order."""
    return [
        r
        for r in book.awards.values()
        if (r.game_kind is None or r.game_kind == game_kind)
        and (r.winner is None or r.winner == winner)
    ]
