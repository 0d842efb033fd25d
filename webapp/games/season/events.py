"""Writes of the season in the product: its teams and its events (``season-protocol.md``).

Every event is checked by the season engine (``webapp.domain.season``) against the replay of
the stored events before it is stored; a refusal stores nothing and carries the engine's
error object ``{"event", "rule", "message"}``. The closing of a game adds its result in the
same transaction (:func:`add_game_result`, called by
:func:`webapp.games.close.close_game`); the producer adds the other events
(:func:`add_event`). Operations only flush; the caller commits once.
"""

from __future__ import annotations

from typing import Any

from webapp.core.models import utcnow
from webapp.domain.books import cite
from webapp.domain.donor import quoted
from webapp.domain.rules import ProtocolError
from webapp.domain.rules.game import same_name
from webapp.domain.rules.parameters import AMEND_CLAUSE, PARAMETERS, unchanged
from webapp.domain.season import SeasonViolation
from webapp.domain.text import team_phrase
from webapp.extensions import db
from webapp.games.models import Game, Season, Team
from webapp.games.operations.play import shown_value
from webapp.games.season import queries as sq
from webapp.games.season.models import SeasonEvent, SeasonTeam
from webapp.games.season.operations import create_series, create_team
from webapp.games.season.refusals import SeasonConflict, conflict


def _lock(season: Season) -> None:
    """Serialise writers of one season's events (``FOR UPDATE`` on PostgreSQL; SQLite
    writers are serialised by ``BEGIN IMMEDIATE``)."""
    db.session.execute(db.select(Season.id).where(Season.id == season.id).with_for_update())


def add_team(season: Season, team: Team) -> SeasonTeam:
    """Put ``team`` last in the season's initial rating (2023 §4.2.1, 2009 §2.1). Only before
    the season's first event: the initial rating is what every event was checked against
    (SeasonConflict); a team joining later enters by an ``enter`` event. A team already in
    the season: SeasonConflict."""
    _lock(season)
    if sq.stored_events(season):
        raise SeasonConflict(
            f"у сезона {quoted(season.name)} уже есть события: начальный рейтинг "
            "не меняется (новая команда входит событием «Ввести команду»)",
            event=None,
            rule=None,
        )
    if sq.team_of_season(season, team.id) is not None:
        raise SeasonConflict(f"{team_phrase(team.name)} уже в сезоне", event=None, rule=None)
    last = (
        db.session.scalar(
            db.select(db.func.max(SeasonTeam.position)).where(SeasonTeam.season_id == season.id)
        )
        or 0
    )
    row = SeasonTeam(season_id=season.id, team_id=team.id, position=last + 1, created_at=utcnow())
    db.session.add(row)
    db.session.flush()
    return row


def add_new_team(season: Season, name: str, captain: str, experts: list[str]) -> SeasonTeam:
    """Create a team (a captain and six experts, :func:`create_team`; GameError) and put it
    last in the season's initial rating (:func:`add_team`)."""
    return add_team(season, create_team(name, captain, experts))


def _store(season: Season, payload: dict, user_id: int | None, game: Game | None = None) -> Any:
    _lock(season)
    if not sq.managed(season):
        raise SeasonConflict(
            f"у сезона {quoted(season.name)} нет команд: сначала составьте начальный рейтинг",
            event=None,
            rule=None,
        )
    events = sq.stored_events(season)
    entering: Team | None = None
    if payload.get("type") == "enter":
        name = payload.get("team")
        entering = (
            db.session.scalar(db.select(Team).where(Team.name == name))
            if isinstance(name, str)
            else None
        )
        if entering is None:
            raise SeasonConflict(
                f"нет команды «{name}»: сначала создайте её (капитан и шесть знатоков)",
                event=len(events),
                rule=None,
            )
    eng = sq.engine(season)
    try:
        eng.apply(payload, len(events))
    except (SeasonViolation, ProtocolError) as exc:
        raise conflict(exc) from exc
    db.session.add(
        SeasonEvent(
            season_id=season.id,
            seq=len(events) + 1,
            payload=payload,
            game_id=game.id if game is not None else None,
            by_user_id=user_id,
            created_at=utcnow(),
        )
    )
    if entering is not None and sq.team_of_season(season, entering.id) is None:
        db.session.add(
            SeasonTeam(season_id=season.id, team_id=entering.id, position=None, created_at=utcnow())
        )
    if payload.get("type") in ("series", "start"):
        create_series(season.id, payload["part"])  # the games of the series link to it
    db.session.flush()
    return eng.state()


