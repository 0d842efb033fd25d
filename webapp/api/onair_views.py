"""API v1: the on-air feed of a game (``contracts/api.md``, «On air»): the producer's
broadcast tokens, vMix's JSON data source and the push stream for HTML graphics. Thin:
the token is checked and the row built by :mod:`webapp.onair`."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate

from webapp.api.schemas import ErrorBody, ValidationErrors
from webapp.api.views import SECURE, blp
from webapp.core.access import BROADCAST, access, current_staff
from webapp.extensions import db
from webapp.games.models import Game
from webapp.onair.operations import LABEL_MAX, create_token, revoke_token
from webapp.onair.views import feed_urls, json_feed, open_feed, stream_feed


class TokenIn(Schema):
    class Meta:
        unknown = EXCLUDE

    label = fields.String(
        load_default="",
        validate=validate.Length(max=LABEL_MAX),
    )


class TokenUrls(Schema):
    json = fields.String()
    stream = fields.String()
    overlay = fields.String()
    manifest = fields.String()


class TokenOut(Schema):
    id = fields.Integer(required=True)
    token = fields.String(required=True)
    urls = fields.Nested(TokenUrls)


@blp.route("/games/<int:game_id>/broadcast-tokens", methods=["POST"])
@access("producer", api=True)
@blp.arguments(TokenIn, required=False)
@blp.response(201, TokenOut)
@blp.alt_response(409, schema=ErrorBody)
@blp.alt_response(422, schema=ValidationErrors)
@blp.doc(security=SECURE)
def broadcast_token(data, game_id):
    """A read-only broadcast token of this game for the graphics (shown once)."""
    game = db.get_or_404(Game, game_id)
    token, secret = create_token(game, (data or {}).get("label"), current_staff().id)
    return {"id": token.id, "token": secret, "urls": feed_urls(game.id, secret)}


@blp.route("/games/<int:game_id>/broadcast-tokens/<int:token_id>", methods=["DELETE"])
@access("producer", api=True)
@blp.response(204)
@blp.alt_response(409, schema=ErrorBody)
@blp.doc(security=SECURE)
def revoke_broadcast_token(game_id, token_id):
    """Revoke a broadcast token: it fails everywhere at once."""
    game = db.get_or_404(Game, game_id)
    revoke_token(game, token_id, current_staff().id)
    return None


@blp.route("/games/<int:game_id>/onair.json")
@access(BROADCAST, api=True)
@blp.doc(security=[{"broadcastKey": []}])
def onair_json(game_id):
    """vMix's JSON data source: ``[row]`` with an ``ETag`` (``If-None-Match`` → 304); the
    broadcast token in the query ``key`` or as ``Authorization: Bearer``; 401 otherwise."""
    return json_feed(open_feed(game_id))


@blp.route("/games/<int:game_id>/onair/stream")
@access(BROADCAST, api=True)
@blp.doc(security=[{"broadcastKey": []}])
def onair_stream(game_id):
    """The rows as Server-Sent Events (``event: row``, ``id``: the revision), held open and
    pushed as they change by the stream service, answered at once with a ``retry:`` by a
    sync worker (``docs/operations.md``, «Эфирная графика»)."""
    return stream_feed(open_feed(game_id))
