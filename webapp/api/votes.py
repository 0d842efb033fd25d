"""API v1: the 2009 §3.1 audience vote (``contracts/api.md``): the SMS gateway's signed
callback and the producer's / host's control and tally. Thin: parse, call
``webapp.votes.operations``, answer. The request edge (``webapp.core.edge``) commits, or
rolls back and answers a refusal: VoteInputError 422 ``{"errors": …}``, VoteError 409
``{"error": {"message", "rule"}}``."""

from __future__ import annotations

import functools
import logging
import time

from flask import Response, abort, current_app, make_response, request
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from limits import parse
from werkzeug.exceptions import TooManyRequests

from webapp.api import vote_schemas as s
from webapp.api.body import body_cap, json_refusal
from webapp.api.schemas import ErrorBody, ValidationErrors
from webapp.api.views import SECURE, blp
from webapp.core.access import access, current_staff
from webapp.extensions import db, limiter
from webapp.games.models import Game
from webapp.votes import operations as ops
from webapp.votes.queries import vote_json, vote_of

SIGNATURE_HEADER = "X-Sova-Signature"
log = logging.getLogger(__name__)


#: The largest callback body read (bytes): a real message — ids, a number, one SMS of at
#: most a few hundred characters, a time — is under 1 KB. A longer one is refused 413
#: before it is read.
MAX_SMS_BODY = 4096

#: Refused signatures one address may send (Flask-Limiter syntax, ``SOVA_SMS_REFUSED_LIMIT``)
#: before its refusals become 429s; a correctly signed call is never counted nor limited.
SMS_REFUSED_LIMIT = "20 per minute"


#: The callback's body schema, one object for every callback (the view's and
#: :mod:`webapp.sms_gateway`'s; it holds no per-request state).
SMS_IN = s.SmsIn()


def _refused_limit():
    """``(strategy, item, key)`` of the per-address limit of refused signatures, or None
    when rate limits are off (``SOVA_RATELIMIT_ENABLED=0``)."""
    if not limiter.enabled:
        return None
    item = parse(current_app.config.get("SOVA_SMS_REFUSED_LIMIT") or SMS_REFUSED_LIMIT)
    return limiter.limiter, item, get_remote_address()


def _refused() -> Response:
    """The answer to a bad, missing or malformed signature: 401, or 429 with
    ``Retry-After`` once the address has sent more than the limit of them."""
    limit = _refused_limit()
    if limit is not None:
        strategy, item, address = limit
        try:
            allowed = strategy.hit(item, "sms-refused", address)
            reset_at, _remaining = strategy.get_window_stats(item, "sms-refused", address)
        except Exception:  # noqa: BLE001 — the limiter's storage is down: still a 401
            log.warning("SMS refusal limit not counted: rate-limit storage unavailable")
            allowed = True
        if not allowed:
            exc = TooManyRequests(_("Слишком много запросов с неверной подписью."))
            response = make_response(current_app.extensions["sova_api_error"](exc))
            response.headers["Retry-After"] = str(max(1, int(reset_at - time.time())))
            return response
    abort(401, _("Неверная или отсутствующая подпись %(header)s.", header=SIGNATURE_HEADER))


def gateway_signed(view):
    """Admit only a body signed by the SMS gateway (``X-Sova-Signature``: hex HMAC-SHA256
    of the raw body under ``SOVA_SMS_SECRET``), before the body is parsed: 413 for a body
    over :data:`MAX_SMS_BODY` bytes (refused before it is read: by its Content-Length, or
    when a chunked one reaches the cap); 503 when no secret is configured; 401 for a
    missing, wrong or malformed signature — 429 once an address has sent more refused
    signatures than ``SOVA_SMS_REFUSED_LIMIT`` (a signed call is never limited). Only a
    signed body is parsed: the API's JSON guard leaves it (``signed_body``) to
    :func:`webapp.api.body.json_refusal` here, after the signature; then the view, whose
    flask-smorest decorators load the body with :data:`SMS_IN` (422 as the API's) and
    dump the answer. The broadcast burst's ordinary message does not come here:
    :mod:`webapp.sms_gateway` answers it in front of Flask with the same checks."""

    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        body_cap(wrapped)  # done already by the API's JSON guard for a JSON body
        data = request.get_data(cache=True)
        if request.content_length is None and len(data) >= MAX_SMS_BODY:
            # a chunked body is read up to the cap and no further: one that reaches it may
            # go on, and must not be answered by its signature (a 401 for an honest sender)
            abort(413)
        try:
            ok = ops.signature_ok(data, request.headers.get(SIGNATURE_HEADER))
        except ops.SignatureUnavailable:
            abort(
                503,
                _("SOVA_SMS_SECRET не задан: приём SMS выключен."),
            )
        if not ok:
            return _refused()
        refusal = json_refusal(wrapped)
        if refusal is not None:
            return refusal
        return view(*args, **kwargs)

    wrapped.max_body = MAX_SMS_BODY  # read by webapp.api.body.body_cap
    wrapped.signed_body = True  # read by webapp.api's JSON guard: not parsed before signed
    return wrapped


