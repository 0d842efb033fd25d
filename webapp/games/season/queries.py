"""Reads of the season in the product: its teams, its stored events and the state derived
from them by the season engine (``webapp.domain.season``, ``season-protocol.md``).

Nothing here writes. A season is *kept by the engine* ("managed") once it has teams in its
initial rating (:func:`managed`); a season without teams is an older season whose games
play without the season's rules (no results are added, ``series_best`` comes from the
game's own series, :func:`webapp.games.operations.series_best`).
"""

from __future__ import annotations

from typing import Any

from webapp.accounts.models import User
from webapp.domain.books import BOOKS, book
from webapp.domain.donor import Donor
from webapp.domain.rules.parameters import PARAMETERS, defaults, shown_rules
from webapp.domain.season import FORMAT, Season, SeasonState, load_season
from webapp.extensions import db
from webapp.games.models import Game, Series, Team
from webapp.games.models import Season as SeasonRow
from webapp.games.season.models import (
    SeasonAmountChange,
    SeasonDonorChange,
    SeasonEvent,
    SeasonPrizeChange,
    SeasonTeam,
)


def season_teams(season: SeasonRow) -> list[SeasonTeam]:
    """All teams of the season: the initial rating first (by ``position``), then the teams
    that entered later (reserves, the sponsor's team) in the order they entered."""
    rows = db.session.scalars(
        db.select(SeasonTeam)
        .where(SeasonTeam.season_id == season.id)
        .order_by(SeasonTeam.position.is_(None), SeasonTeam.position, SeasonTeam.id)
    ).all()
    return list(rows)


def roster(season: SeasonRow) -> list[str]:
    """Names of the initial rating, first place first (the protocol's ``teams``)."""
    return [st.team.name for st in season_teams(season) if st.position is not None]


def managed(season: SeasonRow) -> bool:
    """True when the season has an initial rating: its games are the season engine's."""
    return (
        db.session.scalar(
            db.select(SeasonTeam.id)
            .where(SeasonTeam.season_id == season.id, SeasonTeam.position.is_not(None))
            .limit(1)
        )
        is not None
    )


def team_of_season(season: SeasonRow, team_id: int | None) -> Team | None:
    """The team ``team_id`` if it belongs to the season, else None."""
    if team_id is None:
        return None
    row = db.session.scalar(
        db.select(SeasonTeam).where(
            SeasonTeam.season_id == season.id, SeasonTeam.team_id == team_id
        )
    )
    return row.team if row is not None else None


def stored_events(season: SeasonRow) -> list[SeasonEvent]:
    """The season's events in ``seq`` order."""
    return list(
        db.session.scalars(
            db.select(SeasonEvent)
            .where(SeasonEvent.season_id == season.id)
            .order_by(SeasonEvent.seq)
        ).all()
    )


def document(season: SeasonRow, events: list[SeasonEvent] | None = None) -> dict[str, Any]:
    """The season as a ``sova.season-protocol/1`` file: ``{"format", "ruleset", "teams",
    "events"}`` (``teams``: the initial rating, first place first)."""
    events = stored_events(season) if events is None else events
    return {
        "format": FORMAT,
        "ruleset": season.ruleset,
        "teams": roster(season),
        "events": [dict(e.payload) for e in events],
    }


def engine(season: SeasonRow, before_seq: int | None = None) -> Season:
    """The season engine after replaying the stored events (those with ``seq`` below
    ``before_seq`` when given). The stored events were each accepted when stored, so a
    replay does not refuse them (it would raise the engine's error if the rules changed)."""
    events = [e for e in stored_events(season) if before_seq is None or e.seq < before_seq]
    book, teams, parsed = load_season(document(season, events), BOOKS)
    eng = Season.start(book, teams)
    for index, event in enumerate(parsed):
        eng.apply(event, index)
    return eng


