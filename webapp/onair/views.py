"""The on-air pages: the overlay page, its OGraf manifest, and the producer's broadcast
tokens on the game page (``contracts/api.md``, «On air»). The JSON source and the push
stream are API routes (:mod:`webapp.api.onair_views`) built from :func:`open_feed`,
:func:`json_feed` and :func:`stream_feed` here.

Transport (``docs/operations.md``, «Эфирная графика»): the stream is held open and pushes
every new row (:mod:`webapp.onair.live`) when the server runs requests in threads
(``wsgi.multithread``: the stream service ``deploy/gunicorn-stream.conf.py``, gunicorn's
``gthread`` workers behind nginx's route, or the threaded development server of ``sova
run``), where an idle stream holds a thread waiting on a condition and no database
connection. A single-threaded server (the web's sync workers, reached without that route)
answers at once instead: the rows newer than ``Last-Event-ID`` and a ``retry:`` of
:data:`~webapp.onair.live.RETRY_MS`, then it ends and ``EventSource`` asks again, so no
sync worker ever waits for a change. The JSON source always answers at once (``304`` when
the row's ``ETag`` is the client's).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_from_directory,
    session,
    url_for,
)
from flask_babel import force_locale, gettext

from webapp.core.access import BROADCAST, access, current_staff
from webapp.core.edge import on_refusal
from webapp.core.fields import errors_line
from webapp.core.formats import money
from webapp.core.i18n import N_
from webapp.extensions import db
from webapp.games.models import Game
from webapp.onair import live, queries
from webapp.onair.forms import RevokeForm, TokenForm
from webapp.onair.models import BroadcastToken
from webapp.onair.operations import create_token, revoke_token

bp = Blueprint("onair", __name__)

#: How long a browser or a proxy may keep an answer of the feed: never (it changes live).
NO_STORE = "no-store"
#: The session's key holding a key just made until its one display (``created``).
NEW_KEY = "onair_new_key"
#: Every feed answer: never stored; readable by graphics on another origin (an OGraf
#: renderer, a CasparCG template served elsewhere) — the key is in the URL, no cookie is
#: ever read, so allowing any origin gives nothing a key-holder does not have already.
FEED_HEADERS = {"Cache-Control": NO_STORE, "Access-Control-Allow-Origin": "*"}


def presented_key() -> str | None:
    """The broadcast token the request presents: the query's ``key`` (vMix sends no
    headers) or ``Authorization: Bearer``."""
    key = request.args.get("key")
    if key:
        return key
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header.startswith("Bearer ") else None


@dataclass(frozen=True)
class Feed:
    """A feed request's game, the live token it presents and the game's
    :func:`~webapp.onair.queries.feed_key` ``(revision, status)`` as just read."""

    game_id: int
    token_id: int
    key: queries.Key


#: What a feed read without this game's live key is told: the key, not a staff token.
KEY_REFUSED = N_(
    "Нужен действующий ключ эфира этой игры: ?key=<ключ> в адресе "
    "или заголовок «Authorization: Bearer <ключ>»."
)


def open_feed(game_id: int) -> Feed:
    """The feed the request may read, or 401: the token must be a live (not revoked)
    broadcast token of this very game. A game that does not exist answers 401 too, so a
    token-less caller learns nothing of which games exist. Two small statements: a poll
    (ten vMix inputs, every 250 ms) never loads the game when this process's row is still
    the game's."""
    token = queries.token_for(game_id, presented_key())
    if token is None:
        abort(401, description=gettext(KEY_REFUSED))
    key = queries.feed_key(game_id)
    if key is None:
        abort(401, description=gettext(KEY_REFUSED))
    return Feed(game_id, token.id, key)


def _row(feed: Feed) -> dict:
    """The game's row as of ``feed.key``, this process's if it still is (401: the game is
    gone since)."""
    found = live.row_cache(current_app._get_current_object()).row(feed.game_id, feed.key)  # type: ignore[attr-defined]
    if found is None:
        abort(401, description=gettext(KEY_REFUSED))
    return found


def json_feed(feed: Feed) -> Response:
    """vMix's JSON data source: ``[row]`` with its ``ETag``; ``304`` without a body when
    ``If-None-Match`` names the current one. The row may be this process's of the last
    second (:class:`webapp.onair.queries.RowCache`)."""
    row = _row(feed)
    tag = queries.etag(row)
    if request.if_none_match.contains(tag):
        response = Response(status=304)
    else:
        response = jsonify([row])
    response.set_etag(tag)
    response.headers.update(FEED_HEADERS)
    return response


