"""The season's state: the values the engine derives (:class:`SeasonState` and its parts, the
contract's "Output of sova season replay"), the open series as the engine keeps it while it
replays (:class:`OpenSeries`), and the refusal :class:`SeasonViolation`.

Every value here is the same under every rule book; a book decides how the values move
(each book's ``season`` module in ``webapp.domain.books``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webapp.domain.rules.errors import RuleViolation


class SeasonViolation(RuleViolation):
    """An event the rule book forbids at that point of the season.

    ``event_index`` (0-based), ``rule`` (``"000_90d7c8192601ed3a.txt §4.4"``), ``message``
    (plain English: what is wrong with the refused event, in the rule book's words — not the
    condition it failed, e.g. ``"«Потапова» has already played in the spring series and can
    no longer withdraw from it"``). ``to_json()`` → ``{"error": {"event": i, "rule": …,
    "message": …}}``. ``ru`` and ``be``: the same fault in Russian (``"«Потапова» уже играла
    в весенней серии и отказаться от неё больше не может"``) and in Belarusian (``"«Потапова»
    ужо гуляла ў вясновай серыі і адмовіцца ад яе больш не можа"``); every refusal of the
    engine and of Sova's books carries both (None only from code outside them: a person then
    reads the Russian, or the clause's gist, ``webapp.games.season.refusals.REFUSALS_RU``).
    :attr:`texts` holds the three; ``webapp.domain.books.season_refusal_text`` adds the clause.
    """

    def __init__(
        self,
        event_index: int | None,
        rule: str,
        message: str,
        ru: str | None = None,
        be: str | None = None,
    ) -> None:
        super().__init__(event_index, rule, message)
        self.ru = ru
        self.be = be

    @property
    def texts(self) -> dict[str, str | None]:
        """``{"ru": …, "be": …, "en": …}``: the fault in each language (``en`` is ``message``)."""
        return {"ru": self.ru, "be": self.be, "en": self.message}


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Result:
    """One finished game of the season.

    ``event``: index of its event; ``kind``: one of :data:`KINDS`; ``experts``/``viewers``:
    final score (one side has 6); ``part``: the series it was played in; ``seq``: its place
    (1, 2, …) among the results a ``start`` event records, all of one event index (0 for a
    ``game`` event); :attr:`order` sorts results as they were played.
    """

    event: int
    team: str
    kind: str
    experts: int
    viewers: int
    decisive_round: bool
    part: str
    rounds_lost: int | None = None
    seq: int = 0

    @property
    def order(self) -> tuple[int, int]:
        """``(event, seq)``: earlier games sort first, those of one ``start`` event by ``seq``."""
        return (self.event, self.seq)

    @property
    def won(self) -> bool:
        """The experts won (they reached 6 points, or the amended ``points_to_win``: a
        finished game's winner is the side ahead)."""
        return self.experts > self.viewers

    @property
    def score(self) -> str:
        """``"E:V"``, experts first."""
        return f"{self.experts}:{self.viewers}"

    @property
    def margin(self) -> int:
        """Score difference ``experts - viewers`` (2023 §4.5.2: "the main indicator")."""
        return self.experts - self.viewers


@dataclass(frozen=True)
class SeriesState:
    """The open (or last) series: ``part``, ``qualifying_played`` of ``qualifying``,
    ``closing`` game (one of :data:`CLOSINGS`)."""

    part: str
    qualifying_played: int
    qualifying: int
    closing: str

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "qualifying_played": self.qualifying_played,
            "qualifying": self.qualifying,
            "closing": self.closing,
        }


@dataclass(frozen=True)
class NextGame:
    """Who plays the next game (``team``) and of which ``kind``, as the rules decide it."""

    kind: str
    team: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "team": self.team}


@dataclass(frozen=True)
class Final:
    """A series final played: ``part`` of the series, ``team``, ``score``, ``won``;
    ``event``: index of its event."""

    part: str
    team: str
    score: str
    won: bool
    event: int

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "team": self.team, "score": self.score, "won": self.won}


@dataclass(frozen=True)
class Out:
    """A team out of the season and the clause that put it out."""

    team: str
    rule: str
    event: int

    def to_json(self) -> dict[str, Any]:
        return {"team": self.team, "rule": self.rule}