def state_json(season: SeasonRow) -> dict[str, Any]:
    """The contract's derived state (``season-protocol.md`` "Output of sova season
    replay"). A season without teams yet: the same keys, empty."""
    if not managed(season):
        return {
            "ruleset": season.ruleset,
            "series": None,
            "rating": [],
            "next": None,
            "order": None,
            "series_best": None,
            "rules": defaults(season.book),
            "amendments": [],
            "finals": [],
            "winter": [],
            "out": [],
            "history": [],
        }
    return engine(season).state().to_json()


def game_rules_now(season: SeasonRow) -> dict[str, Any]:
    """The amended parameters in force in ``season`` now that a game takes when its first
    event is recorded (2023 §4.12.1): those that differ from the book's, ``{}`` when none
    do or the season has no teams (``SeasonState.game_rules``)."""
    return engine(season).state().game_rules() if managed(season) else {}


def state(season: SeasonRow) -> SeasonState | None:
    """The derived :class:`SeasonState`, or None for a season without teams."""
    return engine(season).state() if managed(season) else None


def game_event(game: Game) -> SeasonEvent | None:
    """The stored result of a closed game, if any."""
    return db.session.scalar(db.select(SeasonEvent).where(SeasonEvent.game_id == game.id))


def season_kind(ruleset: str, kind: str, team: str | None, eng: Season) -> str:
    """The season-protocol ``kind`` of a game of ``kind`` by ``team``: the game's kind,
    except a 2009 qualifying game of the team whose rematch this series is
    (002_e025d5ded135c1c4.txt §2.10), which is its ``rematch``."""
    s = eng.series
    if (
        book(ruleset).series_rematch
        and kind == "qualifying"
        and s is not None
        and s.rematch_team is not None
        and s.rematch_team == team
        and not any(r.team == s.rematch_team for r in s.results)
    ):
        return "rematch"
    return kind


def series_best(game: Game) -> str | None:
    """2023 §3.6 for a game of a managed season: the score of the team that played earlier
    in this series and leads the rating now (``SeasonState.series_best``), as the season
    stood before this game's result — only for a qualifying game; ``None`` in a series
    final, a special game, the year final (nobody is to be passed: §3.6 with §4.6, §4.7.1,
    §4.10) and under 2009 (no decisive round)."""
    if game.kind != "qualifying" or not game.season.book.decisive_round:
        return None
    own = game_event(game)
    eng = engine(game.season, before_seq=own.seq if own is not None else None)
    return eng.state().game_context()["series_best"]


def counted_part(game: Game) -> str | None:
    """The series (``"spring"``…) the season counts ``game`` in: a closed game's result was
    played in the series open when it was added; a game not closed yet will count in the
    series open now. None for a season not kept by the engine, or before the first series."""
    season = game.season
    if not managed(season):
        return None
    own = game_event(game)
    eng = engine(season)
    if own is not None:
        return next((r.part for r in eng.results if r.event == own.seq - 1), None)
    if game.status == "closed":
        return None
    return eng.series.part if eng.series is not None else None


def counted_series(game: Game) -> Series | None:
    """The Series row of :func:`counted_part` (the product creates it with the season's
    ``series`` event), or the game's own series outside the engine."""
    part = counted_part(game)
    if part is None:
        return game.series
    return db.session.scalar(
        db.select(Series).where(Series.season_id == game.season_id, Series.part == part)
    )


def game_links(season: SeasonRow) -> dict[int, Game]:
    """``{event index: game}`` for the events that are closed games' results."""
    rows = db.session.execute(
        db.select(SeasonEvent.seq, Game)
        .join(Game, Game.id == SeasonEvent.game_id)
        .where(SeasonEvent.season_id == season.id)
    ).all()
    return {seq - 1: game for seq, game in rows}


