"""API v1: the season (``shared/contracts/api.md``, ``season-protocol.md``).

``GET /seasons/{id}`` (the derived state plus ``{id, name}``), ``POST /seasons/{id}/events``
(one producer's event → ``201 {state}`` or ``409 {error}``), ``GET /seasons/{id}/protocol``
(the ``sova.season-protocol/1`` file) and ``POST /seasons/{id}/teams`` (a team of a captain
and six experts joins the initial rating, before the first event). A closed game's result is
added by the closing itself (``POST /games/{id}/close``). Refusals are answered by the
request edge (``webapp.core.edge``): 409 ``{error}`` / 422 ``{errors}``.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapp.api.body import Blueprint
from webapp.api.schemas import ErrorBody, Strict, ValidationErrors
from webapp.core.access import access, current_staff
from webapp.domain.season import EVENT_TYPES
from webapp.extensions import db
from webapp.games.models import Season, Team
from webapp.games.operations import GameError
from webapp.games.season import queries as season_queries
from webapp.games.season.events import add_event, add_new_team, add_team
from webapp.games.season.operations import create_team

blp = Blueprint(
    "api_seasons",
    __name__,
    url_prefix="/api/v1",
    description="The season: rating, series, finals (season-protocol.md)",
)
SECURE: list[dict[str, list[str]]] = [{"bearer": []}]
MAX_ID = 2**31 - 1


class SeasonEventIn(Schema):
    """One event of ``sova.season-protocol/1`` (``series``, ``withdraw``, ``rematch``,
    ``decline_winter``, ``enter``, ``amend``, and Sova's ``start``: the starting point of a
    season joined under way, ``docs/protocols.md``); the season engine checks the fields. ``amend``
    (2023 §4.12.1): ``set`` ``{parameter: value}`` (``sova rules show``), ``note`` what was
    announced, by whom."""

    class Meta:
        unknown = "include"

    type = fields.String(
        required=True,
        metadata={"enum": [t for t in EVENT_TYPES if t != "game"]},
    )
    set = fields.Dict(
        keys=fields.String(),
        metadata={"description": "amend: the parameters and their new values (§4.12.1)"},
    )
    note = fields.String(
        validate=validate.Length(max=1000),
        metadata={"description": "amend: what was announced, by whom"},
    )


class SeasonStateOut(Schema):
    """The derived state of ``season-protocol.md`` plus ``id`` and ``name``."""

    class Meta:
        unknown = "include"

    id = fields.Integer()
    name = fields.String()
    ruleset = fields.String()
    series = fields.Dict(allow_none=True)
    rating = fields.List(fields.String())
    next = fields.Dict(allow_none=True)
    order = fields.List(fields.String(), allow_none=True)
    series_best = fields.Dict(allow_none=True)
    rules = fields.Dict()
    amendments = fields.List(fields.Dict())
    finals = fields.List(fields.Dict())
    winter = fields.List(fields.String())
    out = fields.List(fields.Dict())
    history = fields.List(fields.Dict())


class SeasonStateWrapped(Schema):
    state = fields.Dict()


class SeasonProtocolOut(Schema):
    format = fields.String()
    ruleset = fields.String()
    teams = fields.List(fields.String())
    events = fields.List(fields.Dict())


class SeasonTeamIn(Strict):
    """An existing team (``team_id``) or a new one (``name``, ``captain``, ``experts``: six
    names, the captain among them)."""

    team_id = fields.Integer(
        load_default=None, allow_none=True, strict=True, validate=validate.Range(min=1, max=MAX_ID)
    )
    name = fields.String(
        load_default=None, allow_none=True, validate=validate.Length(min=1, max=200)
    )
    captain = fields.String(load_default=None, allow_none=True)
    experts = fields.List(
        fields.String(validate=validate.Length(max=100)), load_default=None, allow_none=True
    )


class TeamIn(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=200))
    captain = fields.String(required=True)
    experts = fields.List(fields.String(validate=validate.Length(max=100)), required=True)


class SeasonTeamOut(Schema):
    id = fields.Integer()
    team_id = fields.Integer()
    position = fields.Integer()


def _season(season_id: int) -> Season:
    return db.get_or_404(Season, season_id)


@blp.route("/seasons/<int:season_id>")
@access("producer|host", api=True)
@blp.response(200, SeasonStateOut)
@blp.doc(security=SECURE)
def season_state(season_id):
    """The season's state derived by replaying its events, plus ``{id, name}``."""
    season = _season(season_id)
    return {"id": season.id, "name": season.name, **season_queries.state_json(season)}


@blp.route("/seasons/<int:season_id>/events", methods=["POST"])
@access("producer", api=True)
@blp.arguments(SeasonEventIn)
@blp.response(201, SeasonStateWrapped)
@blp.alt_response(409, schema=ErrorBody)
@blp.doc(security=SECURE)
def season_event(event, season_id):
    """Add one event of ``season-protocol.md``; 409 ``{error: {event, rule, message}}`` when
    the rules refuse it (the clause in ``rule``). ``game`` events are refused: closing a game
    adds its result."""
    season = _season(season_id)
    state = add_event(season, dict(event), current_staff().id)  # SeasonConflict → 409 (edge)
    return {"state": state.to_json()}


@blp.route("/seasons/<int:season_id>/protocol")
@access("producer|host", api=True)
@blp.response(200, SeasonProtocolOut)
@blp.doc(security=SECURE)
def season_protocol(season_id):
    """The season's ``sova.season-protocol/1`` file (``sova season replay`` reads it)."""
    return season_queries.document(_season(season_id))


@blp.route("/seasons/<int:season_id>/teams", methods=["POST"])
@access("producer", api=True)
@blp.arguments(SeasonTeamIn)
@blp.response(201, SeasonTeamOut)
@blp.alt_response(409, schema=ErrorBody)
@blp.alt_response(422, schema=ValidationErrors)
@blp.doc(security=SECURE)
def season_team(data, season_id):
    """Put a team last in the season's initial rating (before the season's first event):
    an existing ``team_id``, or a new team ``{name, captain, experts}``."""
    season = _season(season_id)
    if data.get("team_id") is not None:
        team = db.session.get(Team, data["team_id"])
        if team is None:
            raise GameError({"team_id": ["нет такой команды"]})
        row = add_team(season, team)  # SeasonConflict → 409 (edge)
    else:
        row = add_new_team(
            season, data.get("name") or "", data.get("captain") or "", data.get("experts") or []
        )  # GameError → 422 (edge)
    return {"id": row.id, "team_id": row.team_id, "position": row.position}


@blp.route("/teams", methods=["POST"])
@access("producer", api=True)
@blp.arguments(TeamIn)
@blp.response(201, SeasonTeamOut)
@blp.alt_response(422, schema=ValidationErrors)
@blp.doc(security=SECURE)
def team(data):
    """Create a team of experts: ``{name, captain, experts}`` (six distinct names, the captain
    among them; 2023 §3.4.3). It joins a season by ``POST /seasons/{id}/teams`` or, later in
    the season, by an ``enter`` event (a reserve, the sponsor's team)."""
    row = create_team(data["name"], data["captain"], data["experts"])  # GameError → 422
    return {"id": row.id, "team_id": row.id, "position": None}
