"""Writes of the season in the product: its teams and its events (``season-protocol.md``).

Every event is checked by the season engine (``webapp.domain.season``) against the replay of
the stored events before it is stored; a refusal stores nothing and carries the engine's
error object ``{"event", "rule", "message"}``. The closing of a game adds its result in the
same transaction (:func:`add_game_result`, called by
:func:`webapp.prizes.operations.close_game`); the producer adds the other events
(:func:`add_event`). Operations only flush; the caller commits once.
"""

from __future__ import annotations

from typing import Any

from webapp.core.models import utcnow
from webapp.domain.donor import quoted
from webapp.domain.rules import ProtocolError, rule_reference
from webapp.domain.season import SeasonViolation
from webapp.domain.text import team_phrase
from webapp.extensions import db
from webapp.games import season_queries as sq
from webapp.games.models import Game, Season, Team
from webapp.games.operations import GameConflict, GameError, create_series, create_team
from webapp.games.season_models import SeasonEvent, SeasonTeam

#: Russian gist of the season's clauses, for the staff pages where a refusal carries no
#: Russian fault of its own (every refusal of the season engine carries one,
#: ``SeasonViolation.ru``); the API keeps the engine's English ``message``; the clause is
#: always shown.
REFUSALS_RU = {
    "§3.6": "решающий раунд здесь не положен",
    "§3.10": "счёт законченной игры — у одной из сторон 6 очков",
    "§1.8": "игра идёт до 6 очков",
    "§4.1": "эта игра или серия сейчас не по порядку сезона",
    "§4.2.3": "рейтинг осенней серии формируется по правилам",
    "§4.4": "команда выбыла из сезона после второго поражения",
    "§4.6": "в специальной игре играет команда вне рейтинга",
    "§4.7.1": "финал серии играет первая команда рейтинга",
    "§4.7.2": "команда сыграла финал серии и уже вышла в зимнюю серию",
    "§4.8": (
        "отборочные игры серии идут снизу вверх по рейтингу: "
        "первой играет команда с последнего места, последней — с первого"
    ),
    "§4.8.1": "команда отказывается от серии до своей первой игры в ней",
    "§4.9": "зимний рейтинг формируется по правилам",
    "§4.9.3": "резервные команды — только для зимней серии",
    "§4.10": "финал года играет первая команда зимнего рейтинга",
    "§2.3": "команда отказалась от этой серии",
    "§2.4": "команда не в списке серии или уже сыграла в ней",
    "§2.5": "серии идут по порядку: весенняя, летняя, осенняя, зимняя",
    "§2.6": "эта игра или серия сейчас не по порядку сезона",
    "§2.9": "финал серии играет первая команда рейтинга",
    "§2.10": "переигровка — только проигравшему финал серии",
    "§2.11": "команда выбыла из сезона",
    "§2.12": "отказ от зимней серии — только победителю финала серии",
    "§2.13": "команда спонсора входит в зимний рейтинг одна",
    "§2.15": "при четырёх командах финал Зимней серии отменён",
    "§2.16": "при трёх командах в Зимней серии 3 отборочные игры и финал",
    "§2.17": "в Зимней серии играют не меньше трёх команд",
    "§2.14": "первую зимнюю отборочную игру играет команда спонсора",
    "§2.18": "финал года играет первая команда рейтинга",
}


class SeasonConflict(GameConflict):
    """The season's rules or state refuse the action (HTTP 409). ``error``: ``{"event",
    "rule", "message"}`` — for a refusal by the rules the season engine's error object
    (``rule`` cites the clause), else ``rule`` None. ``ru``: the engine's Russian fault
    (``SeasonViolation.ru``; not in the API's body).
    ``str()`` is the Russian text for the staff pages (:func:`refusal_ru`)."""

    def __init__(self, message: str, ru: str | None = None, **extra):
        super().__init__(message, **extra)
        self.ru = ru

    def __str__(self) -> str:
        return refusal_ru(self.error, self.ru)


def refusal_ru(error: dict, ru: str | None = None) -> str:
    """The refusal for a Russian page: what is wrong and the clause as staff read it
    (``"«Потапова» уже играла в весенней серии и отказаться от неё больше не может (п. 4.8.1
    Правил сезона 2023 г.)"``, ``webapp.domain.rules.rule_reference``). ``ru``: the engine's
    Russian fault (``SeasonViolation.ru``, which every refusal of the engine carries); without
    it the gist of the clause (:data:`REFUSALS_RU`); without a clause, the operation's own
    (Russian) message."""
    rule = error.get("rule")
    if not rule:
        return str(error.get("message", ""))
    clause = rule.split(" ", 1)[-1]
    gist = ru or REFUSALS_RU.get(clause, "отказ по правилам сезона")
    return f"{gist} ({rule_reference(rule)})"


def _conflict(exc: SeasonViolation | ProtocolError) -> SeasonConflict:
    error = exc.to_json()["error"]
    return SeasonConflict(error.pop("message"), ru=getattr(exc, "ru", None), **error)


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
            "не меняется (новая команда входит событием «enter»)",
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
        raise _conflict(exc) from exc
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
    if payload.get("type") == "series":
        create_series(season.id, payload["part"])  # the games of the series link to it
    db.session.flush()
    return eng.state()


def add_event(season: Season, payload: Any, user_id: int | None):
    """Store one producer's event of ``season-protocol.md`` (``series``, ``withdraw``,
    ``rematch``, ``decline_winter``, ``enter``, ``amend``) if the season engine accepts it after the
    stored events. Returns the new :class:`~webapp.domain.season.SeasonState`. A ``game``
    event is refused: a game's result is added by closing the game. ``enter`` names an
    existing team, which joins the season. Raises SeasonConflict (the engine's error object
    for a refusal by the rules); nothing is stored then."""
    if not isinstance(payload, dict):
        raise SeasonConflict("событие — объект JSON", event=None, rule=None)
    if payload.get("type") == "game":
        raise SeasonConflict("результат игры добавляется закрытием игры", event=None, rule=None)
    if payload.get("type") == "amend":
        _refuse_amend_mid_game(season)
    return _store(season, dict(payload), user_id)


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
    ``rematch``, :func:`season_queries.season_kind`), team, final score and whether the
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
    a season kept by the engine (:func:`season_queries.managed`); its game must have a team
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


def check_new_game(season: Season, kind: str, team: Team | None) -> None:
    """Before a game of ``kind`` by ``team`` is created (or its team set) in a season kept by
    the engine: the team must be of the season and the rules must allow its game now
    (``Season.check_game``: 2023 §4.4, §4.6, §4.7.1, §4.8, §4.10; 2009 §2.3–2.18). Raises
    SeasonConflict with the clause. A game without a team is not checked (the producer sets
    the team later; the close checks the result)."""
    if team is None or not sq.managed(season):
        return
    if sq.team_of_season(season, team.id) is None:
        raise SeasonConflict(
            f"{team_phrase(team.name)} не из сезона {quoted(season.name)}", event=None, rule=None
        )
    eng = sq.engine(season)
    kind = sq.season_kind(season.ruleset, kind, team.name, eng)
    try:
        eng.check_game(kind, team.name, index=len(sq.stored_events(season)))
    except (SeasonViolation, ProtocolError) as exc:
        raise _conflict(exc) from exc


__all__ = [
    "REFUSALS_RU",
    "SeasonConflict",
    "GameError",
    "add_event",
    "add_game_result",
    "add_new_team",
    "add_team",
    "check_new_game",
    "refusal_ru",
    "result_event",
]