def _last_event_id() -> int:
    """The revision the client has: ``Last-Event-ID`` (an EventSource's reconnection), else
    the query's ``last_id`` (a first connection that has a row already), else -1."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_id") or ""
    try:
        return int(raw)
    except ValueError:
        return -1


def stream_feed(feed: Feed) -> Response:
    """The push stream (Server-Sent Events) of the game's rows: each row an event ``row``
    whose ``id`` is the revision and whose ``data`` is the row's JSON, only rows newer than
    the client's. Held open on a threaded server (:func:`webapp.onair.live.held`), else
    answered at once with a ``retry:`` (module doc). Once the game is closed and the client
    has its last row, ``204``: EventSource stops."""
    revision, status = feed.key
    last = _last_event_id()
    if status == "closed" and last >= revision:
        return Response(status=204, headers=FEED_HEADERS)
    headers = {**FEED_HEADERS, "X-Accel-Buffering": "no"}
    if request.environ.get("wsgi.multithread"):
        app = current_app._get_current_object()  # type: ignore[attr-defined]
        # the body runs after this request's context has ended (its session gave its
        # connection back); it reads the database in short contexts of its own
        held = live.held(app, feed.game_id, feed.token_id, last)
        return Response(held, mimetype="text/event-stream", headers=headers)
    row = _row(feed)
    body = f"retry: {live.RETRY_MS}\n\n"
    if row["revision"] > last:
        body += live.event_text(row)
    return Response(body, mimetype="text/event-stream", headers=headers)


def overlay_texts(language: str) -> dict[str, str]:
    """The overlay's words in the game's language (``ru`` | ``be``), whatever the visitor's
    browser says: the picture is the broadcast's."""
    with force_locale(language):
        return {
            "experts": gettext("Знатоки"),
            "viewers": gettext("Телезрители"),
            "round": gettext("Раунд"),
            "sector": gettext("Сектор"),
            "regular": gettext("Вопрос"),
            "blitz": gettext("Блиц"),
            "superblitz": gettext("Суперблиц"),
            "sector13": gettext("13 сектор"),
            "author": gettext("Автор вопроса"),
            "prize": gettext("Приз"),
            "expert": gettext("Отвечает"),
            "won_experts": gettext("Очко знатокам"),
            "won_viewers": gettext("Очко телезрителям"),
            # a blitz question has 20 seconds, not a minute: the label names no length
            "minute": gettext("Время на обсуждение"),
        }


def shown_prize(prize: str, language: str) -> str:
    """The row's prize (``"300.00 BYN"``, the contract's decimal point) as the overlay
    shows it, the way Sova's pages print money in ``language``: ``"300,00\u00a0BYN"``;
    ``""`` stays ``""``. ``static/onair/overlay.js`` does the same for streamed rows."""
    amount, _, currency = prize.partition(" ")
    return money(Decimal(amount), currency or None, locale=language) if amount else ""


@bp.route("/onair/<int:game_id>")
@access(BROADCAST)
def overlay(game_id: int):
    """The overlay page (1920×1080, transparent): the row as the server has it now, kept
    current by ``static/onair/overlay.js`` from the stream; the server's clock is on the page, so
    the minute's countdown is the server's, not the graphics machine's. Without a live key
    of this game: 401 with ``onair/refused.html``, a transparent page that draws nothing
    (the operator's note is only its title)."""
    token = queries.token_for(game_id, presented_key())
    game = db.session.get(Game, game_id) if token is not None else None
    if game is None:
        # still 401, but nothing drawn: the graphics' browser composites this page over
        # the programme picture, so an error page would cover the broadcast
        return render_template("onair/refused.html"), 401, {"Cache-Control": NO_STORE}
    row = queries.row(game)
    key = presented_key() or ""
    now = datetime.now(UTC)
    return (
        render_template(
            "onair/overlay.html",
            row=row,
            prize=shown_prize(row["prize"], row["language"]),
            texts=overlay_texts(row["language"]),
            stream_url=url_for("api.onair_stream", game_id=game.id, key=key),
            server_now_ms=int(now.timestamp() * 1000),
        ),
        200,
        {"Cache-Control": NO_STORE},
    )


@bp.route("/onair/<int:game_id>/overlay.ograf.json")
@access("public")
def manifest(game_id: int):
    """The overlay's EBU OGraf v1 manifest (``static/onair/overlay.ograf.json``: the same
    for every game; the game, the server and the token are the graphic's data)."""
    return _shared_file("overlay.ograf.json", "application/json")


