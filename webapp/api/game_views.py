"""API v1: seasons and games created, a game's table, events, documents, packet and
closing, the prizes awarded and listed, and the documents read (``shared/contracts/api.md``).
These routes join the ``api`` blueprint of :mod:`webapp.api.views`."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

from flask import abort, current_app, request, url_for
from sqlalchemy.orm import lazyload

from webapp.api import schemas as s
from webapp.api.messages import Message
from webapp.api.views import SECURE, ApiError, blp, conflict
from webapp.core.access import access, allowed_roles, current_staff, refuse
from webapp.core.filenames import send_bytes, send_path
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games import queries as game_queries
from webapp.games.close import close_game
from webapp.games.models import Game
from webapp.games.operations import (
    fill_table,
    game_state,
    protocol,
    record_event,
    request_draw,
    request_envelopes,
    set_air_time,
)
from webapp.games.packet import FORMATS, game_packet
from webapp.games.publication import is_published
from webapp.games.season.operations import create_game, create_season
from webapp.games.views import DOCUMENT_ROLES
from webapp.prizes import queries as prize_queries
from webapp.prizes.operations import award_prize, owed_on_close, reissue_for_new_air_date
from webapp.prizes.views import PRIZE_DOCUMENT_ROLES
from webapp.submissions.views import uploads_folder
from webapp.votes.queries import best_player_vote

# --- games -------------------------------------------------------------------------------


@blp.route("/seasons", methods=["POST"])
@access("producer", api=True)
@blp.arguments(s.SeasonIn)
@blp.response(201, s.Created)
@blp.doc(security=SECURE)
def season(data):
    """Create a season; prize amounts default to the rule book's; ``donor`` (the party
    named «Даритель» on the season's gift agreements) to the rule set's."""
    obj = create_season(
        data["name"],
        data["ruleset"],
        data.get("currency"),
        data.get("timezone"),
        data.get("unanswered_prize"),
        donor=data.get("donor"),
    )
    return {"id": obj.id}


@blp.route("/games", methods=["POST"])
@access("producer", api=True)
@blp.arguments(s.GameIn)
@blp.response(201, s.Created)
@blp.doc(security=SECURE)
def games(data):
    """Create a game with its table plan; optional ``series_id`` (a series of the same
    season) and ``team_id`` (``team`` stays a free string, defaulting to the team's name)."""
    game = create_game(
        data["season_id"],
        data["kind"],
        data["date"],
        data["table"],
        team=data.get("team"),
        title=data.get("title"),
        team_id=data.get("team_id"),
        series_id=data.get("series_id"),
        air_at=data.get("air_at"),
    )
    return {"id": game.id}


def _air_at(game: Game) -> str:
    """The game's air time, ISO 8601 in its season's time zone with the offset."""
    return game.air_at.astimezone(ZoneInfo(game.season.timezone)).isoformat()


@blp.route("/games/<int:game_id>", methods=["PATCH"])
@access("producer", api=True)
@blp.arguments(s.AirIn)
@blp.response(200, s.AirOut)
@blp.alt_response(422, schema=s.ValidationErrors)
@blp.doc(security=SECURE)
def game_air(data, game_id):
    """Set when the game airs (``air_at``; without an offset, in the season's time zone).
    Its questions, answers, outcomes and authors are public once it is closed and this time
    has passed; a later time hides them again. A new air date issues the game's unsigned
    gift agreements again with it."""
    game = _game(game_id)
    set_air_time(game, data["air_at"], current_staff().id, reissue_for_new_air_date)
    return {"id": game.id, "air_at": _air_at(game)}


def _game(game_id: int) -> Game:
    """The game ``game_id`` or 404 (ids beyond the column's range never get here:
    ``webapp.security.ids_in_range``)."""
    return db.get_or_404(Game, game_id)


def _game_for_an_event(game_id: int) -> Game:
    """:func:`_game` without loading its envelopes up front (they bring every question with
    its authors, history and images: half of an event's time); the replay needs only the
    events and the table, and the envelopes still load if the event reaches them (a
    2009 sector-13 draw)."""
    game = db.session.get(Game, game_id, options=[lazyload(Game.envelopes)])
    if game is None:
        abort(404)
    return game


@blp.route("/games/<int:game_id>/assign", methods=["POST"])
@access("producer", api=True)
@blp.response(200, s.AssignOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def assign(game_id):
    """Fill the 13 sectors from the approved pool; ``passed_over`` says which approved
    questions were not placed and why (an image file missing, another language than the
    game's), ``warnings`` what the producer should know (2023 sector 13 not from the partner
    pool). A game already filled answers its sectors with empty lists."""
    game = _game(game_id)
    report = fill_table(game, uploads_folder())
    return {
        **report.to_json(),
        "sectors": [
            {
                "sector": e.sector,
                "kind": e.kind,
                "question_ids": [eq.question_id for eq in e.questions],
            }
            for e in game.envelopes
        ],
    }


@blp.route("/games/<int:game_id>/envelopes", methods=["POST"])
@access("producer", api=True)
@blp.arguments(s.EnvelopesIn, required=False)
@blp.response(202, s.Accepted)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.alt_response(422, schema=s.ValidationErrors)
@blp.doc(security=SECURE)
def envelopes(data, game_id):
    """Queue the envelope and host-card PDFs, ``copies`` (1..20, default 1) printed copies of
    each with their own serials; locks a complete table first (409 with its problems when it
    is not complete). The copies are fixed by the first request: ``copies`` in the answer is
    the number in force."""
    game = _game(game_id)
    docs = request_envelopes(
        game, lock_if_complete=True, user_id=current_staff().id, copies=data["copies"]
    )
    ids = [d.id for d in docs]
    copies = len(game_queries.printed_copies(docs[0].id))
    return {"status": "queued", "documents": ids, "copies": copies}


def _document_out(doc) -> dict:
    return {
        "id": doc.id,
        "kind": doc.kind,
        "status": doc.status,
        "sha256": doc.sha256,
        "url": url_for("api.document", document_id=doc.id),
    }


@blp.route("/games/<int:game_id>/documents")
@access("producer|host", api=True)
@blp.response(200, s.DocumentList)
@blp.doc(security=SECURE)
def documents(game_id):
    """The game's documents (envelopes, host cards, agreements the role may read)."""
    _game(game_id)
    role = current_staff().role
    docs = [d for d in game_queries.documents(game_id) if role in DOCUMENT_ROLES.get(d.kind, ())]
    return {"items": [_document_out(d) for d in docs]}


@blp.route("/games/<int:game_id>/events", methods=["POST"])
@access("host", api=True)
@blp.arguments(s.EventIn)
@blp.response(201, s.StateOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def events(event, game_id):
    """Record one event of ``sova.game-protocol/1``; 409 with the refusal otherwise."""
    game = _game_for_an_event(game_id)
    state = record_event(game, dict(event), current_staff().id)
    return {"state": state}


@blp.route("/games/<int:game_id>/draw", methods=["POST"])
@access("producer|host", api=True)
@blp.response(200, s.DrawOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def draw(game_id):
    """2009 sector 13 (§1.4.1): the random draw among the live questions sent during this
    game and approved; asking again returns the same draw; 409 for a 2023 game, a game not
    being played, or an empty pool."""
    game = _game(game_id)
    row = request_draw(game, current_staff().id)
    return {"question_id": row.question_id, "seed": row.seed, "pool": list(row.candidates)}


@blp.route("/games/<int:game_id>")
@access("producer|host", api=True)
@blp.response(200, s.GameOut)
@blp.doc(security=SECURE)
def game(game_id):
    """The game, its derived state and its protocol file."""
    game = _game(game_id)
    return {
        "id": game.id,
        "status": game.status,
        "air_at": _air_at(game),
        # false: no air time was given, ``air_at`` is the day's 00:00 placeholder and
        # nothing of the game is published until one is
        "air_time_given": bool(game.air_time_given),
        "state": game_state(game),
        "protocol": protocol(game),
    }


#: Who may read a game's packet before it is published (contracts/api.md).
PACKET_ROLES = "producer|host"


def _may_read_packet(game: Game) -> bool | None:
    """Who may read ``game``'s packet (the one place that decides it): ``True`` for a staff
    role of :data:`PACKET_ROLES` (every question asked), ``None`` for anyone once the game is
    published (:func:`webapp.games.publication.is_published`; without the held-back
    questions), else ``False``: another staff role gets 403, anyone else 404, as if the
    game did not exist."""
    user = current_staff()
    if user is not None and user.role in (allowed_roles(PACKET_ROLES) or ()):
        return True
    return None if is_published(game) else False


@blp.route("/games/<int:game_id>/packet")
@access("public", api=True)  # the view decides: _may_read_packet
@blp.doc(
    parameters=[
        {
            "in": "query",
            "name": "format",
            "required": True,
            "schema": {"type": "string", "enum": ["4s", "db"]},
        }
    ]
)
@blp.doc(
    responses={
        "200": {
            "description": "the packet: UTF-8 text, or a zip of the text and its images when "
            "the questions have images",
            "content": {
                "text/plain": {"schema": {"type": "string"}},
                "application/zip": {"schema": {"type": "string", "format": "binary"}},
            },
        }
    }
)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.alt_response(422, schema=s.ValidationErrors)
@blp.doc(security=SECURE)
def packet(game_id):
    """The game's questions as they were asked, in order (answers, accepted answers,
    comments, sources, handouts, the authors who agreed to be named): chgksuite 4s
    (``format=4s``) or the db.chgk.info text (``format=db``); a zip of the text and its
    image files when the questions have images. 409 when nothing was asked yet."""
    game = _game(game_id)
    reader = _may_read_packet(game)
    if reader is False:
        if current_staff() is None:  # before the air: the game does not exist for them
            abort(404)
        refuse(allowed_roles(PACKET_ROLES), api=True)
    fmt = request.args.get("format")
    if fmt not in FORMATS:  # after the role check: nothing is told to a stranger
        message = (
            Message("Обязательное поле.")
            if fmt is None
            else Message("Допустимые значения: {choices}.", {"choices": "4s, db"})
        )
        raise ApiError(422, errors={"format": [str(message)]})
    made = game_packet(game, fmt, uploads_folder(), public=reader is None)
    return send_bytes(made.data, made.name, made.mimetype)


@blp.route("/games/<int:game_id>/close", methods=["POST"])
@access("producer", api=True)
@blp.response(200, s.CloseOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def close(game_id):
    """Close a finished game; closing twice returns the same prizes."""
    game = _game(game_id)
    prizes = close_game(game, current_staff().id, owed_on_close)
    return {
        "prizes": [
            {
                "id": p.id,
                "kind": p.kind,
                "amount": f"{p.amount:.2f}",
                "currency": p.currency,
                "author": p.byline.display,
                "question_id": p.question_id,
                "trophy": None,
                "rule": p.rule,
            }
            for p in prizes
        ]
    }


# --- prizes and documents ----------------------------------------------------------------


@blp.route("/games/<int:game_id>/prizes", methods=["POST"])
@access("producer", api=True)
@blp.arguments(s.AwardIn)
@blp.response(201, s.CloseOut)
@blp.alt_response(409, schema=s.ErrorBody)
@blp.doc(security=SECURE)
def award(data, game_id):
    """Award an individual prize of the season's rule book after a finished game
    (000_90d7c8192601ed3a.txt §4.11.2–§4.11.6, 002_e025d5ded135c1c4.txt §3.1–§3.3).
    ``best_player_of_game`` follows the game's audience vote (its winner; anyone else, or no
    vote held, only with the sponsor's representative's ``reason``; refused while the vote
    is open). A refusal is 409 ``{"error": {"message", "rule"}}``; awarding twice returns
    the same."""
    game = _game(game_id)
    made = award_prize(
        game,
        data["kind"],
        current_staff().id,
        recipient=data.get("recipient") or "",
        team=data.get("team") or [],
        author_id=data.get("author_id"),
        reason=data.get("reason") or "",
        vote=best_player_vote(game),
    )
    return {"prizes": [_prize_out(p) for p in made]}


def _prize_out(p) -> dict:
    return {
        "id": p.id,
        "kind": p.kind,
        "amount": None if p.amount is None else f"{p.amount:.2f}",
        "currency": p.currency,
        "author": p.payee,
        "question_id": p.question_id,
        "trophy": p.trophy,
        "rule": p.rule,
    }


@blp.route("/prizes")
@access("producer|accountant", api=True)
@blp.arguments(s.PrizeQuery, location="query")
@blp.response(200, s.PrizeList)
@blp.doc(security=SECURE)
def prizes(args):
    """Prizes, optionally of one game or one status."""
    items = []
    for p in prize_queries.prizes(game_id=args.get("game_id"), status=args.get("status")):
        a = p.agreement
        doc = db.session.get(Document, a.document_id) if a and a.document_id else None
        items.append(
            {
                "id": p.id,
                "kind": p.kind,
                "amount": None if p.amount is None else f"{p.amount:.2f}",
                "currency": p.currency,
                "status": p.status,
                "author": {"name": p.payee, "city": p.byline.city if p.byline else None},
                "question_id": p.question_id,
                "trophy": p.trophy,
                "rule": p.rule,
                "agreement": {
                    "number": a.number,
                    "document_id": a.document_id,
                    "status": doc.status if doc else a.status,
                }
                if a
                else None,
            }
        )
    return {"items": items}


@blp.route("/documents/<int:document_id>")
@access("producer|host|accountant", api=True)
@blp.response(200, content_type="application/pdf")
@blp.doc(security=SECURE)
def document(document_id):
    """A ready PDF (409 while pending); each role reads only its kinds of document."""
    doc = db.get_or_404(Document, document_id)
    roles = PRIZE_DOCUMENT_ROLES.get(doc.kind) or DOCUMENT_ROLES.get(doc.kind, {"admin"})
    if current_staff().role not in roles:
        abort(403)
    if doc.status != "ready" or not doc.path:
        conflict({"message": f"document {doc.id} is {doc.status}"})
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / doc.path
    if not path.is_file():
        abort(404)
    name = prize_queries.document_file_name(doc, path.suffix.lstrip(".") or "pdf")
    return send_path(path, name, "application/pdf", attachment=False)
