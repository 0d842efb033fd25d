"""The season engine: team rating (ТРК), series, finals, winter series and year final.

Pure Python, standard library only. A season is its ordered event list
(``shared/contracts/season-protocol.md``, format ``sova.season-protocol/1``); its state is
what :func:`replay_season` derives from the events under a rule book, handed to the engine
(this package never imports the books): ``webapp.domain.books.b2023.season`` (2023,
``000_90d7c8192601ed3a.txt`` §4.1–§4.10) and ``webapp.domain.books.b2009.season`` (2009,
``002_e025d5ded135c1c4.txt`` §2.1–§2.18) hold what differs.

The package: :mod:`.events` (the event types, parsing), :mod:`.state` (the derived state and
:class:`SeasonViolation`), :mod:`.engine` (:class:`Season`, the replay every book shares),
:mod:`.rulebook` (:class:`RuleBook`, what a book answers; each book subclasses it in its own
package).

Public API (``books``: the registry ``webapp.domain.books.BOOKS``; ``book``: one of them)::

    state = replay_season(document, books)  # SeasonState; SeasonViolation / ProtocolError
    state.to_json()                        # the contract's "Output of sova season replay"
    state.game_context()                   # {"series_best": "6:3" | None} for the game engine
    book, teams, events = load_season(document, books)   # shape only (ProtocolError)
    season = Season.start(book, teams)     # step by step: season.apply(raw_event, index)
    season.check_game(kind, team)          # would this team's game of this kind be allowed now?

Errors: :class:`SeasonViolation` (a :class:`~webapp.domain.rules.RuleViolation`: an event the
rules forbid at that point, with its clause) and :class:`~webapp.domain.rules.ProtocolError`
(malformed input: not an object, wrong format, unknown event type, unknown team, bad score…).
Both give ``{"error": {"event", "rule", "message"}}`` through ``to_json()``. The readings taken
where a clause reads two ways are in ``docs/rules.md`` ("The season").
"""

from .engine import HasSeason, Season, SeasonBook, load_season, replay_season, to_json
from .events import (
    CLOSINGS,
    ENTER_AS,
    EVENT_TYPES,
    FORMAT,
    KINDS,
    MAX_POINTS,
    PARTS,
    WIN,
    Event,
    parse_event,
    parse_score,
)
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

__all__ = [
    "HasSeason",
    "SeasonBook",
    "CLOSINGS",
    "ENTER_AS",
    "EVENT_TYPES",
    "FORMAT",
    "KINDS",
    "MAX_POINTS",
    "PARTS",
    "WIN",
    "Amendment",
    "Event",
    "Final",
    "Move",
    "NextGame",
    "OpenSeries",
    "Out",
    "Result",
    "RuleBook",
    "Season",
    "SeasonState",
    "SeasonViolation",
    "SeriesState",
    "load_season",
    "parse_event",
    "parse_score",
    "replay_season",
    "to_json",
]