def add_event(season: Season, payload: Any, user_id: int | None):
    """Store one producer's event of ``season-protocol.md`` (``series``, ``withdraw``,
    ``rematch``, ``decline_winter``, ``enter``, ``amend``, and Sova's ``start``: the starting
    point of a season joined under way, ``docs/protocols.md``) if the season engine accepts it
    after the stored events. A team is named as the season lists it, case and runs of spaces
    aside (:func:`canonical_names`). Returns the new :class:`~webapp.domain.season.SeasonState`. A ``game``
    event is refused: a game's result is added by closing the game. ``enter`` names an
    existing team, which joins the season. Raises SeasonConflict (the engine's error object
    for a refusal by the rules); nothing is stored then."""
    if not isinstance(payload, dict):
        raise SeasonConflict("событие — объект JSON", event=None, rule=None)
    if payload.get("type") == "game":
        raise SeasonConflict("результат игры добавляется закрытием игры", event=None, rule=None)
    if payload.get("type") == "amend":
        _refuse_amend_mid_game(season)
        _refuse_amend_that_changes_nothing(season, payload.get("set"))
    return _store(season, canonical_names(season, dict(payload)), user_id)


def canonical_names(season: Season, payload: dict) -> dict:
    """``payload`` with each team name that is one of the season's teams spelt otherwise
    (Unicode NFC, case and runs of white space aside: :func:`same_name`; «ё» and «е» stay
    different letters, as in the names of the teams' captains) replaced by the season's
    spelling, so the engine, which compares names exactly, finds the team. A name of no team
    of the season is left as written (the engine refuses it)."""
    names = [st.team.name for st in sq.season_teams(season)]

    def fix(name: Any) -> Any:
        if not isinstance(name, str):
            return name
        return next((n for n in names if same_name(n, name)), name)

    out = dict(payload)
    for key in ("team", "rematch", "sponsor"):
        if key in out:
            out[key] = fix(out[key])
    for key in ("teams", "rating", "winter"):
        if isinstance(out.get(key), list):
            out[key] = [fix(n) for n in out[key]]
    if isinstance(out.get("results"), list):
        out["results"] = [
            {**r, "team": fix(r.get("team"))} if isinstance(r, dict) else r for r in out["results"]
        ]
    return out


def _refuse_amend_that_changes_nothing(season: Season, values: Any) -> None:
    """2023 §4.12.1: an amendment whose every value is already in force
    (:func:`webapp.domain.rules.parameters.unchanged`) is refused (SeasonConflict citing
    §4.12.1): recorded, the season's list of changes would show it as a change."""
    state = sq.state(season)
    if state is None or not unchanged(state.rules, values):
        return
    named = "; ".join(
        f"{PARAMETERS[name].label_ru} — уже {shown_value(value)}" for name, value in values.items()
    )
    raise SeasonConflict(
        f"правила не меняются: {named} ({cite(AMEND_CLAUSE)})", event=None, rule=AMEND_CLAUSE
    )


def _refuse_amend_mid_game(season: Season) -> None:
    """2023 §4.12.1 in the product: the rules change between games. A game keeps the rules in
    force at its first event, and its result enters the season under the rules in force when
    it closes; so an amendment is refused (SeasonConflict, ``rule`` None) while a game of the
    season has events and is not closed yet."""
    playing = db.session.scalar(
        db.select(Game.id)
        .where(Game.season_id == season.id, Game.status.in_(("live", "finished")))
        .order_by(Game.id)
        .limit(1)
    )
    if playing is not None:
        raise SeasonConflict(
            f"игра {playing} уже идёт по действующим правилам: изменение правил объявляется "
            "между играми, когда она будет закрыта",
            event=None,
            rule=None,
        )


def result_event(game: Game, game_state: dict, eng) -> dict:
    """The season's ``game`` event of a finished game: its kind (a 2009 rematch is a
    ``rematch``, :func:`.queries.season_kind`), team, final score and whether the
    decisive round was played (2023 §3.6)."""
    team = game.team_row
    assert team is not None  # add_game_result checked the team is of the season
    return {
        "type": "game",
        "kind": sq.season_kind(game.season.ruleset, game.kind, team.name, eng),
        "team": team.name,
        "score": game_state["score"],
        "decisive_round": any(r.get("decisive") for r in game_state["rounds"]),
    }


def add_game_result(game: Game, game_state: dict, user_id: int | None) -> None:
    """Add a closing game's result to its season (same transaction as the close). Only for
    a season kept by the engine (:func:`.queries.managed`); its game must have a team
    of the season (SeasonConflict). Refused by the rules → SeasonConflict with the clause,
    and the caller refuses the close. Idempotent per game."""
    season = game.season
    if not sq.managed(season) or sq.game_event(game) is not None:
        return
    if sq.team_of_season(season, game.team_id) is None:
        raise SeasonConflict(
            f"игра {game.id} сезона {quoted(season.name)} без команды сезона: "
            "выберите команду, чтобы результат вошёл в рейтинг",
            event=None,
            rule=None,
        )
    _store(season, result_event(game, game_state, sq.engine(season)), user_id, game=game)


__all__ = [
    "add_event",
    "add_game_result",
    "add_new_team",
    "add_team",
    "result_event",
]