@dataclass(frozen=True)
class Move:
    """One game and what it did to the rating: ``rating_after`` (first place first) and
    ``rule``, the clause that moved the team (``"000_….txt §4.5.1"``)."""

    event: int
    team: str
    kind: str
    score: str
    rating_after: tuple[str, ...]
    rule: str

    def to_json(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "team": self.team,
            "kind": self.kind,
            "score": self.score,
            "rating_after": list(self.rating_after),
        }


@dataclass(frozen=True)
class SeasonState:
    """The derived state of a season (the contract's "Output of sova season replay").

    Beyond the contract's keys: ``over`` (the year final is played), ``history`` entries carry
    the ``rule`` that moved the team, ``results`` (every game), ``reserves`` (2023 §4.9.3)
    and ``sponsor`` (2009 §2.13) entered so far, ``refusing``: the teams that withdrew, between
    two series, from the series that opens next (2023 §4.8.1, 2009 §2.3), ``withdrawn``: the
    teams that withdrew from the open (or last) series. ``to_json()`` gives the contract's keys only,
    in its order.
    """

    ruleset: str
    series: SeriesState | None
    rating: tuple[str, ...]
    next: NextGame | None
    order: tuple[str, ...] | None
    series_best: Result | None
    finals: tuple[Final, ...]
    winter: tuple[str, ...]
    out: tuple[Out, ...]
    history: tuple[Move, ...]
    over: bool = False
    results: tuple[Result, ...] = ()
    reserves: tuple[str, ...] = ()
    sponsor: str | None = None
    refusing: tuple[str, ...] = ()
    withdrawn: tuple[str, ...] = ()
    rules: dict[str, Any] = field(default_factory=dict)
    amendments: tuple[Amendment, ...] = ()
    book_rules: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The book's own values of the amendable parameters (what :meth:`game_rules` leaves out)."""

    def to_json(self) -> dict[str, Any]:
        """``{"ruleset", "series", "rating", "next", "order", "series_best", "rules",
        "amendments", "finals", "winter", "out", "history"}`` exactly as in
        ``season-protocol.md`` (``rules``: every amendable parameter in force, 2023 §4.12.1;
        ``amendments``: ``[{"event", "set", "note"}]``)."""
        best = self.series_best
        return {
            "ruleset": self.ruleset,
            "series": None if self.series is None else self.series.to_json(),
            "rating": list(self.rating),
            "next": None if self.next is None else self.next.to_json(),
            "order": None if self.order is None else list(self.order),
            "series_best": None if best is None else {"team": best.team, "score": best.score},
            "rules": dict(self.rules),
            "amendments": [a.to_json() for a in self.amendments],
            "finals": [f.to_json() for f in self.finals],
            "winter": list(self.winter),
            "out": [o.to_json() for o in self.out],
            "history": [m.to_json() for m in self.history],
        }

    def game_rules(self) -> dict[str, Any]:
        """The amended parameters in force that the next game takes (2023 §4.12.1): only those
        that differ from the book's values (``{}`` when none do), for the game protocol's
        ``rules``."""
        return {k: v for k, v in self.rules.items() if self.book_rules.get(k) != v}

    def game_context(self) -> dict[str, Any]:
        """The season's part of the next game's context (``game-protocol.md``):
        ``{"series_best": "E:V" or None}`` — 2023 §3.6, ``None`` where nobody is to be beaten
        (series final, year final, special game, the first game of a series, 2009)."""
        return {"series_best": None if self.series_best is None else self.series_best.score}


@dataclass(frozen=True)
class Amendment:
    """One accepted ``amend`` event (2023 §4.12.1): ``event`` (its index), ``set`` (the
    parameters it changed, ``{name: value}``), ``note`` (what was announced, by whom)."""

    event: int
    set: dict[str, Any]
    note: str

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "set": dict(self.set), "note": self.note}


@dataclass
class OpenSeries:
    """The open (or last) series while the season replays (mutable; :class:`SeriesState` is
    its frozen view). ``order``: the qualifying order where the book fixes one (2023 §4.8);
    ``rematch_team``: the team whose rematch is one of its qualifying games (2009 §2.10)."""

    part: str
    qualifying: int
    closing: str
    opened_rating: tuple[str, ...]
    order: list[str] | None = None
    results: list[Result] = field(default_factory=list)  # qualifying and rematch games
    withdrawn: list[str] = field(default_factory=list)
    final_played: bool = False
    special_played: bool = False
    year_final_played: bool = False
    rematch_team: str | None = None  # 2009 §2.10

    @property
    def qualifying_played(self) -> int:
        return len(self.results)
