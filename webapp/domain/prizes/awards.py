"""Who is owed which prize: the unanswered-question shares and each individual prize of
:data:`~webapp.domain.prizes.book.AWARD_RULES`, checked against the game's kind and result
and the team or the game's authors (:class:`~webapp.domain.prizes.book.PrizeRefused` with
the clause otherwise)."""

from __future__ import annotations

from collections.abc import Sequence

from webapp.domain.money import Money, split_equally
from webapp.domain.prizes.book import (
    AWARD_RULES,
    Award,
    AwardRule,
    Entitlement,
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


def _check_game(rule: AwardRule, ruleset: str, game_kind: str, winner: str | None) -> None:
    if ruleset != rule.ruleset:
        raise PrizeRefused(
            rule.rule,
            f"приз «{rule.label}» есть только в правилах "
            f"{rule.ruleset} года, а сезон играет по правилам "
            f"{ruleset} года",
        )
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
    if rule.amount_field is None:
        return None
    if prize is None:
        raise PrizeRefused(rule.rule, f"у сезона не задана сумма приза «{rule.label}»")
    return prize


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
    kind: str,
    *,
    ruleset: str,
    game_kind: str,
    winner: str | None,
    recipient: str,
    team: Sequence[str],
    prize: Money | None,
) -> Award:
    """An individual prize to one expert of the experts' team (``team``: the roster's names).

    ``kind``: ``best_participant_of_series`` (2023 §4.11.2), ``best_expert_of_year``
    (2023 §4.11.4), ``best_player_of_game`` (2009 §3.1, no amount), ``best_player_of_series``
    (2009 §3.2), ``best_player_of_year`` (2009 §3.3). ``prize``: the season's amount for the
    kind (ignored for §3.1). Names compare case-, space- and ё-insensitively.
    Raises PrizeRefused (with the clause) for the wrong rule set, game kind or result, a
    missing amount, or a recipient not in ``team``; KeyError for an unknown kind.
    """
    rule = AWARD_RULES[kind]
    if rule.recipient != "team":
        raise PrizeRefused(rule.rule, f"приз «{rule.label}» вручается не знатоку")
    _check_game(rule, ruleset, game_kind, winner)
    name = _team_member(rule, recipient, team)
    return Award(kind, name, None, _money(rule, prize), rule.trophy, rule.rule, rule.paperwork)


def award_to_author(
    kind: str,
    *,
    ruleset: str,
    game_kind: str,
    winner: str | None,
    author_key: int,
    author_name: str,
    unanswered_authors: Sequence[int],
    prize: Money | None,
) -> Award:
    """The best author's prize: ``best_author_of_series`` (2023 §4.11.3) or
    ``best_author_of_year`` (2023 §4.11.5). The author must be one of the authors of the
    questions the experts did not answer in that final (``unanswered_authors``: author
    keys). Raises PrizeRefused with the clause otherwise (also for the wrong rule set, game
    kind, result or a missing amount); KeyError for an unknown kind.
    """
    rule = AWARD_RULES[kind]
    if rule.recipient != "author":
        raise PrizeRefused(rule.rule, f"приз «{rule.label}» вручается не автору вопроса")
    _check_game(rule, ruleset, game_kind, winner)
    if author_key not in set(unanswered_authors):
        raise PrizeRefused(
            rule.rule,
            f"«{author_name}» не автор ни одного вопроса, на который "
            "знатоки не ответили в этой финальной игре",
        )
    return Award(
        kind, author_name, author_key, _money(rule, prize), rule.trophy, rule.rule, rule.paperwork
    )


def best_participant_of_series(
    *, winner: str | None, recipient: str, team: Sequence[str], prize: Money
) -> Award:
    """2023 §4.11.2: series final won → best participant of the winning team, Small Crystal
    Owl and ``prize`` (season default 2 000,00 BYN). Raises PrizeRefused."""
    return award_to_expert(
        "best_participant_of_series",
        ruleset="2023",
        game_kind="series_final",
        winner=winner,
        recipient=recipient,
        team=team,
        prize=prize,
    )


