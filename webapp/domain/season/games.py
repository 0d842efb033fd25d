"""Games in the season engine: may a game be played now (:func:`check_game`), and what a
played game does (:func:`on_game`): the shared refusals — the season is over, the team is
out, no series is open, the kind of game is not the one due — and the shared record (result,
finals, history); the season's book checks its own rules and moves the rating
(``RuleBook.check_game``, ``place``, ``final``, ``after_game``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from webapp.domain.rules.errors import ProtocolError
from webapp.domain.text import ru_plural

from .events import KINDS, Event
from .state import Final, Move, OpenSeries, Result
from .words import (
    KIND_ACC_BE,
    KIND_ACC_RU,
    KIND_BE,
    KIND_EN,
    KIND_RU,
    PART_BE,
    PART_NOM_BE,
    PART_NOM_RU,
    PART_RU,
    qualifying_gen_be,
    qualifying_gen_ru,
    shape_be,
    shape_en,
    shape_ru,
)

if TYPE_CHECKING:
    from .engine import Season


def check_game(
    season: Season, kind: str, team: str, decisive_round: bool = False, index: int | None = None
) -> None:
    """Refuse (:class:`SeasonViolation`) a game of ``kind`` by ``team`` that the rules do
    not allow now, before it is played (the producer proposing the next game); the clause
    says why. ``index``: the event index to report (default: the last event applied; pass
    the length of the event list for a game not yet recorded). Does not change the season.
    """
    if index is not None:
        season.index = index
    if kind not in KINDS:
        raise ProtocolError(
            f"game.kind must be one of {', '.join(KINDS)}; got {kind!r}",
            season.index,
            ru=f"вид игры — один из: {', '.join(KINDS)}; получено {kind!r}",
            be=f"від гульні — адзін з: {', '.join(KINDS)}; атрымана {kind!r}",
        )
    season.known(team)
    game_en, game_ru, game_be = (
        f"«{team}»'s game ({kind.replace('_', ' ')})",
        (f"игра «{team}» ({KIND_RU[kind]})"),
        (f"гульня «{team}» ({KIND_BE[kind]})"),
    )
    if season.over:
        raise season.refuse_for(
            "year_final",
            f"{game_en} cannot be played: the year final is played and the season is over",
            f"{game_ru} невозможна: финал года сыгран, сезон окончен",
            f"{game_be} немагчымая: фінал года згуляны, сезон скончаны",
        )
    season.refuse_if_out(team)
    phase = season.phase()
    s = season.series
    if s is None:
        raise season.refuse_for(
            "series_sequence",
            f"{game_en} cannot be played: no series has opened yet",
            f"{game_ru} невозможна: ни одна серия ещё не открыта",
            f"{game_be} немагчымая: ніводная серыя яшчэ не адкрыта",
        )
    season.book.refuse_kind(season, kind)
    part, gen, nom = s.part, PART_RU[s.part], PART_NOM_RU[s.part]
    gen_be, nom_be = PART_BE[s.part], PART_NOM_BE[s.part]
    if phase == "series":  # the series' closing game is played, the next has not opened
        raise season.refuse_for(
            "year_final" if kind == "year_final" else "series_shape",
            f"{game_en} cannot be played: the {part} series is over and the next series "
            "has not opened",
            f"{game_ru} невозможна: {nom} серия окончена, а следующая не открыта",
            f"{game_be} немагчымая: {nom_be} серыя скончана, а наступная не адкрыта",
        )
    if kind in ("qualifying", "rematch"):
        if phase != "qualifying":
            raise season.refuse_for(
                "series_shape",
                f"«{team}» cannot play {KIND_EN[kind]}: the {s.qualifying} qualifying "
                f"games of the {part} series are played and {KIND_EN[phase]} is due",
                f"«{team}» не может играть {KIND_ACC_RU[kind]}: отборочные игры {gen} "
                f"серии сыграны ({s.qualifying} из {s.qualifying}), теперь — "
                f"{KIND_RU[phase]}",
                f"«{team}» не можа гуляць {KIND_ACC_BE[kind]}: адборачныя гульні {gen_be} "
                f"серыі згуляныя ({s.qualifying} з {s.qualifying}), цяпер — "
                f"{KIND_BE[phase]}",
            )
    elif kind != phase:
        _refuse_off_phase(season, kind, team, phase, s)
    season.book.check_game(season, kind, team, decisive_round)


def _refuse_off_phase(season: Season, kind: str, team: str, phase: str, s: OpenSeries) -> NoReturn:
    """Refuse a series final, special game or year final that is not the game due."""
    part, gen, nom = s.part, PART_RU[s.part], PART_NOM_RU[s.part]
    gen_be, nom_be = PART_BE[s.part], PART_NOM_BE[s.part]
    season.book.check_off_phase(season, kind, team)
    if kind in ("series_final", "special") and s.closing != kind:
        raise season.refuse_for(
            "series_shape",
            f"the {part} series has no {KIND_EN[kind].split(' ', 1)[1]}: it has "
            f"{shape_en(s.qualifying, s.closing)}",
            f"в {gen} серии нет игры вида «{KIND_RU[kind]}»: в ней "
            f"{shape_ru(s.qualifying, s.closing)}",
            f"у {gen_be} серыі няма гульні віду «{KIND_BE[kind]}»: у ёй "
            f"{shape_be(s.qualifying, s.closing)}",
        )
    if kind == "year_final" and part != "winter":
        raise season.refuse_for(
            "year_final",
            f"«{team}» cannot play the year final: it closes the winter series, and "
            f"the {part} series is on",
            f"«{team}» не может играть финал года: он завершает зимнюю серию, а идёт {nom} серия",
            f"«{team}» не можа гуляць фінал года: ён завяршае зімовую серыю, а ідзе {nom_be} серыя",
        )
    if phase == "qualifying":
        raise season.refuse_for(
            "series_shape",
            f"«{team}» cannot play {KIND_EN[kind]} yet: {s.qualifying_played} of the "
            f"{s.qualifying} qualifying games of the {part} series are played",
            f"«{team}» пока не может играть {KIND_ACC_RU[kind]}: сыграно "
            f"{s.qualifying_played} из {qualifying_gen_ru(s.qualifying)} {gen} серии",
            f"«{team}» пакуль не можа гуляць {KIND_ACC_BE[kind]}: згуляна "
            f"{s.qualifying_played} з {qualifying_gen_be(s.qualifying)} {gen_be} серыі",
        )
    topic = "year_final" if kind == "year_final" else "series_shape"
    if (kind == "series_final" and s.final_played) or (kind == "special" and s.special_played):
        played_ru = (
            f"финал {gen} серии уже сыгран"
            if kind == "series_final"
            else f"специальная игра {gen} серии уже сыграна"
        )
        played_be = (
            f"фінал {gen_be} серыі ўжо згуляны"
            if kind == "series_final"
            else f"спецыяльная гульня {gen_be} серыі ўжо згуляна"
        )
        raise season.refuse_for(
            topic,
            f"«{team}» cannot play {KIND_EN[kind]}: the {part} series' "
            f"{kind.replace('_', ' ')} has been played, and {KIND_EN[phase]} is due",
            f"«{team}» не может играть {KIND_ACC_RU[kind]}: {played_ru}, теперь — {KIND_RU[phase]}",
            f"«{team}» не можа гуляць {KIND_ACC_BE[kind]}: {played_be}, цяпер — {KIND_BE[phase]}",
        )
    raise season.refuse_for(
        topic,
        f"«{team}» cannot play {KIND_EN[kind]} now: {KIND_EN[phase]} of the {part} "
        "series comes first",
        f"«{team}» пока не может играть {KIND_ACC_RU[kind]}: сначала {KIND_RU[phase]} {gen} серии",
        f"«{team}» пакуль не можа гуляць {KIND_ACC_BE[kind]}: спачатку {KIND_BE[phase]} {gen_be} "
        "серыі",
    )


def on_game(season: Season, event: Event) -> None:
    kind, team, score = event.kind, event.team, event.score
    assert kind is not None and team is not None and score is not None
    season.known(team)
    experts, viewers = score
    win = season.target
    if (experts == win) == (viewers == win) or max(experts, viewers) > win:
        points = ru_plural(win, ("очка", "очков", "очков"))
        points_be = ru_plural(win, ("ачка", "ачкоў", "ачкоў"))
        raise season.refuse_for(
            "game_end",
            f"{experts}:{viewers} is not the score of a finished game: the game goes to "
            f"{win} points",
            f"{experts}:{viewers} — не счёт законченной игры: игра идёт до {win} {points}",
            f"{experts}:{viewers} — не лік скончанай гульні: гульня ідзе да {win} {points_be}",
        )
    if event.decisive_round and season.book.decisive_round and score not in ((win, 0), (0, win)):
        raise season.refuse_for(
            "decisive",
            f"{experts}:{viewers} cannot end a game with a decisive round: it ends "
            f"{win}:0 or 0:{win}",
            f"{experts}:{viewers} не может быть счётом игры с решающим раундом: она "
            f"заканчивается {win}:0 или 0:{win}",
            f"{experts}:{viewers} не можа быць лікам гульні з вырашальным раўндам: яна "
            f"заканчваецца {win}:0 або 0:{win}",
        )
    season.check_game(kind, team, event.decisive_round)
    s = season.series
    assert s is not None
    result = Result(
        event=season.index,
        team=team,
        kind=kind,
        experts=experts,
        viewers=viewers,
        decisive_round=event.decisive_round,
        part=s.part,
        rounds_lost=event.rounds_lost,
        seq=season.seq,
    )
    rule = _apply_game(season, result)
    season.results.append(result)
    season.history.append(
        Move(
            event=season.index,
            team=team,
            kind=kind,
            score=result.score,
            rating_after=tuple(season.rating),
            rule=f"{season.file} {rule}",
        )
    )


def _apply_game(season: Season, result: Result) -> str:
    """Record ``result`` and move the rating; return the clause applied."""
    s = season.series
    assert s is not None
    kind = result.kind
    if kind in ("qualifying", "rematch"):
        rule = season.book.place(season, result)
        s.results.append(result)
    elif kind == "series_final":
        s.final_played = True
        season.finals.append(
            Final(
                part=s.part,
                team=result.team,
                score=result.score,
                won=result.won,
                event=season.index,
            )
        )
        season.final_results.append(result)
        season.last_final = result
        rule = season.book.final(season, result)
    elif kind == "special":
        s.special_played = True
        rule = season.book.clauses["special"]
    else:  # year_final
        s.year_final_played = True
        season.over = True
        rule = season.book.clauses["year_final"]
    return season.book.after_game(season, result, rule)