def final_winners(season: SeasonRow) -> dict[int, dict[str, Any]]:
    """For the closed finals of the season: ``{game id: {"kind", "part", "team", "won",
    "score"}}`` — which game was a series final or the year final, of which series, and
    whether the team (the experts) won it, from the season state (2023 §4.11.2–4.11.5,
    2009 §3.2–3.3 give the finals' prizes)."""
    if not managed(season):
        return {}
    eng = engine(season)
    links = game_links(season)
    out: dict[int, dict[str, Any]] = {}
    for result in eng.results:
        game = links.get(result.event)
        if game is not None and result.kind in ("series_final", "year_final", "special"):
            out[game.id] = {
                "kind": result.kind,
                "part": result.part,
                "team": result.team,
                "won": result.won,
                "score": result.score,
            }
    return out


FINAL_LABELS = {
    "series_final": "финал серии",
    "year_final": "финал года",
    "special": "специальная игра",
}
PART_LABELS = {"spring": "весенней", "summer": "летней", "autumn": "осенней", "winter": "зимней"}


def final_of_game(game: Game, form=None) -> dict[str, Any] | None:
    """For the prize page: what the season says of a closed final ``game`` —
    ``{"kind", "part", "team", "won", "score", "label"}`` (``label``: Russian, e.g.
    ``"финал весенней серии: «Буян», 6:2, знатоки победили"``) — or None (not a final of a
    managed season, or not closed yet). With ``form`` (the award form, not yet submitted) its
    ``team`` field is filled with the team's six experts: people still choose the
    recipient."""
    info = final_winners(game.season).get(game.id)
    if info is None:
        return None
    kind = FINAL_LABELS[info["kind"]]
    if info["kind"] == "series_final":
        kind = f"финал {PART_LABELS.get(info['part'], info['part'])} серии"
    verdict = "знатоки победили" if info["won"] else "победили телезрители"
    team = db.session.scalar(db.select(Team).where(Team.name == info["team"]))
    if (
        form is not None
        and team is not None
        and not form.is_submitted()
        and hasattr(form, "team")
        and not form.team.data
    ):
        form.team.data = "\n".join(team.experts)
    return {**info, "label": f"{kind}: «{info['team']}», {info['score']}, {verdict}"}


def _audit(model: Any, season: SeasonRow) -> list[tuple[Any, str]]:
    """The rows of an audit table of ``season`` (``model``: a change with ``season_id`` and
    ``by_user_id``), oldest first: ``[(change, who)]`` (``who``: the user's e-mail, «—»
    without a user)."""
    rows = db.session.execute(
        db.select(model, User.email)
        .outerjoin(User, User.id == model.by_user_id)
        .where(model.season_id == season.id)
        .order_by(model.id)
    ).all()
    return [(change, email or "—") for change, email in rows]


def prize_changes(season: SeasonRow) -> list[tuple[SeasonPrizeChange, str]]:
    """The audit of the season's prize per unanswered question (:func:`_audit`)."""
    return _audit(SeasonPrizeChange, season)


def amount_changes(season: SeasonRow) -> list[tuple[SeasonAmountChange, str]]:
    """The audit of the amounts of the season's individual prizes (:func:`_audit`)."""
    return _audit(SeasonAmountChange, season)


def default_donor(ruleset: str) -> Donor:
    """The donor a new season of ``ruleset`` gets when none is given (webapp.domain.donor):
    the book's ``default_donor`` when it names one (2009: the neutral
    :data:`~webapp.domain.donor.NEUTRAL_2009`, never the 2023 broadcaster), else the
    ``SOVA_BROADCASTER_*`` settings (name, the city of ``_PLACE`` without «г.»,
    ``_REPRESENTATIVE``, and address, УНП, ИНН and bank as the details' lines)."""
    from flask import current_app

    neutral = book(ruleset).default_donor
    if neutral is not None:
        return neutral
    b = current_app.config["SOVA_BROADCASTER"]
    city = " ".join((b.get("place") or "").split())
    for prefix in ("г. ", "г.\u00a0", "г."):
        if city.startswith(prefix):
            city = city[len(prefix) :].strip()
            break
    details = [
        f"Адрес: {b['address']}" if b.get("address") else "",
        f"УНП: {b['unp']}" if b.get("unp") else "",
        f"ИНН: {b['inn']}" if b.get("inn") else "",
        b.get("bank") or "",
    ]
    return Donor(
        name=b.get("name") or "",
        city=city or "Минск",
        details="\n".join(d for d in details if d),
        representative=b.get("represented_by") or "",
    )


