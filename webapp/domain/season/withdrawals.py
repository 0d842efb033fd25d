"""Withdrawals in the season engine (2023 §4.8.1, 2009 §2.3): a team gives up the coming
series — between two series the one that opens next (the refusal waits in
``Season.refusing``), once a series is open that series, until the team's first game in it.
The shared refusals are here; where the team goes and what the book forbids besides are the
book's (``RuleBook.withdrawn``, ``check_withdraw``, ``no_place``, ``coming``, ``shortage``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from .events import PARTS, Event
from .words import PART_BE, PART_RU, qualifying_gen_be, qualifying_gen_ru, teams_be, teams_ru

if TYPE_CHECKING:
    from .engine import Season


def on_withdraw(season: Season, event: Event) -> None:
    """2023 §4.8.1, 2009 §2.3: a team refuses the coming series. Between two series it
    refuses the series that opens next (:func:`_withdraw_coming`); once a series is open,
    that series, until the team's first game in it; the book moves it
    (``RuleBook.withdrawn``: 2023 to the bottom line, 2009 nowhere) and orders the games
    not yet played again (``RuleBook.reorder``)."""
    team = season.known(event.team or "")
    if season.over:
        raise season.refuse_for(
            "year_final",
            f"«{team}» has no series left to withdraw from: the year final is played and "
            "the season is over",
            f"«{team}» не может отказаться от серии: финал года сыгран, сезон окончен",
            f"«{team}» не можа адмовіцца ад серыі: фінал года згуляны, сезон скончаны",
        )
    season.refuse_if_out(team)
    if season.phase() == "series":
        _withdraw_coming(season, team)
        return
    s = season.series
    assert s is not None
    part, gen, gen_be = s.part, PART_RU[s.part], PART_BE[s.part]
    if team in s.withdrawn:
        raise season.refuse_for(
            "withdraw",
            f"«{team}» has already withdrawn from the {part} series",
            f"«{team}» уже отказалась от участия в {gen} серии",
            f"«{team}» ужо адмовілася ад удзелу ў {gen_be} серыі",
        )
    if any(r.team == team and r.part == part for r in season.results):
        raise season.refuse_for(
            "withdraw",
            f"«{team}» has already played in the {part} series and can no longer withdraw from it",
            f"«{team}» уже играла в {gen} серии и отказаться от неё больше не может",
            f"«{team}» ужо гуляла ў {gen_be} серыі і адмовіцца ад яе больш не можа",
        )
    if team not in season.rating:
        refuse_no_place(season, team, part)
    season.book.check_withdraw(season, team)
    s.withdrawn.append(team)
    season.book.withdrawn(season, team)
    short = season.book.shortage(season, team)
    if short:
        raise season.refuse(season.book.shortage_clause(season), *short)
    season.book.reorder(season)


def refuse_no_place(season: Season, team: str, part: str, coming: bool = False) -> NoReturn:
    """Refuse the withdrawal of ``team``, which has no place in the ``part`` series (the
    open one, or the ``coming`` one): the book's reasons (through to winter, a reserve),
    else it is not in the rating."""
    which, which_ru, which_be = (
        ("coming ", "предстоящей ", "наступнай ") if coming else ("", "", "")
    )
    head = f"«{team}» cannot withdraw from the {which}{part} series: it has no place in it"
    head_ru = (
        f"«{team}» не может отказаться от участия в {which_ru}{PART_RU[part]} серии: "
        "места в ней у неё нет"
    )
    head_be = (
        f"«{team}» не можа адмовіцца ад удзелу ў {which_be}{PART_BE[part]} серыі: "
        "месца ў ёй у яе няма"
    )
    season.book.no_place(season, team, head, head_ru, head_be)
    raise season.refuse_for(
        "not_listed",
        f"{head}, it is not in the series' rating",
        f"{head_ru} — её нет в рейтинге серии",
        f"{head_be} — яе няма ў рэйтынгу серыі",
    )


def _withdraw_coming(season: Season, team: str) -> None:
    """Between two series: ``team`` refuses the series that opens next; the refusal applies
    when it opens (``Season._on_series``). Refused when the book says the team cannot be in
    that series (``RuleBook.coming``) and when the teams left could not play its
    qualifying games."""
    assert len(season.parts) < len(PARTS)  # the winter series ends with the year final
    coming = PARTS[len(season.parts)]
    gen, gen_be = PART_RU[coming], PART_BE[coming]
    if team in season.refusing:
        raise season.refuse_for(
            "withdraw",
            f"«{team}» has already withdrawn from the coming {coming} series",
            f"«{team}» уже отказалась от участия в предстоящей {gen} серии",
            f"«{team}» ужо адмовілася ад удзелу ў наступнай {gen_be} серыі",
        )
    candidates, need, clause = season.book.coming(season, team, coming)
    left = [t for t in candidates if t not in season.refusing and t != team]
    if team in candidates and len(left) < need:
        raise season.refuse(
            clause,
            f"«{team}» cannot withdraw from the coming {coming} series: without it and the "
            f"teams that withdrew before, {len(left)} teams are left for at least {need} "
            "qualifying games",
            f"«{team}» не может отказаться от участия в предстоящей {gen} серии: без неё и "
            f"уже отказавшихся команд для {qualifying_gen_ru(need)} останется "
            f"{teams_ru(len(left))}",
            f"«{team}» не можа адмовіцца ад удзелу ў наступнай {gen_be} серыі: без яе і "
            f"каманд, што ўжо адмовіліся, для {qualifying_gen_be(need)} застанецца "
            f"{teams_be(len(left))}",
        )
    season.refusing.append(team)
