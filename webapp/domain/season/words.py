"""How the season engine's refusals name things, in English and in Russian (pure helpers).

A series' part in the genitive (``PART_RU["spring"]`` → «весенней») and the nominative, the
closing games, the kinds of game, a series' shape (``shape_en(4, "special")``), team lists as
a person reads them (``names``, ``names_and``) and Russian plurals of counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from webapp.domain.text import ru_plural

PART_RU = {"spring": "весенней", "summer": "летней", "autumn": "осенней", "winter": "зимней"}
PART_NOM_RU = {"spring": "весенняя", "summer": "летняя", "autumn": "осенняя", "winter": "зимняя"}
CLOSING_RU = {
    "series_final": "финал серии",
    "special": "специальная игра",
    "year_final": "финал года",
    "none": "без завершающей игры",
}


def qualifying_ru(n: int) -> str:
    """``5`` → ``"5 отборочных игр"``, ``4`` → ``"4 отборочные игры"`` (Russian plural)."""
    return f"{n} " + ru_plural(n, ("отборочная игра", "отборочные игры", "отборочных игр"))


def qualifying_gen_ru(n: int) -> str:
    """``1`` → ``"1 отборочной игры"``, ``4`` → ``"4 отборочных игр"`` (after «для», «из»)."""
    return f"{n} " + ru_plural(n, ("отборочной игры", "отборочных игр", "отборочных игр"))


def teams_ru(n: int) -> str:
    """``2`` → ``"2 команды"``, ``5`` → ``"5 команд"``."""
    return f"{n} " + ru_plural(n, ("команда", "команды", "команд"))


def shape_ru(qualifying: int, closing: str) -> str:
    return f"{qualifying_ru(qualifying)} и {CLOSING_RU[closing]}"


CLOSING_EN = {
    "series_final": "a series final",
    "special": "a special game",
    "year_final": "the year final",
    "none": "no closing game",
}
KIND_EN = {
    "qualifying": "a qualifying game",
    "series_final": "a series final",
    "special": "a special game",
    "year_final": "the year final",
    "rematch": "a rematch",
}
KIND_RU = {
    "qualifying": "отборочная игра",
    "series_final": "финал серии",
    "special": "специальная игра",
    "year_final": "финал года",
    "rematch": "Матч-реванш",
}
# "финал весенней серии", "финал года": what a person calls the closing game of a series
KIND_ACC_RU = {
    "qualifying": "отборочную игру",
    "series_final": "финал серии",
    "special": "специальную игру",
    "year_final": "финал года",
    "rematch": "Матч-реванш",
}


def shape_en(qualifying: int, closing: str) -> str:
    games = "qualifying game" if qualifying == 1 else "qualifying games"
    return f"{qualifying} {games} and {CLOSING_EN[closing]}"


def names(teams: Iterable[str]) -> str:
    """``["A", "B"]`` → ``"«A», «B»"`` (a rating as a person reads it)."""
    return ", ".join(f"«{t}»" for t in teams)


def names_and(teams: Sequence[str], conj: str = "and") -> str:
    """``["A", "B"]`` → ``"«A» and «B»"`` (``conj="и"`` in Russian)."""
    named = [f"«{t}»" for t in teams]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} {conj} {named[-1]}"