def season_donor(season: SeasonRow) -> Donor:
    """The donor of ``season``'s prizes as its papers name it: the one stored with the
    season, else (a season made before donors were kept) its rule set's default."""
    if season.donor_name:
        return Donor(
            name=season.donor_name,
            city=season.donor_city or "",
            details=season.donor_details or "",
            representative=season.donor_representative or "",
        )
    return default_donor(season.ruleset)


def donor_changes(season: SeasonRow) -> list[tuple[SeasonDonorChange, str]]:
    """The audit of the season's donor (:func:`_audit`)."""
    return _audit(SeasonDonorChange, season)


def _shown(value: Any) -> str:
    """A parameter's value as the pages show it: «да»/«нет» for a switch, else the number."""
    if isinstance(value, bool):
        return "да" if value else "нет"
    return str(value)


def rules_view(season: SeasonRow, state: SeasonState | None) -> list[dict[str, Any]]:
    """The rules in force (2023 §4.12.1) for the season pages: ``[{"label", "value",
    "book", "changed"}]`` in the order of ``sova rules show`` (``value``/``book`` shown as
    text; ``changed``: differs from the book's), only what the season's book has
    (:func:`~webapp.domain.rules.parameters.shown_rules`: 2009 club help once amended)."""
    book = defaults(season.book)
    now = shown_rules(season.book, state.rules if state is not None else book)
    return [
        {
            "label": PARAMETERS[name].label_ru,
            "value": _shown(now[name]),
            # a number the book does not name is not shown as the book's (2009 §1.7)
            "book": "без ограничения"
            if name in season.book.rules.silent_parameters
            else _shown(value),
            "changed": now[name] != value,
        }
        for name, value in book.items()
        if name in now
    ]


def amendments_view(
    season: SeasonRow, state: SeasonState | None, events: list[SeasonEvent]
) -> list[dict[str, Any]]:
    """Each accepted amendment (2023 §4.12.1), oldest first: ``[{"event", "at" (UTC, when it
    was recorded), "who" (e-mail, «—» without a user), "changes": [(label, value)],
    "note"}]``; ``events`` are the season's stored events (index ``i`` is ``events[i]``)."""
    if state is None:
        return []
    authors = {events[a.event].by_user_id for a in state.amendments} - {None}
    emails = dict(
        db.session.execute(db.select(User.id, User.email).where(User.id.in_(authors))).all()
        if authors
        else []
    )
    out = []
    for amendment in state.amendments:
        stored = events[amendment.event]
        out.append(
            {
                "event": amendment.event,
                "at": stored.created_at,
                "who": emails.get(stored.by_user_id, "—"),
                "changes": [
                    (PARAMETERS[name].label_ru, _shown(value))
                    for name, value in amendment.set.items()
                ],
                "note": amendment.note,
            }
        )
    return out


def start_view(season: SeasonRow, events: list[SeasonEvent]) -> dict[str, Any] | None:
    """The season's recorded starting point (Sova's ``start`` event, ``docs/protocols.md``),
    or None: ``{"event" (its index), "at" (UTC, when it was recorded), "who" (e-mail, «—»
    without a user), "part", "games" (how many games so far it records), "note"}``."""
    for index, stored in enumerate(events):
        payload = stored.payload
        if payload.get("type") != "start":
            continue
        user = db.session.get(User, stored.by_user_id) if stored.by_user_id else None
        return {
            "event": index,
            "at": stored.created_at,
            "who": user.email if user is not None else "—",
            "part": payload.get("part"),
            "games": len(payload.get("results") or []),
            "note": payload.get("note") or "",
        }
    return None
