"""The 2023 rule book's season: ``000_90d7c8192601ed3a.txt`` §4.1–§4.10 (Belarusian edition).

What only this book says: the series' shapes (§4.1), each series' rating formed anew
(§4.2.1–§4.2.3, the winter one §4.9), the qualifying order from the lowest place (§4.8), a
win placed by its score difference (§4.5), a finalist straight to winter (§4.7.2), out after
the second lost game (§4.4, amendable: ``losses_to_out``), reserve teams (§4.9.3), the series
best and its decisive round (§3.6). The shared replay is :mod:`webapp.domain.season.engine`; the readings are
indexed in ``docs/rules.md`` ("The season").
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from webapp.domain.rules.game import can_pass_without_decisive
from webapp.domain.rules.parameters import AMEND_CLAUSE
from webapp.domain.season.events import KINDS, Event
from webapp.domain.season.rulebook import RuleBook
from webapp.domain.season.state import NextGame, Result, SeasonViolation
from webapp.domain.season.words import (
    KIND_BE,
    KIND_EN,
    KIND_RU,
    PART_BE,
    PART_RU,
    names,
    names_and,
    qualifying_gen_be,
    qualifying_gen_ru,
    shape_be,
    shape_en,
    shape_ru,
    teams_be,
    teams_ru,
)
from webapp.domain.text import ru_plural

from .rules import RULESET_2023

if TYPE_CHECKING:
    from webapp.domain.season.engine import Season

# §4.1: what each series consists of, (qualifying games, closing game).
SERIES_SHAPES_2023 = {
    "spring": ((5, "series_final"),),
    "summer": ((5, "series_final"),),
    "autumn": ((4, "special"), (5, "series_final")),
    "winter": ((4, "special"), (5, "year_final")),
}


class Book2023(RuleBook):
    """The 2023 book (``"2023"``)."""

    name = "2023"
    file = RULESET_2023.file
    game_rules = RULESET_2023
    clauses = MappingProxyType(
        {
            "year_final": "§4.10",
            "series_sequence": "§4.1",
            "series_shape": "§4.1",
            "withdraw": "§4.8.1",
            "not_listed": "§4.8.1",
            "winter_rating": "§4.9",
            "finalist": "§4.7.2",  # through to the winter series (Sova's start)
            "game_end": "§3.10",
            "decisive": "§3.6",
            "special": "§4.6",
        }
    )
    decisive_round = True

    # ----------------------------------------------------------------- series

    def form(
        self,
        season: Season,
        part: str,
        qualifying: int,
        closing: str,
        named: tuple[str, ...] | None,
    ) -> tuple[list[str], str]:
        """§4.1 (the shapes), §4.2.1–§4.2.3 and §4.9 (the rating); a shortage cites §4.8,
        in winter §4.9.3."""
        self.check_shape(season, part, qualifying, closing, 0)
        rating = self._form(season, part, qualifying, named)
        return rating, "§4.9.3" if part == "winter" else "§4.8"

    def check_shape(
        self, season: Season, part: str, qualifying: int, closing: str, teams: int
    ) -> None:
        """§4.1: autumn and winter have 4 qualifying games and a special game or 5 and a
        final; spring and summer 5 and a final."""
        shapes = SERIES_SHAPES_2023[part]
        if (qualifying, closing) not in shapes:
            most = max(q for q, _c in shapes)
            raise season.refuse(
                "§4.1",
                f"the {part} series has "
                + " or ".join(shape_en(q, c) for q, c in shapes)
                + f" (at most {most} qualifying games), not {shape_en(qualifying, closing)}",
                f"в {PART_RU[part]} серии — "
                + " или ".join(shape_ru(q, c) for q, c in shapes)
                + f" (отборочных игр не больше {most}), а не {shape_ru(qualifying, closing)}",
                f"у {PART_BE[part]} серыі — "
                + " або ".join(shape_be(q, c) for q, c in shapes)
                + f" (адборачных гульняў не больш за {most}), а не {shape_be(qualifying, closing)}",
            )

    def _last_result(self, season: Season, team: str, kinds: tuple[str, ...]) -> Result | None:
        return next(
            (r for r in reversed(season.results) if r.team == team and r.kind in kinds), None
        )

    def _bottom(self, season: Season, rating: list[str]) -> list[str]:
        """2023 §4.8.1: the teams that refused the coming series go to the bottom line of its
        rating, in the order they refused; the teams below them move up."""
        return [t for t in rating if t not in season.refusing] + [
            t for t in season.refusing if t in rating
        ]

    def _form(
        self, season: Season, part: str, qualifying: int, named: tuple[str, ...] | None
    ) -> list[str]:
        """§4.2.1–§4.2.2 (spring, summer: by name, or S2), §4.2.3 (autumn), §4.9 (winter); the
        teams that refused the series go to its bottom line (§4.8.1)."""
        gen, gen_be = PART_RU[part], PART_BE[part]
        eligible = [
            t
            for t in season.teams
            if t not in season.reserves and season.out_rule(t) is None and t not in season.winter
        ]
        if part in ("spring", "summer"):
            if named is not None:  # §4.2.1, §4.2.2: the book lists them by name
                for team in named:
                    season.refuse_if_out(team)
                    if team in season.winter:
                        raise season.refuse(
                            "§4.7.2",
                            f"«{team}» cannot be on the list of the {part} series: it played "
                            "a series final and is through to the winter series",
                            f"«{team}» не может быть в списке {gen} серии: она сыграла финал "
                            "серии и уже вышла в зимнюю серию",
                            f"«{team}» не можа быць у спісе {gen_be} серыі: яна згуляла фінал "
                            "серыі і ўжо выйшла ў зімовую серыю",
                        )
                    if team in season.reserves:
                        raise season.refuse(
                            "§4.9.3",
                            f"«{team}» cannot be on the list of the {part} series: a reserve "
                            "team is drawn into the winter series only",
                            f"«{team}» не может быть в списке {gen} серии: команды резерва "
                            "привлекаются только к зимней серии",
                            f"«{team}» не можа быць у спісе {gen_be} серыі: каманды рэзерву "
                            "прыцягваюцца толькі да зімовай серыі",
                        )
                return self._bottom(season, list(named))
            fresh = [t for t in eligible if not any(r.team == t for r in season.results)]
            played = [t for t in season.rating if t in eligible and t not in fresh]
            played += [t for t in eligible if t not in fresh and t not in played]
            return self._bottom(season, fresh + played)
        if part == "autumn":  # §4.2.3
            with_result: list[tuple[str, Any]] = []
            without: list[tuple[str, Any]] = []
            for team in eligible:
                result = self._last_result(season, team, ("qualifying",))
                (without if result is None else with_result).append((team, result))
            with_result.sort(key=lambda tr: (-int(tr[1].won), -tr[1].margin, tr[1].order))
            rating = self._bottom(season, [t for t, _ in with_result] + [t for t, _ in without])
            clause = "§4.2.3"
        else:  # winter, §4.9
            rating = self._form_winter(season, qualifying)
            clause = "§4.9"
        if named is not None and list(named) != rating:
            raise season.refuse(
                clause,
                f"the {part} rating given, {names(named)}, is not the one the rules form: "
                f"{names(rating)}",
                f"рейтинг {gen} серии по правилам — {names(rating)}, а не {names(named)}",
                f"рэйтынг {gen_be} серыі паводле правілаў — {names(rating)}, а не {names(named)}",
            )
        return rating

    def _form_winter(self, season: Season, qualifying: int) -> list[str]:
        """§4.9.1–§4.9.3: finals' winners (earlier series first), then finals' losers (earlier
        first), then the best of the final autumn rating by their last game (later result first
        on a tie), then reserve teams in the order they entered; ``qualifying`` teams in all.
        A team that refused the winter series (§4.8.1) leaves its place to the next one and
        is put on the bottom line, after them."""
        finals = [r for r in season.final_results if season.out_rule(r.team) is None]
        head = [r.team for r in finals if r.won] + [r.team for r in finals if not r.won]
        head = list(dict.fromkeys(head))
        autumn = [t for t in season.rating if t not in head and season.out_rule(t) is None]
        ranked: list[tuple[str, Any]] = []
        unranked: list[tuple[str, Any]] = []
        for team in autumn:
            result = self._last_result(season, team, KINDS)
            (unranked if result is None else ranked).append((team, result))
        ranked.sort(key=lambda tr: (-int(tr[1].won), -tr[1].margin, tuple(-i for i in tr[1].order)))
        pool = head + [t for t, _ in ranked] + [t for t, _ in unranked]

        def fill(teams: list[str], skip: list[str]) -> list[str]:
            teams = [t for t in teams if t not in skip]
            if len(teams) < qualifying:  # §4.9.3
                reserves = [t for t in season.reserves if t not in teams and t not in skip]
                teams += reserves[: qualifying - len(teams)]
            return teams[:qualifying]

        playing = fill(pool, season.refusing)
        if len(playing) < qualifying:
            refused = f" ({names_and(season.refusing)} withdrew)" if season.refusing else ""
            refused_ru = f"; отказались: {names(season.refusing)}" if season.refusing else ""
            refused_be = f"; адмовіліся: {names(season.refusing)}" if season.refusing else ""
            raise season.refuse(
                "§4.9.3",
                f"the winter series cannot have {qualifying} qualifying games: even with the "
                f"reserve teams only {len(playing)} teams can play{refused}",
                f"в зимней серии не может быть {qualifying_gen_ru(qualifying)}: даже с "
                f"командами резерва сыграть могут только {teams_ru(len(playing))}{refused_ru}",
                f"у зімовай серыі не можа быць {qualifying_gen_be(qualifying)}: нават з "
                f"камандамі рэзерву згуляць могуць толькі {teams_be(len(playing))}{refused_be}",
            )
        would_play = fill(pool, [])
        return playing + [t for t in season.refusing if t in would_play]

    def order(self, season: Season) -> list[str]:
        """2023 §4.8: the first ``qualifying`` places of the series' rating at its opening,
        the lowest of them plays first. A team that withdrew (§4.8.1) leaves its place and the
        teams below move up; after a withdrawal during the series, the games already played
        keep their turns and the others follow in the new order."""
        s = season.series
        assert s is not None
        places = [t for t in s.opened_rating if t not in s.withdrawn]
        played = (s.order or [])[: s.qualifying_played]
        return played + [t for t in reversed(places[: s.qualifying]) if t not in played]

    def reorder(self, season: Season) -> None:
        assert season.series is not None
        season.series.order = self.order(season)

    def shortage(self, season: Season, withdrawing: str | None) -> tuple[str, str, str] | None:
        """§4.8: the places at the opening (a team put out here has played here) for the
        series' qualifying games."""
        s = season.series
        assert s is not None
        have = len([t for t in s.opened_rating if t not in s.withdrawn])
        return season.too_few(have, s.qualifying, withdrawing)

    def next_qualifying(self, season: Season) -> NextGame | None:
        """§4.8: the order fixed at the opening."""
        s = season.series
        assert s is not None
        order = s.order or []
        return (
            NextGame("qualifying", order[s.qualifying_played])
            if s.qualifying_played < len(order)
            else None
        )

    # ----------------------------------------------------------------- games

    def refuse_kind(self, season: Season, kind: str) -> None:
        if kind == "rematch":
            raise self._no_rematch(season)

    @staticmethod
    def _no_rematch(season: Season) -> SeasonViolation:
        return season.refuse(
            "§4.1",
            "a rematch is a 2009 event: the 2023 rules have none",
            "переигровки (матча-реванша) в правилах 2023 г. нет: это событие правил 2009 г.",
            "пераігроўкі (матча-рэванша) у правілах 2023 г. няма: гэта падзея правілаў 2009 г.",
        )

    def check_game(self, season: Season, kind: str, team: str, decisive_round: bool) -> None:
        s = season.series
        assert s is not None
        part, gen, gen_be = s.part, PART_RU[s.part], PART_BE[s.part]
        if kind == "qualifying":
            order = s.order or []
            number = s.qualifying_played + 1
            due = order[s.qualifying_played]
            if team in season.winter and team not in season.rating:
                raise season.refuse(
                    "§4.7.2",
                    f"«{team}» cannot play a qualifying game: it played a series final and "
                    "is through to the winter series",
                    f"«{team}» не может играть отборочную игру: она сыграла финал серии и уже "
                    "вышла в зимнюю серию",
                    f"«{team}» не можа гуляць адборачную гульню: яна згуляла фінал серыі і ўжо "
                    "выйшла ў зімовую серыю",
                )
            season.refuse_withdrawn(team, "§4.8.1")
            if team in order[: s.qualifying_played]:
                raise season.refuse(
                    "§4.8",
                    f"«{team}» has already played its qualifying game of the {part} series",
                    f"«{team}» уже сыграла свою отборочную игру {gen} серии",
                    f"«{team}» ужо згуляла сваю адборачную гульню {gen_be} серыі",
                )
            if team != due and team in order:
                raise season.refuse(
                    "§4.8",
                    f"«{team}» plays out of turn: qualifying game {number} of the {part} "
                    f"series is «{due}»'s (the team lowest in the rating plays first, the "
                    "first place last)",
                    f"«{team}» играет не в свою очередь: {number}-ю отборочную игру {gen} "
                    f"серии играет «{due}» (первой играет команда с последнего места рейтинга, "
                    "последней — с первого)",
                    f"«{team}» гуляе не ў сваю чаргу: {number}-ю адборачную гульню {gen_be} "
                    f"серыі гуляе «{due}» (першай гуляе каманда з апошняга месца рэйтынгу, "
                    "апошняй — з першага)",
                )
            if team != due:
                raise season.refuse(
                    "§4.8",
                    f"«{team}» plays no qualifying game of the {part} series: they are played "
                    f"by the first {s.qualifying} places of the rating, game {number} by "
                    f"«{due}»",
                    f"«{team}» не играет отборочных игр {gen} серии: их играют первые "
                    f"{s.qualifying} мест рейтинга, {number}-ю — «{due}»",
                    f"«{team}» не гуляе адборачных гульняў {gen_be} серыі: іх гуляюць першыя "
                    f"{s.qualifying} месцаў рэйтынгу, {number}-ю — «{due}»",
                )
            if decisive_round:
                self._refuse_if_abolished(season)
                best = season.series_best()
                if best is None or all(
                    can_pass_without_decisive(v, (best.experts, best.viewers), season.target)
                    for v in range(season.target)
                ):
                    raise season.refuse(
                        "§3.6",
                        f"«{team}»'s game may not have a decisive round: no team that played "
                        f"earlier in the {part} series leads the rating with a result that "
                        "could not be passed without one",
                        f"решающий раунд в игре «{team}» не положен: ни одна команда, "
                        f"сыгравшая в {gen} серии раньше, не стоит первой в рейтинге с "
                        "результатом, который без него не превзойти",
                        f"вырашальны раўнд у гульні «{team}» не прадугледжаны: ніводная каманда, "
                        f"што згуляла ў {gen_be} серыі раней, не стаіць першай у рэйтынгу з "
                        "вынікам, які без яго не пераўзысці",
                    )
            return
        if decisive_round:
            raise season.refuse(
                "§3.6",
                f"{KIND_EN[kind]} has no decisive round: there is no result of an earlier "
                "game of the series to pass",
                f"в игре вида «{KIND_RU[kind]}» решающего раунда нет: превосходить "
                "результат сыгравших раньше в ней не нужно",
                f"у гульні віду «{KIND_BE[kind]}» вырашальнага раўнда няма: пераўзыходзіць "
                "вынік тых, хто згуляў раней, у ёй не трэба",
            )
        if kind == "series_final":
            finalist = season.finalist()
            if team != finalist:
                raise season.refuse(
                    "§4.7.1",
                    f"«{team}» cannot play the {part} series final: «{finalist}» is first in "
                    "the rating after the qualifying games",
                    f"«{team}» не может играть финал {gen} серии: по итогам отборочных игр "
                    f"первая в рейтинге — «{finalist}»",
                    f"«{team}» не можа гуляць фінал {gen_be} серыі: па выніках адборачных "
                    f"гульняў першая ў рэйтынгу — «{finalist}»",
                )
        elif kind == "special":
            if team in season.rating:
                raise season.refuse(
                    "§4.6",
                    f"«{team}» cannot play the special game: it is in the rating, and the "
                    "teams of special games take no part in it",
                    f"«{team}» не может играть специальную игру: она в рейтинге, а "
                    "участницы специальных игр в рейтинге не участвуют",
                    f"«{team}» не можа гуляць спецыяльную гульню: яна ў рэйтынгу, а "
                    "ўдзельніцы спецыяльных гульняў у рэйтынгу не ўдзельнічаюць",
                )
        elif kind == "year_final":
            if not season.rating or team != season.rating[0]:
                first = season.rating[0] if season.rating else None
                raise season.refuse(
                    "§4.10",
                    f"«{team}» cannot play the year final: «{first}» is first in the winter rating",
                    f"«{team}» не может играть финал года: первая в рейтинге зимней серии — "
                    f"«{first}»",
                    f"«{team}» не можа гуляць фінал года: першая ў рэйтынгу зімовай серыі — "
                    f"«{first}»",
                )

    def _refuse_if_abolished(self, season: Season) -> None:
        """2023 §4.12.1: a decisive round after an amendment set ``decisive_round`` false."""
        if not season.rules.get("decisive_round", False):
            event = next(a.event for a in reversed(season.amendments) if "decisive_round" in a.set)
            raise SeasonViolation(
                season.index,
                AMEND_CLAUSE,
                f"the decisive round (§3.6) was abolished by the amendment of event {event}",
                f"решающий раунд (п. 3.6) отменён изменением правил (событие {event})",
                f"вырашальны раўнд (п. 3.6) адменены змяненнем правілаў (падзея {event})",
            )

    def place(self, season: Season, result: Result) -> str:
        """§4.5: move ``result.team`` in the rating; return the clause applied."""
        s = season.series
        assert s is not None
        rating = [t for t in season.rating if t != result.team]
        if not result.won:
            rating.append(result.team)  # §4.5.5
            season.rating = rating
            return "§4.5.5"
        earlier = [r for r in s.results if r.won and r.team in rating]
        better = [r for r in earlier if r.margin > result.margin]
        if not better:
            rating.insert(0, result.team)  # §4.5.1
            clause = "§4.5.1"
        else:
            rating.insert(max(rating.index(r.team) for r in better) + 1, result.team)
            clause = "§4.5.2"
        if any(r.margin == result.margin for r in earlier):
            clause = "§4.5.4" if result.won and result.viewers == 0 else "§4.5.3"
        season.rating = rating
        return clause

    def final(self, season: Season, result: Result) -> str:
        """§4.7.2: the finalist, won or lost, goes to the winter series; nobody moves (S8)."""
        s = season.series
        assert s is not None
        if s.part != "winter" and result.team not in season.winter:
            season.winter.append(result.team)
        return "§4.7.2"

    def after_game(self, season: Season, result: Result, rule: str) -> str:
        """§4.4: a lost qualifying game or series final counts; ``losses_to_out`` of them
        (two, or as amended, §4.12.1) put the team out of the season and every rating."""
        if not result.won and result.kind in ("qualifying", "series_final"):
            team = result.team
            season.losses[team] = season.losses.get(team, 0) + 1
            if season.losses[team] >= season.rules["losses_to_out"]:
                season.put_out(team, "§4.4")
                return "§4.4"
        return rule

    def out_reason(self, season: Season, team: str, rule: str) -> tuple[str, str, str]:
        n = season.losses.get(team, 0)
        if n != 2:  # an amended losses_to_out (§4.12.1)
            ru = f"«{team}» проиграла {n} " + ru_plural(n, ("игру", "игры", "игр"))
            be = f"«{team}» прайграла {n} " + ru_plural(n, ("гульню", "гульні", "гульняў"))
            return (
                f"«{team}» lost {n} games of the season and is out",
                ru + " в сезоне и выбыла из него",
                be + " у сезоне і выбыла з яго",
            )
        return (
            f"«{team}» lost its second game of the season and is out",
            f"«{team}» проиграла вторую игру в сезоне и выбыла из него",
            f"«{team}» прайграла другую гульню ў сезоне і выбыла з яго",
        )

    # ----------------------------------------------------------------- withdrawals

    def withdrawn(self, season: Season, team: str) -> None:
        """§4.8.1: to the bottom line, the teams below move up."""
        season.rating = [t for t in season.rating if t != team] + [team]

    def shortage_clause(self, season: Season) -> str:
        return "§4.8"

    def no_place(self, season: Season, team: str, head: str, head_ru: str, head_be: str) -> None:
        if team in season.winter and team not in season.rating:
            raise season.refuse(
                "§4.7.2",
                f"{head}, having played a series final it is through to the winter series",
                f"{head_ru} — она сыграла финал серии и уже вышла в зимнюю серию",
                f"{head_be} — яна згуляла фінал серыі і ўжо выйшла ў зімовую серыю",
            )
        if team in season.reserves:
            raise season.refuse(
                "§4.9.3",
                f"{head}, a reserve team is drawn into the winter series only",
                f"{head_ru} — команды резерва привлекаются только к зимней серии",
                f"{head_be} — каманды рэзерву прыцягваюцца толькі да зімовай серыі",
            )

    def coming(self, season: Season, team: str, coming: str) -> tuple[list[str], int, str]:
        """§4.8.1: a team through to winter or a reserve has no place before winter; the
        fewest qualifying games of the coming series (§4.1) need as many teams (§4.8, winter
        §4.9.3)."""
        if coming != "winter" and (team in season.winter or team in season.reserves):
            season.refuse_no_place(team, coming, coming=True)
        candidates = [
            t
            for t in season.teams
            if season.out_rule(t) is None
            and (coming == "winter" or (t not in season.reserves and t not in season.winter))
        ]
        need = min(q for q, _c in SERIES_SHAPES_2023[coming])
        return candidates, need, "§4.9.3" if coming == "winter" else "§4.8"

    # ----------------------------------------------------------------- a season joined under way

    def earlier(self, season: Season, result: Result) -> None:
        """§4.7.2: a series finalist is through to the winter series; §4.4: a lost
        qualifying game or final counts towards ``losses_to_out``."""
        if result.kind == "series_final" and result.team not in season.winter:
            season.winter.append(result.team)
        self.after_game(season, result, "")

    def start_winter(self, season: Season, given: tuple[str, ...] | None) -> None:
        """§4.7.2: every finalist of a series so far is through to winter, none gives it up;
        a ``given`` list must name exactly them."""
        if given is not None and set(given) != set(season.winter):
            raise season.refuse(
                "§4.7.2",
                f"the winter places given, {names(given)}, are not the series finalists so "
                f"far: {names(season.winter) or 'none'}",
                f"в зимнюю серию выходят финалисты сыгранных серий — "
                f"{names(season.winter) or 'пока никто'}, а не {names(given) or 'никто'}",
                f"у зімовую серыю выходзяць фіналісты згуляных серый — "
                f"{names(season.winter) or 'пакуль ніхто'}, а не {names(given) or 'ніхто'}",
            )

    def start_rematch(self, season: Season, team: str, part: str) -> None:
        raise self._no_rematch(season)

    # ----------------------------------------------------------------- the book's own events

    def rematch(self, season: Season, team: str, event: Event) -> None:
        raise self._no_rematch(season)

    def decline_winter(self, season: Season, team: str) -> None:
        raise season.refuse(
            "§4.7.2",
            "giving up a winter place is a 2009 event: a 2023 series finalist goes "
            "straight to the winter series",
            "отказа от места в зимней серии в правилах 2023 г. нет (событие правил 2009 г.): "
            "финалист серии сразу выходит в зимнюю серию",
            "адмовы ад месца ў зімовай серыі ў правілах 2023 г. няма (падзея правілаў 2009 г.): "
            "фіналіст серыі адразу выходзіць у зімовую серыю",
        )

    def check_entry(self, season: Season, team: str, enter_as: str | None) -> None:
        """§4.9.3: a team joins the season as a reserve team only."""
        if enter_as != "reserve":
            raise season.refuse(
                "§4.9.3",
                f"«{team}» cannot enter as a sponsor's team: the 2023 rules have none, a team "
                "joins the season as a reserve team (§4.9.3)",
                "команды спонсора в правилах 2023 г. нет: в зимний рейтинг входят "
                "резервные команды",
                "каманды спонсара ў правілах 2023 г. няма: у зімовы рэйтынг уваходзяць "
                "рэзервовыя каманды",
            )

    def enter(self, season: Season, team: str) -> None:
        season.reserves.append(team)
