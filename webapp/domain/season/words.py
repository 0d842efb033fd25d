"""How the season engine's refusals name things, in English, Russian and Belarusian (pure
helpers).

A series' part in the genitive (``PART_RU["spring"]`` → «весенней», ``PART_BE["spring"]`` →
«вясновай», which Belarusian also uses after «у») and the nominative, the closing games, the
kinds of game, a series' shape (``shape_en(4, "special")``, ``shape_be``), team lists as a
person reads them (``names``, ``names_and``) and the plurals of counts (Russian and
Belarusian share the one-few-many rule, :func:`webapp.domain.text.ru_plural`).
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


PART_BE = {"spring": "вясновай", "summer": "летняй", "autumn": "восеньскай", "winter": "зімовай"}
PART_NOM_BE = {
    "spring": "вясновая",
    "summer": "летняя",
    "autumn": "восеньская",
    "winter": "зімовая",
}
CLOSING_BE = {
    "series_final": "фінал серыі",
    "special": "спецыяльная гульня",
    "year_final": "фінал года",
    "none": "без завяршальнай гульні",
}
KIND_BE = {
    "qualifying": "адборачная гульня",
    "series_final": "фінал серыі",
    "special": "спецыяльная гульня",
    "year_final": "фінал года",
    "rematch": "Матч-рэванш",
}
KIND_ACC_BE = {
    "qualifying": "адборачную гульню",
    "series_final": "фінал серыі",
    "special": "спецыяльную гульню",
    "year_final": "фінал года",
    "rematch": "Матч-рэванш",
}


def qualifying_be(n: int) -> str:
    """``5`` → ``"5 адборачных гульняў"``, ``4`` → ``"4 адборачныя гульні"``."""
    return f"{n} " + ru_plural(n, ("адборачная гульня", "адборачныя гульні", "адборачных гульняў"))


def qualifying_gen_be(n: int) -> str:
    """``1`` → ``"1 адборачнай гульні"``, ``4`` → ``"4 адборачных гульняў"`` (after «для», «з»)."""
    return f"{n} " + ru_plural(n, ("адборачнай гульні", "адборачных гульняў", "адборачных гульняў"))


def teams_be(n: int) -> str:
    """``2`` → ``"2 каманды"``, ``5`` → ``"5 каманд"``."""
    return f"{n} " + ru_plural(n, ("каманда", "каманды", "каманд"))


def shape_be(qualifying: int, closing: str) -> str:
    return f"{qualifying_be(qualifying)} і {CLOSING_BE[closing]}"


def shape_en(qualifying: int, closing: str) -> str:
    games = "qualifying game" if qualifying == 1 else "qualifying games"
    return f"{qualifying} {games} and {CLOSING_EN[closing]}"


def names(teams: Iterable[str]) -> str:
    """``["A", "B"]`` → ``"«A», «B»"`` (a rating as a person reads it)."""
    return ", ".join(f"«{t}»" for t in teams)


def names_and(teams: Sequence[str], conj: str = "and") -> str:
    """``["A", "B"]`` → ``"«A» and «B»"`` (``conj="и"`` in Russian, ``"і"`` in Belarusian)."""
    named = [f"«{t}»" for t in teams]
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} {conj} {named[-1]}"