@blp.route("/votes/sms", methods=["POST"])
@access("gateway", api=True)
@gateway_signed
@blp.arguments(SMS_IN)
@blp.response(200, s.SmsResult)
@blp.alt_response(401, schema=ErrorBody, description="bad, missing or malformed signature")
@blp.alt_response(413, schema=ErrorBody, description=f"body over {MAX_SMS_BODY} bytes")
@blp.alt_response(422, schema=ValidationErrors)
@blp.alt_response(
    429, schema=ErrorBody, description="too many refused signatures from this address"
)
@blp.alt_response(503, schema=ErrorBody, description="SOVA_SMS_SECRET is not set")
@blp.doc(
    parameters=[
        {
            "in": "header",
            "name": SIGNATURE_HEADER,
            "required": True,
            "schema": {"type": "string"},
            "description": "hex HMAC-SHA256 of the raw body with SOVA_SMS_SECRET",
        }
    ]
)
def vote_sms(data):
    """The SMS gateway's callback: one viewer's vote for the best player
    (002_e025d5ded135c1c4.txt §3.1). ``result``: counted (the number's first valid vote),
    repeat (the number has voted), invalid (no candidate, or a name fitting two), late (no
    vote open, or sent before it opened). The same ``message_id`` again gets the same
    answer and is counted once. A number's first valid message is the gateway's first
    (``received_at``, then ``message_id``): an earlier one arriving later takes the counted
    vote over, and the later one is a repeat from then on. Numbers are compared in E.164,
    read in the season's country. 401: bad, missing or malformed signature (429 once an
    address has sent too many); 413: a body over 4 KiB; 503: no secret configured."""
    result = ops.receive_sms(
        ops.Sms(data["message_id"], data["msisdn"], data["text"], data["received_at"])
    )
    return {"result": result}


def _game(game_id: int) -> Game:
    return db.get_or_404(Game, game_id)


@blp.route("/games/<int:game_id>/vote", methods=["POST"])
@access("producer|host", api=True)
@blp.arguments(s.VoteControlIn)
@blp.response(200, s.VoteOut)
@blp.alt_response(409, schema=ErrorBody)
@blp.alt_response(422, schema=ValidationErrors)
@blp.doc(security=SECURE)
def vote_control(data, game_id):
    """Open or close the 2009 §3.1 audience vote of a finished game. ``candidates``:
    numbered 1..N in the given order, by default the game team's experts. At most one vote
    is open at a time (409 otherwise); opening the open vote or closing a closed one
    answers the same vote. Closing freezes the result and queues the result PDF."""
    game = _game(game_id)
    user = current_staff().id
    if data["action"] == "open":
        vote = ops.open_vote(game, user, data.get("candidates"))
    else:
        vote = ops.close_vote(game, user)
    return {"vote": vote_json(vote, game.season.timezone)}


@blp.route("/games/<int:game_id>/vote")
@access("producer|host", api=True)
@blp.response(200, s.VoteOut)
@blp.doc(security=SECURE)
def vote_tally(game_id):
    """The game's vote and its live tally (404 if the game has none)."""
    game = _game(game_id)
    vote = vote_of(game.id)
    if vote is None:
        abort(404)
    return {"vote": vote_json(vote, game.season.timezone)}