@bp.route("/onair/<int:game_id>/graphic.mjs")
@access("public")
def graphic(game_id: int):
    """The OGraf graphic the manifest names as ``main`` (resolved next to the manifest)."""
    return _shared_file("graphic.mjs", "text/javascript")


def _shared_file(name: str, mimetype: str) -> Response:
    """A file of ``static/onair/`` that an OGraf controller or renderer on another origin
    reads (public: it holds no game's data)."""
    response = send_from_directory(
        Path(current_app.static_folder or "") / "onair", name, mimetype=mimetype
    )
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response


# --- the producer's broadcast tokens (on the game page) -------------------------------------


def token_section(game: Game) -> dict:
    """What the game page's «Графика эфира» section (``onair/_game_section.html``) shows:
    ``{"tokens": [BroadcastToken], "form": TokenForm, "revoke_form": RevokeForm}``."""
    return {"tokens": queries.tokens(game.id), "form": TokenForm(), "revoke_form": RevokeForm()}


@bp.app_context_processor
def onair_on_the_game_page() -> dict:
    """``onair_section(game)`` for the game page, which lies below this feature and so
    includes the section's template instead of importing it."""
    return {"onair_section": token_section}


@bp.route("/games/<int:game_id>/broadcast-tokens", methods=["POST"])
@access("producer")
def create(game_id: int):
    """Make a broadcast token and show it once, with the feed's addresses."""
    game = db.get_or_404(Game, game_id)
    back = url_for("games.game", game_id=game.id) + "#onair"
    on_refusal(flash_prefix="Ключ эфира не создан: ", redirect_to=back)
    form = TokenForm()
    if not form.validate_on_submit():
        flash(f"Ключ эфира не создан: {errors_line(form)}", "error")
        return redirect(back)
    token, secret = create_token(game, form.label.data, current_staff().id)
    # post/redirect/get, so a reload makes no second key. Until its one display the secret
    # rides in the session cookie, which Flask signs (it cannot be forged or swapped) and
    # only the producer's browser holds (HttpOnly, Secure in production); the server keeps
    # only the token's hash and logs no cookie. The display pops it.
    session[NEW_KEY] = {"game": game.id, "token": token.id, "secret": secret}
    return redirect(url_for("onair.created", game_id=game.id, token_id=token.id))


@bp.route("/games/<int:game_id>/broadcast-tokens/<int:token_id>")
@access("producer")
def created(game_id: int, token_id: int):
    """The key just made (``create``), with the feed's addresses: shown once, to the
    producer who made it. Any later visit (a reload) finds it gone and goes back to the
    game page with a notice; it never makes a key."""
    game = db.get_or_404(Game, game_id)
    new = session.pop(NEW_KEY, None)
    token = db.session.get(BroadcastToken, token_id)
    if not new or (new["game"], new["token"]) != (game.id, token_id) or token is None:
        flash(
            "Ключ эфира показывается один раз, сразу после создания; повторно его не "
            "показать. Если адрес не сохранён, отзовите этот ключ и создайте новый.",
            "error",
        )
        return redirect(url_for("games.game", game_id=game.id) + "#onair")
    secret = new["secret"]
    return (
        render_template(
            "onair/token.html",
            game=game,
            token=token,
            secret=secret,
            urls=feed_urls(game.id, secret),
        ),
        200,
        {"Cache-Control": NO_STORE},
    )


@bp.route("/games/<int:game_id>/broadcast-tokens/<int:token_id>/revoke", methods=["POST"])
@access("producer")
def revoke(game_id: int, token_id: int):
    """Revoke a broadcast token: every read with it fails from now on."""
    game = db.get_or_404(Game, game_id)
    back = url_for("games.game", game_id=game.id) + "#onair"
    on_refusal(flash_prefix="Ключ не отозван: ", redirect_to=back)
    if not RevokeForm().validate_on_submit():
        abort(400)
    revoke_token(game, token_id, current_staff().id)
    flash("Ключ эфира отозван: графика с ним больше не читает игру.", "success")
    return redirect(back)


def feed_urls(game_id: int, secret: str) -> dict[str, str]:
    """The feed's absolute addresses for a token: ``{json, stream, overlay, manifest}``."""
    return {
        "json": url_for("api.onair_json", game_id=game_id, key=secret, _external=True),
        "stream": url_for("api.onair_stream", game_id=game_id, key=secret, _external=True),
        "overlay": url_for("onair.overlay", game_id=game_id, key=secret, _external=True),
        "manifest": url_for("onair.manifest", game_id=game_id, _external=True),
    }
