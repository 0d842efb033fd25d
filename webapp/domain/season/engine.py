"""The engine that replays a season's events under its rule book.

:class:`Season` keeps the state a replay derives (rating, the open series, finals, winter
places, teams out, history, the amendable parameters in force) and applies one event at a
time. What every book shares is here: the order of the series and their phases, a team out
plays no more, refused events change nothing, entering teams, amendments (2023 §4.12.1);
games and withdrawals have their own modules (:mod:`.games`, :mod:`.withdrawals`). What
differs is asked of ``self.book``, the season's :class:`~.rulebook.RuleBook`: the engine is
handed the book (or, for a protocol document, the registry to find it in), never looks one up
by itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NoReturn, Protocol

from webapp.domain.rules.errors import ProtocolError
from webapp.domain.rules.parameters import AMEND_CLAUSE, ParameterError, check_values

from . import games, withdrawals
from .events import FORMAT, PARTS, Event, check_names, parse_event
from .rulebook import RuleBook
from .state import (
    Amendment,
    Final,
    Move,
    NextGame,
    OpenSeries,
    Out,
    Result,
    SeasonState,
    SeasonViolation,
    SeriesState,
)
from .words import (
    PART_BE,
    PART_NOM_BE,
    PART_NOM_RU,
    PART_RU,
    names,
    names_and,
    qualifying_gen_be,
    qualifying_gen_ru,
    teams_be,
    teams_ru,
)


class HasSeason(Protocol):
    """A book as the season engine takes it: anything holding its season rule book class."""

    @property
    def season(self) -> type[RuleBook]: ...


SeasonBook = HasSeason | type[RuleBook]
"""What :class:`Season` is built from: a book holding a :class:`RuleBook` class, or the class."""


def _rule_book(book: SeasonBook) -> RuleBook:
    return book() if isinstance(book, type) else book.season()


def load_season(
    document: Any, books: Mapping[str, SeasonBook]
) -> tuple[SeasonBook, list[str], list[Event]]:
    """Validate a season protocol's shape and return ``(book, teams, events)``, the book of
    its ``ruleset`` found in ``books`` (the registry the caller holds).

    ``document`` is the parsed JSON object ``{"format": "sova.season-protocol/1",
    "ruleset": "2023"|"2009", "teams": [name…], "events": [...]}``. Raises
    :class:`ProtocolError` for anything malformed; rules are not checked here (team names
    in events are checked at replay, where ``enter`` events have added their teams).
    """
    if not isinstance(document, dict):
        raise ProtocolError(f"a season protocol is a JSON object, got {type(document).__name__}")
    if document.get("format") != FORMAT:
        raise ProtocolError(f"format must be {FORMAT!r}, got {document.get('format')!r}")
    ruleset = document.get("ruleset")
    if not isinstance(ruleset, str) or ruleset not in books:
        raise ProtocolError(
            f"unknown ruleset {ruleset!r}; expected one of {', '.join(sorted(books))}"
        )
    teams = document.get("teams")
    if not isinstance(teams, list):
        raise ProtocolError("teams must be a list of team names, first place first")
    teams = check_names(teams, "teams", None)
    events = document.get("events")
    if not isinstance(events, list):
        raise ProtocolError("events must be a list")
    return books[ruleset], teams, [parse_event(raw, i) for i, raw in enumerate(events)]


class Season:
    """A season being replayed. Build with :meth:`start`, feed events with :meth:`apply`
    (raw JSON objects or parsed :class:`Event`), read :meth:`state`."""

    def __init__(self, book: SeasonBook, teams: Sequence[str]) -> None:
        self.book: RuleBook = _rule_book(book)
        self.ruleset = self.book.name
        self.file = self.book.file
        self.teams: list[str] = list(teams)  # every team known, in the order it came
        self.initial: tuple[str, ...] = tuple(teams)
        self.rating: list[str] = list(teams)
        self.series: OpenSeries | None = None
        self.parts: list[str] = []
        self.losses: dict[str, int] = {}
        self.out: list[Out] = []
        self.winter: list[str] = []
        self.finals: list[Final] = []
        self.final_results: list[Result] = []
        self.history: list[Move] = []
        self.results: list[Result] = []
        self.reserves: list[str] = []
        self.sponsor: str | None = None
        self.rematch_pending: str | None = None
        # 2023 §4.8.1, 2009 §2.3: teams that refused the coming series, between two series
        self.refusing: list[str] = []
        self.last_final: Result | None = None  # set right after a series final (2009)
        self.over = False
        self.index = -1
        # 2023 §4.12.1: the amendable parameters in force (replaced, never changed in place)
        self.rules: dict[str, Any] = self.book.parameters()
        self.amendments: list[Amendment] = []
        self.seq = 0  # the place of a game among the results a ``start`` event replays

    @classmethod
    def start(cls, book: SeasonBook, teams: Iterable[str]) -> Season:
        """A season of ``book`` before its first event: ``teams`` is the initial rating,
        first place first (2023 §4.2, 2009 §2.1)."""
        return cls(book, check_names(list(teams), "teams", None))

    # ----------------------------------------------------------------- helpers

    def refuse(self, clause: str, message: str, ru: str, be: str | None = None) -> SeasonViolation:
        """The refusal of the current event: ``message`` (English), ``ru`` (Russian) and
        ``be`` (Belarusian) say what is wrong with it; ``clause`` (``"§4.4"``) is of this
        season's book. Sova's engine and books always give ``be``; a book written elsewhere
        may leave it out, and its refusals then read in Russian."""
        return SeasonViolation(self.index, f"{self.file} {clause}", message, ru, be)

    def refuse_for(
        self, topic: str, message: str, ru: str, be: str | None = None
    ) -> SeasonViolation:
        """:meth:`refuse` citing the book's clause of a shared ``topic`` (``RuleBook.clauses``)."""
        return self.refuse(self.book.clauses[topic], message, ru, be)

    def out_rule(self, team: str) -> str | None:
        """The clause that put ``team`` out of the season, or ``None``."""
        return next((o.rule for o in self.out if o.team == team), None)

    def known(self, team: str) -> str:
        """``team``, if the season knows it; else a :class:`ProtocolError`."""
        if team not in self.teams:
            raise ProtocolError(
                f"unknown team «{team}»",
                self.index,
                ru=f"команды «{team}» нет в сезоне",
                be=f"каманды «{team}» няма ў сезоне",
            )
        return team

    def put_out(self, team: str, clause: str) -> None:
        """``team`` is out of the season under ``clause`` and leaves every rating."""
        self.out.append(Out(team=team, rule=f"{self.file} {clause}", event=self.index))
        self.rating = [t for t in self.rating if t != team]
        self.winter = [t for t in self.winter if t != team]

    @property
    def target(self) -> int:
        """The points that win a game now: 6 (2023 §3.10, 2009 §1.8) or as amended (§4.12.1)."""
        points: int = self.rules["points_to_win"]
        return points

    def refuse_if_out(self, team: str) -> None:
        """Refuse any event of a team that is out of the season, saying why it is out."""
        rule = self.out_rule(team)
        if rule is not None:
            raise SeasonViolation(self.index, rule, *self.book.out_reason(self, team, rule))

    def refuse_withdrawn(self, team: str, clause: str) -> None:
        """Refuse a game of a team that withdrew from the open series."""
        s = self.series
        assert s is not None
        if team in s.withdrawn:
            raise self.refuse(
                clause,
                f"«{team}» withdrew from the {s.part} series and plays no game in it",
                f"«{team}» отказалась от участия в {PART_RU[s.part]} серии и в ней не играет",
                f"«{team}» адмовілася ад удзелу ў {PART_BE[s.part]} серыі і ў ёй не гуляе",
            )

    def phase(self) -> str:
        """What the season waits for: ``"series"`` (a series to open), ``"qualifying"``,
        ``"series_final"``, ``"special"``, ``"year_final"``, or ``"over"``."""
        if self.over:
            return "over"
        s = self.series
        if s is None:
            return "series"
        if s.qualifying_played < s.qualifying:
            return "qualifying"
        if s.closing == "series_final" and not s.final_played:
            return "series_final"
        if s.closing == "special" and not s.special_played:
            return "special"
        if s.part == "winter" and not s.year_final_played:
            return "year_final"
        return "series"

    def available(self) -> list[str]:
        """Teams of the open series' rating that may still play in it (not withdrawn)."""
        s = self.series
        assert s is not None
        return [t for t in self.rating if t not in s.withdrawn]

    def finalist(self) -> str | None:
        """2023 §4.7.1 / 2009 §2.9: the first place of the rating among the teams that did not
        withdraw from the series (a withdrawal is from the whole series, final included)."""
        available = self.available()
        return available[0] if available else None

    def series_best(self) -> Result | None:
        """2023 §3.6: the team that played earlier in this series and is first in the rating
        now, with its result; ``None`` when the next game is not a qualifying game, when the
        first place has not played in this series yet, and in a book without a decisive round
        (2009)."""
        s = self.series
        if not self.book.decisive_round or s is None or self.phase() != "qualifying":
            return None
        if not self.rating:
            return None
        return next((r for r in s.results if r.team == self.rating[0]), None)

    def next_game(self) -> NextGame | None:
        """Who plays next and of which kind, where the rules decide it (``None`` where a
        person does: a series to open, a special game's team, 2009 qualifying choices)."""
        phase = self.phase()
        if phase == "qualifying":
            return self.book.next_qualifying(self)
        if phase == "series_final":
            team = self.finalist()
            return None if team is None else NextGame("series_final", team)
        if phase == "year_final":
            return NextGame("year_final", self.rating[0]) if self.rating else None
        return None

    def too_few(self, have: int, need: int, withdrawing: str | None) -> tuple[str, str, str] | None:
        """``have`` teams for ``need`` qualifying games of the open series: ``None`` when
        enough, else why not, ``(English, Russian, Belarusian)``, naming the ``withdrawing``
        team (or, if ``None``, the series being opened)."""
        s = self.series
        assert s is not None
        part, gen, gen_be = s.part, PART_RU[s.part], PART_BE[s.part]
        if have >= need:
            return None
        if withdrawing is not None:
            return (
                f"«{withdrawing}» cannot withdraw from the {part} series: without it, "
                f"{have} teams of the rating are left for {need} qualifying games",
                f"«{withdrawing}» не может отказаться от участия в {gen} серии: без неё для "
                f"{qualifying_gen_ru(need)} останется {teams_ru(have)} рейтинга",
                f"«{withdrawing}» не можа адмовіцца ад удзелу ў {gen_be} серыі: без яе для "
                f"{qualifying_gen_be(need)} застанецца {teams_be(have)} рэйтынгу",
            )
        refused_en = refused_ru = refused_be = ""
        if s.withdrawn:
            refused_en = f" ({names_and(s.withdrawn)} withdrew from it)"
            refused_ru = f"; отказались: {names(s.withdrawn)}"
            refused_be = f"; адмовіліся: {names(s.withdrawn)}"
        return (
            f"not enough teams for the {part} series: {need} qualifying games need {need} "
            f"teams of the rating, {have} can play{refused_en}",
            f"не хватает команд: для {qualifying_gen_ru(need)} нужно {teams_ru(need)} "
            f"рейтинга, сыграть могут {have}{refused_ru}",
            f"не хапае каманд: для {qualifying_gen_be(need)} патрэбна {teams_be(need)} "
            f"рэйтынгу, згуляць могуць {have}{refused_be}",
        )

    def _snapshot(self) -> dict[str, Any]:
        """A copy of the mutable state, cheap: the values inside are immutable."""
        saved = {
            key: (value.copy() if isinstance(value, list | dict) else value)
            for key, value in self.__dict__.items()
        }
        if self.series is not None:
            saved["series"] = dataclasses.replace(
                self.series,
                order=None if self.series.order is None else list(self.series.order),
                results=list(self.series.results),
                withdrawn=list(self.series.withdrawn),
            )
        return saved

    # ----------------------------------------------------------------- events

    def apply(self, event: Event | dict[str, Any], index: int) -> None:
        """Apply one event (at 0-based ``index`` of the event list). Raises
        :class:`SeasonViolation` or :class:`ProtocolError`; the season is then unchanged."""
        if not isinstance(event, Event):
            event = parse_event(event, index)
        saved = self._snapshot()
        self.index = index
        try:
            getattr(self, f"_on_{event.type}")(event)
        except (SeasonViolation, ProtocolError):
            self.__dict__ = saved  # a refused event changes nothing
            raise
        if event.type == "series" or (event.type == "game" and event.kind != "series_final"):
            self.last_final = None
        if event.type == "start" and self.results and self.results[-1].kind != "series_final":
            self.last_final = None

    def _on_series(self, event: Event) -> None:
        part, qualifying, closing = event.part, event.qualifying, event.closing
        assert part is not None and qualifying is not None and closing is not None
        nom, nom_be = PART_NOM_RU[part], PART_NOM_BE[part]
        if self.over:
            raise self.refuse_for(
                "year_final",
                f"the {part} series cannot open: the year final is played and the season is over",
                f"{nom} серия не открывается: финал года сыгран, сезон окончен",
                f"{nom_be} серыя не адкрываецца: фінал года згуляны, сезон скончаны",
            )
        phase = self.phase()
        if phase != "series":
            s = self.series
            assert s is not None
            left = s.qualifying - s.qualifying_played
            left_en, left_ru, left_be = {
                "qualifying": (
                    f"none of its {s.qualifying} qualifying games is played yet"
                    if s.qualifying_played == 0
                    else f"{left} of its {s.qualifying} qualifying games are still to be played",
                    f"ни одна из {qualifying_gen_ru(s.qualifying)} ещё не сыграна"
                    if s.qualifying_played == 0
                    else f"не сыграно {left} из {qualifying_gen_ru(s.qualifying)}",
                    f"ніводная з {qualifying_gen_be(s.qualifying)} яшчэ не згуляна"
                    if s.qualifying_played == 0
                    else f"не згуляна {left} з {qualifying_gen_be(s.qualifying)}",
                ),
                "series_final": (
                    "its series final is still to be played",
                    "не сыгран её финал",
                    "не згуляны яе фінал",
                ),
                "special": (
                    "its special game is still to be played",
                    "не сыграна её специальная игра",
                    "не згуляна яе спецыяльная гульня",
                ),
                "year_final": (
                    "the year final is still to be played",
                    "не сыгран финал года",
                    "не згуляны фінал года",
                ),
            }[phase]
            raise self.refuse_for(
                "series_shape",
                f"the {part} series cannot open: the {s.part} series is not over ({left_en})",
                f"{nom} серия не открывается: {PART_NOM_RU[s.part]} серия ещё не окончена "
                f"— {left_ru}",
                f"{nom_be} серыя не адкрываецца: {PART_NOM_BE[s.part]} серыя яшчэ не скончана "
                f"— {left_be}",
            )
        expected = PARTS[len(self.parts)]
        if part != expected:
            if part in self.parts:
                en = f"the {part} series has been opened already; the {expected} series is next"
                ru = f"{nom} серия уже открывалась; следующая — {PART_NOM_RU[expected]}"
                be = f"{nom_be} серыя ўжо адкрывалася; наступная — {PART_NOM_BE[expected]}"
            else:
                en = (
                    f"the {part} series cannot open yet: the {expected} series comes first "
                    "(spring, summer, autumn, winter)"
                )
                ru = (
                    f"{nom} серия ещё не может открыться: сначала {PART_NOM_RU[expected]}; "
                    "порядок серий — весенняя, летняя, осенняя, зимняя"
                )
                be = (
                    f"{nom_be} серыя яшчэ не можа адкрыцца: спачатку {PART_NOM_BE[expected]}; "
                    "парадак серый — вясновая, летняя, восеньская, зімовая"
                )
            raise self.refuse_for("series_sequence", en, ru, be)
        if event.teams is not None:
            for team in event.teams:
                self.known(team)
        rating, need_clause = self.book.form(self, part, qualifying, closing, event.teams)
        # 2023 §4.8.1, 2009 §2.3: the refusals made between the series apply to this one; a
        # team its rating does not include was not to play in it, and its refusal lapses
        self.series = OpenSeries(
            part=part,
            qualifying=qualifying,
            closing=closing,
            opened_rating=tuple(rating),
            withdrawn=[t for t in self.refusing if t in rating],
        )
        self.refusing = []
        self.parts.append(part)
        self.rating = rating
        if self.rematch_pending is not None:  # 2009 §2.10: granted after the last final
            self.series.rematch_team = self.rematch_pending
            self.rematch_pending = None
        short = self.book.shortage(self, None)
        if short:
            raise self.refuse(need_clause, *short)
        self.book.reorder(self)

    # ----------------------------------------------------------------- games and withdrawals

    def check_game(
        self, kind: str, team: str, decisive_round: bool = False, index: int | None = None
    ) -> None:
        """Refuse (:class:`SeasonViolation`) a game of ``kind`` by ``team`` that the rules do
        not allow now, before it is played (the producer proposing the next game); the clause
        says why. ``index``: the event index to report (default: the last event applied; pass
        the length of the event list for a game not yet recorded). Does not change the season
        (:func:`.games.check_game`).
        """
        games.check_game(self, kind, team, decisive_round, index)

    def _on_game(self, event: Event) -> None:
        games.on_game(self, event)

    def _on_withdraw(self, event: Event) -> None:
        withdrawals.on_withdraw(self, event)

    def refuse_no_place(self, team: str, part: str, coming: bool = False) -> NoReturn:
        """Refuse the withdrawal of ``team``, which has no place in the ``part`` series
        (:func:`.withdrawals.refuse_no_place`)."""
        withdrawals.refuse_no_place(self, team, part, coming)

    # ----------------------------------------------------------------- the other events

    def _on_rematch(self, event: Event) -> None:
        self.book.rematch(self, self.known(event.team or ""), event)

    def _on_decline_winter(self, event: Event) -> None:
        self.book.decline_winter(self, self.known(event.team or ""))

    def _on_enter(self, event: Event) -> None:
        team = event.team or ""
        if team in self.teams:
            raise ProtocolError(
                f"team «{team}» is already in the season",
                self.index,
                ru=f"команда «{team}» уже в сезоне",
                be=f"каманда «{team}» ужо ў сезоне",
            )
        self.book.check_entry(self, team, event.enter_as)
        if "winter" in self.parts:
            raise self.refuse_for(
                "winter_rating",
                f"«{team}» enters too late: the winter rating was formed when the winter "
                "series opened",
                f"«{team}» входит слишком поздно: рейтинг зимней серии сформирован при её открытии",
                f"«{team}» уваходзіць занадта позна: рэйтынг зімовай серыі сфарміраваны пры яе "
                "адкрыцці",
            )
        self.book.enter(self, team)
        self.teams.append(team)

    def _on_start(self, event: Event) -> None:
        """Sova's ``start`` event (``docs/protocols.md``): the season joined under way, at
        the opening of ``event.part`` or during it. The earlier series are recorded as they
        ended — their games (finals, winter places, 2023 §4.4 losses, 2009 §2.11 lost
        rematches) without moving the rating, which is given: ``event.rating`` is the rating
        the ``part`` series opened with (2023 §4.2, §4.9; 2009 §2.4, §2.13). The series then
        opens with it as the book opens a series (its shape, §4.1 / §2.6, §2.15–§2.16; the
        qualifying order, §4.8) and its games and withdrawals so far (2023 §4.8.1, 2009 §2.3)
        are replayed in their order by the book's rules, so
        the state after ``start`` is the one a replay of the whole season would give. Only
        ``amend`` events may come before it."""
        part = event.part
        assert part is not None and event.qualifying is not None and event.closing is not None
        assert event.rating is not None
        if self.parts or self.results or self.refusing or self.reserves or self.sponsor:
            raise self.refuse_for(
                "series_sequence",
                "the starting point of a season joined under way comes before any other event "
                "(only an amendment of the rules may precede it)",
                "начальная точка сезона записывается до всех других событий (раньше неё может "
                "быть только изменение правил)",
                "пачатковая кропка сезона запісваецца да ўсіх іншых падзей (раней за яе можа "
                "быць толькі змяненне правілаў)",
            )
        for team in (*event.rating, *(r.team or "" for r in event.results)):
            self.known(team)
        for named in (*(event.winter or ()), event.rematch, event.sponsor):
            if named is not None:
                self.known(named)
        now = PARTS.index(part)
        earlier = [r for r in event.results if r.part != part]
        for seq, raw in enumerate(earlier, start=1):
            self._earlier_result(raw, seq)
        self.book.start_winter(self, event.winter)
        if event.rematch is not None:
            self.book.start_rematch(self, event.rematch, part)
        if event.sponsor is not None:
            self.book.start_sponsor(self, event.sponsor, part, event.rating)
        rating = list(event.rating)
        for team in rating:
            self.refuse_if_out(team)
            if part != "winter" and team in self.winter:
                raise self.refuse(
                    self.book.clauses.get("finalist", self.book.clauses["winter_rating"]),
                    f"«{team}» cannot be in the rating of the {part} series: it is through to "
                    "the winter series",
                    f"«{team}» не может быть в рейтинге {PART_RU[part]} серии: она уже вышла в "
                    "зимнюю серию",
                    f"«{team}» не можа быць у рэйтынгу {PART_BE[part]} серыі: яна ўжо выйшла ў "
                    "зімовую серыю",
                )
        self.book.check_shape(self, part, event.qualifying, event.closing, len(rating))
        self.parts = list(PARTS[: now + 1])
        self.rating = rating
        self.series = OpenSeries(
            part=part,
            qualifying=event.qualifying,
            closing=event.closing,
            opened_rating=tuple(rating),
        )
        if self.rematch_pending is not None:  # 2009 §2.10
            self.series.rematch_team = self.rematch_pending
            self.rematch_pending = None
        short = self.book.shortage(self, None)
        if short:
            raise self.refuse(self.book.shortage_clause(self), *short)
        self.book.reorder(self)
        current = [r for r in event.results if r.part == part]
        for seq, raw in enumerate(current, start=len(earlier) + 1):
            self.seq = seq
            try:
                if raw.type == "withdraw":  # 2023 §4.8.1, 2009 §2.3, in its place
                    withdrawals.on_withdraw(self, raw)
                else:
                    games.on_game(self, raw)
            except SeasonViolation as error:
                raise SeasonViolation(
                    self.index,
                    error.rule,
                    f"line {seq} of the results so far ({part} series): {error.message}",
                    f"строка {seq} сыгранного ({PART_NOM_RU[part]} серия): {error.ru}",
                    f"радок {seq} згуланага ({PART_NOM_BE[part]} серыя): {error.be}",
                ) from None
            finally:
                self.seq = 0

    def _earlier_result(self, raw: Event, seq: int) -> None:
        """One game of a series before the one Sova starts at: its team must still be in the
        season, its kind one the book has, its score a finished game's; the book records
        what it leaves (:meth:`RuleBook.earlier`)."""
        kind, team, score, part = raw.kind, raw.team, raw.score, raw.part
        assert kind is not None and team is not None and score is not None and part is not None
        game_en = f"line {seq} of the results so far («{team}», {part} series)"
        game_ru = f"строка {seq} сыгранного («{team}», {PART_NOM_RU[part]} серия)"
        game_be = f"радок {seq} згуланага («{team}», {PART_NOM_BE[part]} серыя)"
        rule = self.out_rule(team)
        if rule is not None:
            en, ru, be = self.book.out_reason(self, team, rule)
            raise SeasonViolation(
                self.index, rule, f"{game_en}: {en}", f"{game_ru}: {ru}", f"{game_be}: {be}"
            )
        self.book.refuse_kind(self, kind)
        if kind == "year_final":
            raise self.refuse_for(
                "year_final",
                f"{game_en}: the year final closes the winter series",
                f"{game_ru}: финал года завершает зимнюю серию",
                f"{game_be}: фінал года завяршае зімовую серыю",
            )
        experts, viewers = score
        win = self.target
        if (experts == win) == (viewers == win) or max(experts, viewers) > win:
            raise self.refuse_for(
                "game_end",
                f"{game_en}: {experts}:{viewers} is not the score of a finished game",
                f"{game_ru}: {experts}:{viewers} — не счёт законченной игры",
                f"{game_be}: {experts}:{viewers} — не лік скончанай гульні",
            )
        if kind == "series_final" and any(
            r.part == part and r.kind == "series_final" for r in self.results
        ):
            raise self.refuse_for(
                "series_shape",
                f"{game_en}: the {part} series has one series final",
                f"{game_ru}: финал {PART_RU[part]} серии один",
                f"{game_be}: фінал {PART_BE[part]} серыі адзін",
            )
        result = Result(
            event=self.index,
            team=team,
            kind=kind,
            experts=experts,
            viewers=viewers,
            decisive_round=raw.decisive_round,
            part=part,
            rounds_lost=raw.rounds_lost,
            seq=seq,
        )
        self.results.append(result)
        if kind == "series_final":
            self.finals.append(Final(part, team, result.score, result.won, self.index))
            self.final_results.append(result)
        self.book.earlier(self, result)

    def _on_amend(self, event: Event) -> None:
        """2023 §4.12.1: the rules change during the project. From the next event on the
        parameters of ``event.set`` take their values; what was played before keeps its rules
        (a game's own rules travel in its protocol). Refused (§4.12.1): an unknown parameter,
        one the book does not have, a wrong type or a value out of range
        (:func:`webapp.domain.rules.parameters.check_values`)."""
        try:
            if self.book.game_rules is None:
                raise ParameterError(
                    f"the {self.ruleset} rule book has no amendable parameters",
                    f"в правилах {self.ruleset} нет изменяемых параметров",
                    f"у правілах {self.ruleset} няма зменных параметраў",
                )
            changes = check_values(self.book.game_rules, event.set)
        except ParameterError as error:
            raise SeasonViolation(
                self.index,
                AMEND_CLAUSE,
                f"the amendment is refused: {error.message}",
                f"изменение правил не принято: {error.ru}",
                f"змяненне правілаў не прынята: {error.be}",
            ) from None
        self.rules = {**self.rules, **changes}
        self.amendments.append(Amendment(self.index, changes, event.note or ""))

    # ----------------------------------------------------------------- state

    def state(self) -> SeasonState:
        """The derived :class:`SeasonState` now."""
        s = self.series
        return SeasonState(
            ruleset=self.ruleset,
            series=None
            if s is None
            else SeriesState(s.part, s.qualifying_played, s.qualifying, s.closing),
            rating=tuple(self.rating),
            next=self.next_game(),
            order=None if s is None or s.order is None else tuple(s.order),
            series_best=self.series_best(),
            finals=tuple(self.finals),
            winter=tuple(self.winter),
            out=tuple(self.out),
            history=tuple(self.history),
            over=self.over,
            results=tuple(self.results),
            reserves=tuple(self.reserves),
            sponsor=self.sponsor,
            refusing=tuple(self.refusing),
            withdrawn=() if s is None else tuple(s.withdrawn),
            rules=dict(self.rules),
            amendments=tuple(self.amendments),
            book_rules=self.book.parameters(),
        )


def replay_season(document: Any, books: Mapping[str, SeasonBook]) -> SeasonState:
    """Replay a ``sova.season-protocol/1`` document (the parsed JSON object) under the book
    of its ``ruleset`` in ``books`` and return its :class:`SeasonState`. Raises
    :class:`ProtocolError` (malformed; all events are checked for shape first) or
    :class:`SeasonViolation` (the first event the rules refuse)."""
    book, teams, events = load_season(document, books)
    season = Season.start(book, teams)
    for index, event in enumerate(events):
        season.apply(event, index)
    return season.state()


def to_json(state: SeasonState) -> dict[str, Any]:
    """``state.to_json()``: the contract's output of ``sova season replay``."""
    return state.to_json()