def best_author_of_series(
    *,
    winner: str | None,
    author_key: int,
    author_name: str,
    unanswered_authors: Sequence[int],
    prize: Money,
) -> Award:
    """2023 §4.11.3: series final lost → best author among the unanswered-question authors,
    Small Crystal Owl and ``prize`` (default 2 000,00 BYN). Raises PrizeRefused."""
    return award_to_author(
        "best_author_of_series",
        ruleset="2023",
        game_kind="series_final",
        winner=winner,
        author_key=author_key,
        author_name=author_name,
        unanswered_authors=unanswered_authors,
        prize=prize,
    )


def best_expert_of_year(
    *, winner: str | None, recipient: str, team: Sequence[str], prize: Money
) -> Award:
    """2023 §4.11.4: year final won → best expert, Big Crystal Owl and ``prize`` (default
    2 000,00 BYN). Raises PrizeRefused."""
    return award_to_expert(
        "best_expert_of_year",
        ruleset="2023",
        game_kind="year_final",
        winner=winner,
        recipient=recipient,
        team=team,
        prize=prize,
    )


def best_author_of_year(
    *,
    winner: str | None,
    author_key: int,
    author_name: str,
    unanswered_authors: Sequence[int],
    prize: Money,
) -> Award:
    """2023 §4.11.5: year final lost → best author among the unanswered-question authors,
    Big Crystal Owl and ``prize`` (default 2 000,00 BYN). Raises PrizeRefused."""
    return award_to_author(
        "best_author_of_year",
        ruleset="2023",
        game_kind="year_final",
        winner=winner,
        author_key=author_key,
        author_name=author_name,
        unanswered_authors=unanswered_authors,
        prize=prize,
    )


def special_game_prizes(
    *, ruleset: str, game_kind: str, team: Sequence[str], prize: Money | None
) -> list[Award]:
    """2023 §4.11.6: ``prize`` (default 200,00 BYN) to each expert of the special game's
    team, whatever the result. ``team``: names, duplicates (case/space-insensitive) and
    blanks dropped, order kept. Raises PrizeRefused for another rule set or game kind, an
    empty team or a missing amount."""
    rule = AWARD_RULES["special_game_expert"]
    _check_game(rule, ruleset, game_kind, None)
    money = _money(rule, prize)
    seen: set[str] = set()
    out = []
    for member in team:
        name = " ".join(member.split())
        if name and _norm(name) not in seen:
            seen.add(_norm(name))
            out.append(Award(rule.kind, name, None, money, None, rule.rule, rule.paperwork))
    if not out:
        raise PrizeRefused(rule.rule, "не указан состав команды знатоков специальной игры")
    return out


def best_player_of_game(*, recipient: str, team: Sequence[str]) -> Award:
    """2009 §3.1: the best player of each game gets the general sponsor's prize (recorded,
    no amount). Raises PrizeRefused if ``recipient`` is not in ``team``."""
    return award_to_expert(
        "best_player_of_game",
        ruleset="2009",
        game_kind="",
        winner=None,
        recipient=recipient,
        team=team,
        prize=None,
    )


def best_player_of_series(
    *, winner: str | None, recipient: str, team: Sequence[str], prize: Money
) -> Award:
    """2009 §3.2: series final won → best player of the winning team, Crystal Owl and
    ``prize`` (default 300 000,00 RUB). Raises PrizeRefused."""
    return award_to_expert(
        "best_player_of_series",
        ruleset="2009",
        game_kind="series_final",
        winner=winner,
        recipient=recipient,
        team=team,
        prize=prize,
    )


def best_player_of_year(
    *, winner: str | None, recipient: str, team: Sequence[str], prize: Money
) -> Award:
    """2009 §3.3: year final won → best player of the winning team, Diamond Owl and
    ``prize`` (default 1 000 000,00 RUB). Raises PrizeRefused."""
    return award_to_expert(
        "best_player_of_year",
        ruleset="2009",
        game_kind="year_final",
        winner=winner,
        recipient=recipient,
        team=team,
        prize=prize,
    )


def awards_available(ruleset: str, game_kind: str, winner: str | None) -> list[AwardRule]:
    """The individual prizes a finished game of ``game_kind`` won by ``winner`` gives under
    ``ruleset`` (for the producer's page)."""
    return [
        r
        for r in AWARD_RULES.values()
        if r.ruleset == ruleset
        and (r.game_kind is None or r.game_kind == game_kind)
        and (r.winner is None or r.winner == winner)
    ]
