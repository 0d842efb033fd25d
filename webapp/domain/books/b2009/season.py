"""The 2009 rule book's season: ``002_e025d5ded135c1c4.txt`` §2.1–§2.18 (Russian edition).

What only this book says: one rating that goes on through the season (§2.1, §2.4), three
qualifying games and a final a series (§2.6), teams choosing their game (§2.3: ``next`` is a
person's), a win first and a loss last (§2.7–§2.8), the series final's winner leaving the
rating for winter (§2.12) and its loser asking for a rematch (§2.10–§2.11), the winter rating
of the finals' winners and the sponsor's team (§2.13–§2.17), no decisive round (§1.8). The
shared replay is :mod:`webapp.domain.season.engine`; the readings are indexed in ``docs/rules.md`` ("The season").

(Just over 500 lines on purpose: this book has three events of its own — the rematch, the
declined winter place, the sponsor's team — each with its refusals in English, Russian and Belarusian, and
one module per book keeps every clause of §2 that differs from 2023 in one place, where it is
checked against the book.)
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from webapp.domain.season.events import PARTS, Event
from webapp.domain.season.rulebook import RuleBook
from webapp.domain.season.state import NextGame, Result
from webapp.domain.season.words import (
    PART_BE,
    PART_NOM_BE,
    PART_NOM_RU,
    PART_RU,
    names,
    names_and,
    qualifying_be,
    qualifying_ru,
    shape_be,
    shape_en,
    shape_ru,
)

from .rules import RULESET_2009

if TYPE_CHECKING:
    from webapp.domain.season.engine import Season

# §2.6: each series has three qualifying games and a series final (winter: §2.15–2.17).
SERIES_SHAPE_2009 = (3, "series_final")


class Book2009(RuleBook):
    """The 2009 book (``"2009"``)."""

    name = "2009"
    file = RULESET_2009.file
    game_rules = RULESET_2009
    clauses = MappingProxyType(
        {
            "year_final": "§2.18",
            "series_sequence": "§2.5",
            "series_shape": "§2.6",
            "withdraw": "§2.3",
            "not_listed": "§2.4",
            "winter_rating": "§2.13",
            "finalist": "§2.12",  # through to the winter series (Sova's start)
            "game_end": "§1.8",
        }
    )

    # ----------------------------------------------------------------- series

    def form(
        self,
        season: Season,
        part: str,
        qualifying: int,
        closing: str,
        named: tuple[str, ...] | None,
    ) -> tuple[list[str], str]:
        """§2.4: the rating goes on, 3 qualifying games and a final (§2.6); winter formed
        anew (§2.13) and shaped by its teams (§2.15–§2.16). A shortage cites §2.6."""
        gen, gen_be = PART_RU[part], PART_BE[part]
        if part != "winter":
            self.check_shape(season, part, qualifying, closing, len(season.rating))
            rating = list(season.rating)  # §2.4: the rating goes on
            clause = "§2.4"
        else:
            rating = self._form_winter(season)
            clause = "§2.13"
            self.check_shape(season, part, qualifying, closing, len(rating))
        if named is not None and list(named) != rating:
            raise season.refuse(
                clause,
                f"the {part} rating given, {names(named)}, is not the one the rules form: "
                f"{names(rating)}",
                f"рейтинг {gen} серии по правилам — {names(rating)}, а не {names(named)}",
                f"рэйтынг {gen_be} серыі паводле правілаў — {names(rating)}, а не {names(named)}",
            )
        return rating, "§2.6"

    def check_shape(
        self, season: Season, part: str, qualifying: int, closing: str, teams: int
    ) -> None:
        """§2.6: 3 qualifying games and a series final; in winter (``teams`` in its rating)
        as many qualifying games as teams and no final from four teams on (§2.15), else 3
        and a final (§2.16)."""
        if part != "winter":
            if (qualifying, closing) != SERIES_SHAPE_2009:
                raise season.refuse(
                    "§2.6",
                    f"the {part} series has 3 qualifying games and a series final, "
                    f"not {shape_en(qualifying, closing)}",
                    f"в {PART_RU[part]} серии — 3 отборочные игры и финал серии, "
                    f"а не {shape_ru(qualifying, closing)}",
                    f"у {PART_BE[part]} серыі — 3 адборачныя гульні і фінал серыі, "
                    f"а не {shape_be(qualifying, closing)}",
                )
            return
        n = teams
        if n >= 4:
            if qualifying != n or closing not in ("none", "year_final"):
                raise season.refuse(
                    "§2.15",
                    f"the winter series has {n} qualifying games and no series final, "
                    f"not {shape_en(qualifying, closing)}: all {n} teams are in, so the "
                    "final of the winter series is cancelled",
                    f"в зимней серии — {qualifying_ru(n)} без финала серии, а не "
                    f"{shape_ru(qualifying, closing)}: право играть получили все {n} "
                    "команды, и финал Зимней серии отменён",
                    f"у зімовай серыі — {qualifying_be(n)} без фіналу серыі, а не "
                    f"{shape_be(qualifying, closing)}: права гуляць атрымалі ўсе {n} "
                    "каманды, і фінал Зімовай серыі адменены",
                )
        elif (qualifying, closing) != SERIES_SHAPE_2009:
            raise season.refuse(
                "§2.16",
                "the winter series has 3 qualifying games and a series final, not "
                f"{shape_en(qualifying, closing)}: three teams are in",
                "в зимней серии — 3 отборочные игры и финал серии, а не "
                f"{shape_ru(qualifying, closing)}: право играть получили 3 команды",
                "у зімовай серыі — 3 адборачныя гульні і фінал серыі, а не "
                f"{shape_be(qualifying, closing)}: права гуляць атрымалі 3 каманды",
            )

    def _form_winter(self, season: Season) -> list[str]:
        """§2.13–§2.14, §2.17: the finals' winners (better score first, the earlier win on a
        tie), the first (and second) places of the rating at the end of the autumn final when
        fewer than three teams would play, the sponsor's team last."""
        # a team that declined a place (§2.12) and won a later final: the later win counts
        latest = {r.team: r for r in season.final_results if r.won and r.team in season.winter}
        winners = sorted(latest.values(), key=lambda r: (-r.margin, r.order))
        head = [r.team for r in winners]
        size = len(head) + (1 if season.sponsor is not None else 0)
        topups: list[str] = []
        if size < 3:  # §2.17
            topups = [t for t in season.rating if t not in head and t != season.sponsor][: 3 - size]
            if size + len(topups) < 3:
                raise season.refuse(
                    "§2.17",
                    "the winter series cannot open: even with the first places of the rating "
                    "fewer than three teams can play it",
                    "зимняя серия не открывается: даже с первыми местами рейтинга сыграть в ней "
                    "могут меньше трёх команд",
                    "зімовая серыя не адкрываецца: нават з першымі месцамі рэйтынгу згуляць у ёй "
                    "могуць менш за тры каманды",
                )
        tail = [season.sponsor] if season.sponsor is not None else []
        return head + topups + tail

    def shortage(self, season: Season, withdrawing: str | None) -> tuple[str, str, str] | None:
        """§2.3: the teams still to choose a game, for the games still to play; with a rematch
        in the series, the first two of the rating for its other games (§2.10)."""
        s = season.series
        assert s is not None
        part, gen, gen_be = s.part, PART_RU[s.part], PART_BE[s.part]
        if s.rematch_team is not None:
            if len(self._rematch_top_two(season)) >= 2:
                return None
            if withdrawing is not None:
                return (
                    f"«{withdrawing}» cannot withdraw from the {part} series: with "
                    f"«{s.rematch_team}»'s rematch in it, its other qualifying games would "
                    "lack a second team of the rating",
                    f"«{withdrawing}» не может отказаться от участия в {gen} серии: в ней "
                    f"Матч-реванш «{s.rematch_team}», и для остальных отборочных игр не хватит "
                    "второй команды рейтинга",
                    f"«{withdrawing}» не можа адмовіцца ад удзелу ў {gen_be} серыі: у ёй "
                    f"Матч-рэванш «{s.rematch_team}», і для астатніх адборачных гульняў не хопіць "
                    "другой каманды рэйтынгу",
                )
            return (
                f"the {part} series cannot open: with «{s.rematch_team}»'s rematch in it, "
                "two more teams of the rating are needed for its other qualifying games",
                f"{PART_NOM_RU[part]} серия не открывается: в ней Матч-реванш "
                f"«{s.rematch_team}», и для остальных отборочных игр нужны ещё две команды "
                "рейтинга",
                f"{PART_NOM_BE[part]} серыя не адкрываецца: у ёй Матч-рэванш "
                f"«{s.rematch_team}», і для астатніх адборачных гульняў патрэбныя яшчэ дзве "
                "каманды рэйтынгу",
            )
        played = {r.team for r in s.results}
        have = len([t for t in season.rating if t not in s.withdrawn and t not in played])
        return season.too_few(have, s.qualifying - s.qualifying_played, withdrawing)

    def _rematch_top_two(self, season: Season) -> list[str]:
        """2009 §2.10: with a rematch in the series, its two other qualifying games are played
        by the first and second places of the rating at the opening (withdrawn teams left out)."""
        s = season.series
        assert s is not None
        return [
            t
            for t in s.opened_rating
            if t != s.rematch_team and t not in s.withdrawn and t in season.rating
        ][:2]

    def next_qualifying(self, season: Season) -> NextGame | None:
        """§2.3: the teams choose their games (a person's choice), except the winter's first
        game, which is the sponsor's team's (§2.14)."""
        s = season.series
        assert s is not None
        if (
            s.part == "winter"
            and season.sponsor in season.rating
            and not any(r.team == season.sponsor for r in s.results)
        ):
            return NextGame("qualifying", season.sponsor)  # 2009 §2.14
        return None

    # ----------------------------------------------------------------- games

    def refuse_kind(self, season: Season, kind: str) -> None:
        if kind == "special":
            raise season.refuse(
                "§2.6",
                "a special game is not a 2009 event: a 2009 series has 3 qualifying games "
                "and a series final",
                "специальной игры в сериях правил 2009 г. нет: 3 отборочные игры и финал серии",
                "спецыяльнай гульні ў серыях правілаў 2009 г. няма: 3 адборачныя гульні і фінал "
                "серыі",
            )

    def check_off_phase(self, season: Season, kind: str, team: str) -> None:
        """§2.15: a winter series of four has no final (S23)."""
        s = season.series
        assert s is not None
        if kind == "series_final" and s.part == "winter" and s.closing != "series_final":
            n = len(s.opened_rating)
            raise season.refuse(
                "§2.15",
                f"the winter series has no final: all {n} teams are in, so the final of "
                "the winter series is cancelled",
                f"финала у зимней серии нет: право играть получили все {n} команды, и "
                "финал Зимней серии отменён",
                f"фіналу ў зімовай серыі няма: права гуляць атрымалі ўсе {n} каманды, і "
                "фінал Зімовай серыі адменены",
            )

    def check_game(self, season: Season, kind: str, team: str, decisive_round: bool) -> None:
        s = season.series
        assert s is not None
        part, gen, gen_be = s.part, PART_RU[s.part], PART_BE[s.part]
        if decisive_round:
            raise season.refuse(
                "§1.8",
                "a 2009 game has no decisive round: it goes to 6 points",
                "в игре по правилам 2009 г. решающего раунда нет: игра идёт до 6 очков",
                "у гульні паводле правілаў 2009 г. вырашальнага раўнда няма: гульня ідзе да 6 "
                "ачкоў",
            )
        if kind == "rematch":
            if team != s.rematch_team:
                raise season.refuse(
                    "§2.10",
                    f"«{team}» has no rematch in the {part} series: none was granted to it",
                    f"у «{team}» нет Матча-реванша в {gen} серии: он ей не предоставлен",
                    f"у «{team}» няма Матча-рэванша ў {gen_be} серыі: ён ёй не прадастаўлены",
                )
            if any(r.team == team for r in s.results):
                raise season.refuse(
                    "§2.10",
                    f"«{team}» has already played its rematch",
                    f"«{team}» уже сыграла Матч-реванш",
                    f"«{team}» ужо згуляла Матч-рэванш",
                )
            return
        if kind == "qualifying":
            if team in season.winter and team not in season.rating:
                raise season.refuse(
                    "§2.12",
                    f"«{team}» cannot play a qualifying game: it won a series final and left "
                    "the rating for the winter series",
                    f"«{team}» не может играть отборочную игру: она выиграла финал серии и "
                    "покинула ТРК ради места в зимней серии",
                    f"«{team}» не можа гуляць адборачную гульню: яна выйграла фінал серыі і "
                    "пакінула ТРК дзеля месца ў зімовай серыі",
                )
            if team not in season.rating:
                raise season.refuse(
                    "§2.4",
                    f"«{team}» is not on the list of the {part} series and plays no game in it",
                    f"«{team}» нет в списке команд {gen} серии, и в ней она не играет",
                    f"«{team}» няма ў спісе каманд {gen_be} серыі, і ў ёй яна не гуляе",
                )
            season.refuse_withdrawn(team, "§2.3")
            if team == s.rematch_team:
                raise season.refuse(
                    "§2.10",
                    f"«{team}» plays its rematch in the {part} series, not a qualifying game",
                    f"«{team}» играет в {gen} серии Матч-реванш, а не отборочную игру",
                    f"«{team}» гуляе ў {gen_be} серыі Матч-рэванш, а не адборачную гульню",
                )
            if any(r.team == team for r in s.results):
                raise season.refuse(
                    "§2.4",
                    f"«{team}» has already played its qualifying game of the {part} series",
                    f"«{team}» уже сыграла свою отборочную игру {gen} серии",
                    f"«{team}» ужо згуляла сваю адборачную гульню {gen_be} серыі",
                )
            due = season.next_game()
            if due is not None and due.team != team:
                raise season.refuse(
                    "§2.14",
                    f"«{team}» cannot play the first winter qualifying game: it is the "
                    f"sponsor's team «{due.team}»'s",
                    f"«{team}» не может играть первую отборочную игру зимней серии: её играет "
                    f"команда спонсора «{due.team}»",
                    f"«{team}» не можа гуляць першую адборачную гульню зімовай серыі: яе гуляе "
                    f"каманда спонсара «{due.team}»",
                )
            if s.rematch_team is not None:
                top = self._rematch_top_two(season)
                if team not in top:
                    raise season.refuse(
                        "§2.10",
                        f"«{team}» plays no qualifying game of the {part} series: with "
                        f"«{s.rematch_team}»'s rematch in it, its other qualifying games are "
                        f"played by {names_and(top)}",
                        f"«{team}» не играет отборочных игр {gen} серии: в ней Матч-реванш "
                        f"«{s.rematch_team}», остальные отборочные игры играют "
                        f"{names_and(top, 'и')}",
                        f"«{team}» не гуляе адборачных гульняў {gen_be} серыі: у ёй Матч-рэванш "
                        f"«{s.rematch_team}», астатнія адборачныя гульні гуляюць "
                        f"{names_and(top, 'і')}",
                    )
                regular = sum(1 for r in s.results if r.kind == "qualifying")
                if regular >= s.qualifying - 1:
                    raise season.refuse(
                        "§2.10",
                        f"«{team}» cannot play the last qualifying game of the {part} series: "
                        f"it is «{s.rematch_team}»'s rematch",
                        f"«{team}» не может играть последнюю отборочную игру {gen} серии: это "
                        f"Матч-реванш «{s.rematch_team}»",
                        f"«{team}» не можа гуляць апошнюю адборачную гульню {gen_be} серыі: гэта "
                        f"Матч-рэванш «{s.rematch_team}»",
                    )
            return
        if kind == "series_final":
            finalist = season.finalist()
            if team != finalist:
                raise season.refuse(
                    "§2.9",
                    f"«{team}» cannot play the {part} series final: «{finalist}» is first in "
                    "the rating",
                    f"«{team}» не может играть финал {gen} серии: первая в рейтинге — «{finalist}»",
                    f"«{team}» не можа гуляць фінал {gen_be} серыі: першая ў рэйтынгу — "
                    f"«{finalist}»",
                )
        elif kind == "year_final":
            if not season.rating or team != season.rating[0]:
                first = season.rating[0] if season.rating else None
                raise season.refuse(
                    "§2.18",
                    f"«{team}» cannot play the year final: «{first}» is first in the rating",
                    f"«{team}» не может играть финал года: первая в рейтинге — «{first}»",
                    f"«{team}» не можа гуляць фінал года: першая ў рэйтынгу — «{first}»",
                )

    def place(self, season: Season, result: Result) -> str:
        """§2.7 / §2.8 (qualifying), §2.11 (rematch won): win → first, loss → last; a lost
        rematch puts the team out (§2.11), and so does the sponsor's team's lost first
        winter game (§2.14)."""
        s = season.series
        assert s is not None
        first = not s.results  # the series' first game (the engine records it after this)
        rating = [t for t in season.rating if t != result.team]
        if result.won:
            rating.insert(0, result.team)
        else:
            rating.append(result.team)
        season.rating = rating
        if result.kind == "rematch" and not result.won:
            season.put_out(result.team, "§2.11")
            return "§2.11"
        if s.part == "winter" and result.team == season.sponsor and not result.won and first:
            season.put_out(result.team, "§2.14")
            return "§2.14"
        if result.kind == "rematch":
            return "§2.11"
        return "§2.7" if result.won else "§2.8"

    def final(self, season: Season, result: Result) -> str:
        """§2.12: a won final gives a winter place and leaves the rating (the winter final's
        winner stays); §2.10: a lost one goes last."""
        s = season.series
        assert s is not None
        team = result.team
        if result.won:
            if s.part != "winter":
                season.winter.append(team)  # §2.12: leaves the rating for winter
                season.rating = [t for t in season.rating if t != team]
            return "§2.12"
        season.rating = [t for t in season.rating if t != team] + [team]  # §2.10
        return "§2.10"

    def out_reason(self, season: Season, team: str, rule: str) -> tuple[str, str, str]:
        if rule.endswith("§2.11"):
            return (
                f"«{team}» lost its rematch and is out",
                f"«{team}» проиграла Матч-реванш и выбыла из сезона",
                f"«{team}» прайграла Матч-рэванш і выбыла з сезона",
            )
        return (  # §2.14
            f"the sponsor's team «{team}» lost its first winter game and is out",
            f"команда спонсора «{team}» проиграла первую отборочную игру "
            "зимней серии и выбыла из сезона",
            f"каманда спонсара «{team}» прайграла першую адборачную гульню "
            "зімовай серыі і выбыла з сезона",
        )

    # ----------------------------------------------------------------- withdrawals

    def check_withdraw(self, season: Season, team: str) -> None:
        """§2.10: the rematch team plays its rematch in this series."""
        s = season.series
        assert s is not None
        if team == s.rematch_team:
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot withdraw from the {s.part} series: it asked for a rematch and "
                "plays it in this series",
                f"«{team}» не может отказаться от участия в {PART_RU[s.part]} серии: в ней она "
                "играет свой Матч-реванш",
                f"«{team}» не можа адмовіцца ад удзелу ў {PART_BE[s.part]} серыі: у ёй яна "
                "гуляе свой Матч-рэванш",
            )

    def shortage_clause(self, season: Season) -> str:
        s = season.series
        assert s is not None
        if s.rematch_team is not None:
            return "§2.10"
        if s.part == "winter":
            return "§2.15" if len(s.opened_rating) >= 4 else "§2.16"
        return "§2.6"

    def no_place(self, season: Season, team: str, head: str, head_ru: str, head_be: str) -> None:
        if team in season.winter and team not in season.rating:
            raise season.refuse(
                "§2.12",
                f"{head}, having won a series final it left the rating for the winter series",
                f"{head_ru} — она выиграла финал серии и покинула ТРК ради места в зимней серии",
                f"{head_be} — яна выйграла фінал серыі і пакінула ТРК дзеля месца ў зімовай серыі",
            )

    def coming(self, season: Season, team: str, coming: str) -> tuple[list[str], int, str]:
        """§2.3 with §2.2; none from the winter series (§2.13); the rematch team plays there
        (§2.10); three qualifying games (§2.6), two beside a rematch."""
        gen, gen_be = PART_RU[coming], PART_BE[coming]
        if coming == "winter":
            raise season.refuse(
                "§2.13",
                f"«{team}» cannot withdraw from the winter series: its rating is formed anew "
                "of the finals' winners and the sponsor's team, and a winner gives its "
                "place up only before the end of its final's programme (§2.12)",
                f"«{team}» не может отказаться от зимней серии: её рейтинг формируется "
                "заново из победителей финалов и команды спонсора, а победитель "
                "отказывается от места только до окончания финальной программы, как велит "
                "п. 2.12",
                f"«{team}» не можа адмовіцца ад зімовай серыі: яе рэйтынг фарміруецца "
                "нанова з пераможцаў фіналаў і каманды спонсара, а пераможца "
                "адмаўляецца ад месца толькі да заканчэння фінальнай праграмы, як вызначае "
                "п. 2.12",
            )
        if team not in season.rating:
            season.refuse_no_place(team, coming, coming=True)
        rematch = season.rematch_pending
        if team == rematch:
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot withdraw from the coming {coming} series: it asked for a "
                "rematch and plays it there",
                f"«{team}» не может отказаться от участия в предстоящей {gen} серии: в ней "
                "она играет свой Матч-реванш",
                f"«{team}» не можа адмовіцца ад удзелу ў наступнай {gen_be} серыі: у ёй "
                "яна гуляе свой Матч-рэванш",
            )
        candidates = [t for t in season.rating if t != rematch]
        need = SERIES_SHAPE_2009[0] - (1 if rematch is not None else 0)
        clause = "§2.10" if rematch is not None else "§2.6"
        return candidates, need, clause

    # ----------------------------------------------------------------- the book's own events

    def rematch(self, season: Season, team: str, event: Event) -> None:
        """§2.10: the loser of the series final just played asks; granted, it plays its
        rematch in the next series (:attr:`Season.rematch_pending`)."""
        final = season.last_final
        if final is None or final.team != team:
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot ask for a rematch: it has not just lost a series final "
                "(the loser asks before the end of that final's programme)",
                f"«{team}» не может просить о Матче-реванше: она не проигрывала только что "
                "финал серии, а проигравшая просит до окончания финальной программы",
                f"«{team}» не можа прасіць пра Матч-рэванш: яна не прайгравала толькі што "
                "фінал серыі, а каманда, якая прайграла, просіць да заканчэння фінальнай "
                "праграмы",
            )
        gen, gen_be = PART_RU[final.part], PART_BE[final.part]
        if final.won:
            raise season.refuse(
                "§2.10",
                f"«{team}» won the {final.part} series final: only its loser may ask for a rematch",
                f"«{team}» выиграла финал {gen} серии: о Матче-реванше просит только проигравшая",
                f"«{team}» выйграла фінал {gen_be} серыі: пра Матч-рэванш просіць толькі каманда, "
                "якая прайграла",
            )
        if event.granted and final.part in ("autumn", "winter"):
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot be granted a rematch after the {final.part} final: a rematch "
                "is played in the next series, and no series with qualifying games of this "
                "rating follows",
                f"Матч-реванш «{team}» после финала {gen} серии не предоставить: он играется "
                "в следующей серии, а серии с отборочными играми этого рейтинга дальше нет",
                f"Матч-рэванш «{team}» пасля фіналу {gen_be} серыі не прадаставіць: ён гуляецца "
                "ў наступнай серыі, а серыі з адборачнымі гульнямі гэтага рэйтынгу далей няма",
            )
        if event.granted and team in season.refusing:
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot be granted a rematch: it withdrew from the coming series, "
                "where the rematch would be played",
                f"Матч-реванш «{team}» не предоставить: она отказалась от участия в "
                "предстоящей серии, где он был бы сыгран",
                f"Матч-рэванш «{team}» не прадаставіць: яна адмовілася ад удзелу ў "
                "наступнай серыі, дзе ён быў бы згуляны",
            )
        if season.rematch_pending is not None:
            raise season.refuse(
                "§2.10",
                f"«{team}» has already asked for a rematch",
                f"«{team}» уже просила о Матче-реванше",
                f"«{team}» ужо прасіла пра Матч-рэванш",
            )
        if event.granted:
            season.rematch_pending = team

    def decline_winter(self, season: Season, team: str) -> None:
        """§2.12: the winner of the spring, summer or autumn final just played gives its
        winter place up and is back at the first place."""
        final = season.last_final
        if final is None or final.team != team:
            en = (
                f"«{team}» has no winter place to give up now: it has not just won a series "
                "final (the winner gives it up before the end of that final's programme)"
            )
            ru = (
                f"«{team}» не может сейчас отказаться от места в зимней серии: она не "
                "выигрывала только что финал серии, а победитель отказывается до окончания "
                "финальной программы"
            )
            be = (
                f"«{team}» не можа цяпер адмовіцца ад месца ў зімовай серыі: яна не "
                "выйгравала толькі што фінал серыі, а пераможца адмаўляецца да заканчэння "
                "фінальнай праграмы"
            )
        elif not final.won:
            en = f"«{team}» lost the {final.part} series final and has no winter place to give up"
            ru = (
                f"«{team}» проиграла финал {PART_RU[final.part]} серии: места в зимней серии, "
                "от которого можно отказаться, у неё нет"
            )
            be = (
                f"«{team}» прайграла фінал {PART_BE[final.part]} серыі: месца ў зімовай серыі, "
                "ад якога можна адмовіцца, у яе няма"
            )
        elif final.part == "winter":
            en = f"«{team}» won the winter series final: there is no winter place to give up"
            ru = f"«{team}» выиграла финал зимней серии: отказываться от места в ней поздно"
            be = f"«{team}» выйграла фінал зімовай серыі: адмаўляцца ад месца ў ёй позна"
        elif team not in season.winter:
            en = f"«{team}» has already given up its winter place"
            ru = f"«{team}» уже отказалась от места в зимней серии"
            be = f"«{team}» ужо адмовілася ад месца ў зімовай серыі"
        else:
            season.winter.remove(team)
            season.rating = [team] + [t for t in season.rating if t != team]
            season.last_final = None
            return
        raise season.refuse("§2.12", en, ru, be)

    # ----------------------------------------------------------------- a season joined under way

    def earlier(self, season: Season, result: Result) -> None:
        """§2.12: the winner of a spring, summer or autumn final has a winter place; §2.11: a
        lost rematch puts the team out."""
        if result.kind == "series_final" and result.won and result.part != "winter":
            if result.team not in season.winter:
                season.winter.append(result.team)
        if result.kind == "rematch" and not result.won:
            season.put_out(result.team, "§2.11")

    def start_winter(self, season: Season, given: tuple[str, ...] | None) -> None:
        """§2.12: a final's winner may have given its winter place up; a ``given`` list names
        the winners that kept it (default: all of them)."""
        if given is None:
            return
        for team in given:
            if team not in season.winter:
                raise season.refuse(
                    "§2.12",
                    f"«{team}» has no winter place: it won no spring, summer or autumn final "
                    "so far",
                    f"у «{team}» нет места в зимней серии: она не выигрывала финал весенней, "
                    "летней или осенней серии",
                    f"у «{team}» няма месца ў зімовай серыі: яна не выйгравала фінал вясновай, "
                    "летняй або восеньскай серыі",
                )
        season.winter = [t for t in season.winter if t in given]

    def start_rematch(self, season: Season, team: str, part: str) -> None:
        """§2.10: the loser of the final of the series just before ``part`` was granted a
        rematch, played in ``part`` (summer or autumn: a series with qualifying games of this
        rating)."""
        final = season.final_results[-1] if season.final_results else None
        previous = PARTS[PARTS.index(part) - 1] if part != "spring" else None
        if final is None or final.part != previous or final.team != team or final.won:
            raise season.refuse(
                "§2.10",
                f"«{team}» has no rematch in the {part} series: it did not lose the final of "
                "the series just before it",
                f"у «{team}» нет Матча-реванша в {PART_RU[part]} серии: она не проигрывала "
                "финал предыдущей серии",
                f"у «{team}» няма Матча-рэванша ў {PART_BE[part]} серыі: яна не прайгравала "
                "фінал папярэдняй серыі",
            )
        if part == "winter":
            raise season.refuse(
                "§2.10",
                f"«{team}» cannot have a rematch in the winter series: no series with "
                "qualifying games of this rating follows the autumn final",
                f"Матч-реванша «{team}» в зимней серии нет: после финала осенней серии нет "
                "серии с отборочными играми этого рейтинга",
                f"Матча-рэванша «{team}» у зімовай серыі няма: пасля фіналу восеньскай серыі няма "
                "серыі з адборачнымі гульнямі гэтага рэйтынгу",
            )
        season.rematch_pending = team

    def start_sponsor(self, season: Season, team: str, part: str, rating: tuple[str, ...]) -> None:
        """§2.13: the sponsor's team joins the winter rating, last."""
        if part != "winter" or not rating or rating[-1] != team:
            raise season.refuse(
                "§2.13",
                f"«{team}» cannot be the sponsor's team here: it joins the winter rating, last",
                f"«{team}» не может быть командой спонсора здесь: она входит в рейтинг зимней "
                "серии последней",
                f"«{team}» не можа быць камандай спонсара тут: яна ўваходзіць у рэйтынг зімовай "
                "серыі апошняй",
            )
        season.sponsor = team

    def check_entry(self, season: Season, team: str, enter_as: str | None) -> None:
        """§2.13: the sponsor's team joins the winter rating; the 2009 rules have no reserve."""
        if enter_as != "sponsor":
            raise season.refuse(
                "§2.13",
                f"«{team}» cannot enter as a reserve team: the 2009 rules have none, the "
                "sponsor's team joins the winter rating",
                "резервных команд в правилах 2009 г. нет: в зимний рейтинг входит команда спонсора",
                "рэзервовых каманд у правілах 2009 г. няма: у зімовы рэйтынг уваходзіць каманда "
                "спонсара",
            )

    def enter(self, season: Season, team: str) -> None:
        """§2.13: one sponsor's team."""
        if season.sponsor is not None:
            raise season.refuse(
                "§2.13",
                f"«{team}» cannot enter as the sponsor's team: «{season.sponsor}» has entered as "
                "it already",
                f"«{team}» не может войти как команда спонсора: команда спонсора "
                f"«{season.sponsor}» уже вошла",
                f"«{team}» не можа ўвайсці як каманда спонсара: каманда спонсара "
                f"«{season.sponsor}» ужо ўвайшла",
            )
        season.sponsor = team
