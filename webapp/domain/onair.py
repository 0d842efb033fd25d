"""The on-air row: what the broadcast graphics of a game may show at one moment (pure:
standard library only; ``shared/contracts/api.md``, «On air»).

The row is derived from the same replay the console and ``GET /api/v1/games/{id}`` read (the
rules engine's state of :func:`webapp.domain.rules.replay`) and the game's recorded events
(the host's ``minute`` taps, the answering expert), plus what the table holds for the
question in play: its authors and whether they may be named. Shape of :func:`onair_row`::

    {"revision": int, "status": "waiting"|"live"|"finished"|"closed",
     "game": str, "season": str, "language": "ru"|"be", "team": str, "captain": str,
     "score_experts": int, "score_viewers": int, "round": int,
     "sector_spun": int, "sector": int, "sector_kind": "regular"|"blitz"|"superblitz"|"sector13",
     "author": str, "city": str, "prize": "300.00 BYN" | "", "expert": str,
     "result": ""|"experts"|"viewers", "minute_running": bool, "minute_ends_at": ISO 8601 | ""}

Secrecy (the contract's «Never in a row»): the row has no key for a question's text, answer
or comment, so none can leak; an author is named only for the question in play — the one
being asked, or the last one asked once the round is decided — never for a question of the
table not yet reached, and only with the author's consent (``named``), as on the archive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

#: The engine's round kinds as the feed names them (``single`` is a regular sector).
SECTOR_KINDS = {
    "single": "regular",
    "blitz": "blitz",
    "superblitz": "superblitz",
    "sector13": "sector13",
}

#: The game's status as the feed says it (``draft`` and ``ready`` are not live yet).
FEED_STATUS = {
    "draft": "waiting",
    "ready": "waiting",
    "live": "live",
    "finished": "finished",
    "closed": "closed",
}

#: Seconds of discussion per question (2023 §3.2, 2009 §1.2: «за одну минуту»).
MINUTE = 60
#: Blitz and superblitz: 20 seconds a question (2023 §3.4.1, §3.4.2; 2009 §1.4.2, §1.4.3).
BLITZ_SECONDS = 20
#: 2023 sector 13 by the team's option (§3.4.3): six experts 10 s, three 20 s, one a minute.
SECTOR13_OPTION_SECONDS = {"six": 10, "three": 20, "one": 60}
#: Club help: 20 seconds for the club (2023 §3.7.1, 2009 §1.7).
CLUB_HELP_SECONDS = 20


@dataclass(frozen=True)
class Asked:
    """What the feed may know of one question of the table: its authors (``names`` in
    authorship order, ``cities`` of each, ``""`` when unknown) and ``named``, whether they
    may be named on air (the viewer's consent, or a channel that implies it)."""

    names: tuple[str, ...]
    cities: tuple[str, ...]
    named: bool


@dataclass(frozen=True)
class GameCard:
    """The game's envelope of the row: ``status`` (the game's own: draft, ready, live,
    finished, closed), ``game`` (its label as people know it), ``season`` (its name),
    ``language`` (``ru`` | ``be``), ``team``, ``captain``, ``prize`` (the prize at stake
    for an unanswered question with its currency, ``"300.00 BYN"``, or ``""``), ``zone``
    (the season's IANA time zone, in which ``minute_ends_at`` is written)."""

    status: str
    game: str
    season: str
    language: str
    team: str
    captain: str
    prize: str
    zone: str


def discussion_seconds(kind: str, option: str | None, aid: str | None) -> int:
    """How long the countdown started by a ``minute`` tap runs, in seconds.

    ``kind``: the engine's round kind; ``option``: the 2023 sector-13 option; ``aid``: the
    last aid taken on the question before the tap (``club_help``, ``extra_minute``,
    ``credit_minute``) or None. Club help gives the club 20 s (2023 §3.7.1, 2009 §1.7); an
    extra minute or a minute on credit is a minute (2023 §3.5, §3.8; 2009 §1.5); a blitz or
    superblitz question 20 s (2023 §3.4.1–§3.4.2, 2009 §1.4.2–§1.4.3); 2023 sector 13 as the
    option says (§3.4.3); any other question one minute (2023 §3.2, 2009 §1.2).
    """
    if aid == "club_help":
        return CLUB_HELP_SECONDS
    if aid in ("extra_minute", "credit_minute"):
        return MINUTE
    if kind in ("blitz", "superblitz"):
        return BLITZ_SECONDS
    if kind == "sector13" and option in SECTOR13_OPTION_SECONDS:
        return SECTOR13_OPTION_SECONDS[option]
    return MINUTE


@dataclass(frozen=True)
class _Question:
    """The question in play as the events tell it: the expert who answered it (``""``),
    the minute's start (aware datetime or None), the last aid before it, the option."""

    expert: str
    started: datetime | None
    stopped: bool
    aid: str | None
    option: str | None


def _question_in_play(events: Iterable[Mapping[str, Any]]) -> _Question:
    """Walk the recorded events: every spin starts a new round (one round per spin, as the
    engine counts them), every answer or red card settles the question in play (a blitz's
    next question starts with no minute). What is left describes the question in play."""
    expert = ""
    started: datetime | None = None
    stopped = False
    aid: str | None = None
    option: str | None = None
    for event in events:
        kind = event.get("type")
        if kind == "spin":
            expert, started, stopped, aid, option = "", None, False, None, None
        elif kind == "sector13_option":
            option = event.get("option")
        elif kind in ("club_help", "extra_minute", "credit_minute"):
            aid = kind
        elif kind in ("answer", "red_card"):
            expert = (event.get("expert") or "") if kind == "answer" else ""
            started, stopped, aid = None, False, None
        elif kind == "minute":
            at = event.get("at")
            if event.get("action") == "start" and at:
                started, stopped = datetime.fromisoformat(at), False
            elif event.get("action") == "stop":
                stopped = True
    return _Question(expert, started, stopped, aid, option)


def _slot_in_play(round_: Mapping[str, Any]) -> int:
    """The slot of the question in play in ``round_`` (the engine's round JSON): the first
    not asked while the round is undecided, else the last asked (the round's result names
    it); 1 when nothing was asked yet."""
    questions: Sequence[Mapping[str, Any]] = round_["questions"]
    asked = [int(q["slot"]) for q in questions if q["asked"]]
    if round_["winner"] is None:
        waiting = [int(q["slot"]) for q in questions if not q["asked"]]
        if waiting:
            return waiting[0]
    return asked[-1] if asked else 1


def onair_row(
    card: GameCard,
    state: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    table: Mapping[tuple[int, int], Asked],
    revision: int,
) -> dict[str, Any]:
    """The on-air row of a game (module docstring for its shape).

    ``state``: the engine's replay of ``events`` (:func:`webapp.domain.rules.replay`);
    ``events``: the recorded ``sova.game-protocol/1`` events; ``table``: ``{(sector, slot):
    Asked}`` for the questions of the table (the caller puts a drawn 2009 sector-13 question
    at ``(sector, 1)``); ``revision``: grows with every change of the game (the caller's
    count). Raises KeyError for a status not in :data:`FEED_STATUS`.
    """
    experts, viewers = (int(x) for x in state["score"].split(":"))
    row: dict[str, Any] = {
        "revision": revision,
        "status": FEED_STATUS[card.status],
        "game": card.game,
        "season": card.season,
        "language": card.language,
        "team": card.team,
        "captain": card.captain,
        "score_experts": experts,
        "score_viewers": viewers,
        "round": len(state["rounds"]),
        "sector_spun": 0,
        "sector": 0,
        "sector_kind": "",
        "author": "",
        "city": "",
        "prize": "",
        "expert": "",
        "result": "",
        "minute_running": False,
        "minute_ends_at": "",
    }
    if not state["rounds"]:
        return row
    current = state["rounds"][-1]
    question = _question_in_play(events)
    asked = table.get((current["sector"], _slot_in_play(current)))
    row.update(
        sector_spun=current["arrow"],
        sector=current["sector"],
        sector_kind=SECTOR_KINDS[current["kind"]],
        prize=card.prize if asked is not None else "",
        expert=question.expert,
        result=current["winner"] or "",
    )
    if asked is not None and asked.named:
        row["author"] = ", ".join(asked.names)
        row["city"] = ", ".join(dict.fromkeys(c for c in asked.cities if c))
    if question.started is not None and not question.stopped and not row["result"]:
        seconds = discussion_seconds(current["kind"], question.option, question.aid)
        ends = question.started + timedelta(seconds=seconds)
        row["minute_running"] = True
        row["minute_ends_at"] = ends.astimezone(ZoneInfo(card.zone)).isoformat()
    return row
