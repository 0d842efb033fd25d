"""The held on-air stream: a change of a game's feed is announced after its commit and
every stream of that game, held open in a thread, sends the new row at once.

* **Announce** (:func:`_collect`, :func:`_announce`): a flush that records or undoes a
  game's event (a console audit row), changes a game's status (its closing) or revokes a
  broadcast token marks the game; after the commit (never before: the row must be the
  committed one) the game's id is published on Redis channel :data:`CHANNEL` when
  ``SOVA_REDIS_URL`` is set — every process serving streams hears it — and otherwise handed
  to this process's own hub (the embedded default: one process serves the console and the
  streams). A lost announcement costs only speed: a held stream re-reads the game every
  :data:`CHECK_SECONDS` anyway.
* **Hub** (:class:`Hub`, one per process and app): one thread hears the announcements and,
  for a game some stream of this process watches, builds the row once
  (:func:`webapp.onair.queries.row`) and reads the game's live token ids, then wakes the
  streams waiting on that game. So fifty overlays of one game cost one replay per change,
  not fifty, and an idle stream holds no database connection.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from flask import Flask, current_app, has_app_context
from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from webapp.extensions import db
from webapp.games.models import Game, GameEventAudit
from webapp.onair import queries
from webapp.onair.models import BroadcastToken

log = logging.getLogger(__name__)

#: The Redis channel of the announcements; a message is ``{"game": id}``.
CHANNEL = "sova:onair"
#: Milliseconds an ``EventSource`` waits before it connects again after the stream ended.
RETRY_MS = 250
#: Seconds a quiet held stream waits before it re-reads its game and token and sends a
#: comment (so nginx's ``proxy_read_timeout`` never closes a quiet stream).
CHECK_SECONDS = 15.0
#: Seconds a stream is held at most; it then ends and the EventSource reconnects at once
#: (a bounded life: a worker's restart or a deploy never waits on a stream for long).
HOLD_SECONDS = 600.0

_MARKED = "sova.onair.changed"


# --- announcing a change after its commit ---------------------------------------------------


@event.listens_for(Session, "after_flush")
def _collect(session: Session, _context) -> None:
    """Mark the games whose feed this flush changes (module doc)."""
    games: set[int] = set()
    for obj in session.new:
        if isinstance(obj, GameEventAudit):
            games.add(obj.game_id)
    for obj in session.dirty:
        if isinstance(obj, Game) and inspect(obj).attrs.status.history.has_changes():
            games.add(obj.id)
        elif isinstance(obj, BroadcastToken):
            if inspect(obj).attrs.revoked_at.history.has_changes():
                games.add(obj.game_id)
    if games:
        session.info.setdefault(_MARKED, set()).update(games)


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(_MARKED, None)


@event.listens_for(Session, "after_commit")
def _announce(session: Session) -> None:
    games = session.info.pop(_MARKED, None)
    if games and has_app_context():
        for game_id in sorted(games):
            announce(game_id)


def announce(game_id: int) -> None:
    """Tell every stream of ``game_id`` that its row changed (after a commit). A Redis
    error is logged and swallowed: the change is committed, the streams catch up within
    :data:`CHECK_SECONDS`."""
    url = current_app.config.get("SOVA_REDIS_URL")
    if url:
        try:
            _redis(url).publish(CHANNEL, json.dumps({"game": game_id}))
        except Exception:
            log.warning("on air: announcing game %s failed", game_id, exc_info=True)
        return
    hub = current_app.extensions.get("sova.onair.hub")
    if hub is not None:  # no stream was ever held in this process: nobody to tell
        hub.local.put(game_id)


_clients: dict[str, object] = {}


def _redis(url: str):
    """One Redis client per URL and process (redis-py's pool reconnects in a forked child)."""
    client = _clients.get(url)
    if client is None:
        import redis

        client = _clients[url] = redis.Redis.from_url(
            url, socket_timeout=5, socket_connect_timeout=5
        )
    return client


# --- the hub: one listener per process, waking the held streams -----------------------------


@dataclass
class Seen:
    """A game's latest state as the hub built it: ``seq`` counts the hub's refreshes."""

    seq: int = 0
    row: dict | None = None
    live: frozenset[int] = frozenset()
    watchers: int = 0
    at: float = 0.0
    text: str = ""


@dataclass
class Hub:
    app: Flask
    games: dict[int, Seen] = field(default_factory=dict)
    cond: threading.Condition = field(default_factory=threading.Condition)
    local: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)

    def start(self) -> None:
        target = self._listen_redis if self.app.config.get("SOVA_REDIS_URL") else self._listen
        threading.Thread(target=target, name="sova-onair-hub", daemon=True).start()

    def watch(self, game_id: int) -> int:
        """Count a stream of ``game_id`` in; returns the seq it has seen."""
        with self.cond:
            seen = self.games.setdefault(game_id, Seen())
            seen.watchers += 1
            return seen.seq

    def unwatch(self, game_id: int) -> None:
        with self.cond:
            seen = self.games[game_id]
            seen.watchers -= 1
            if seen.watchers <= 0:
                del self.games[game_id]

    def wait(self, game_id: int, seq: int, timeout: float) -> Seen | None:
        """The game's state once the hub has a refresh newer than ``seq``; None after
        ``timeout`` seconds without one."""
        with self.cond:
            ok = self.cond.wait_for(lambda: self.games[game_id].seq > seq, timeout)
            if not ok:
                return None
            seen = self.games[game_id]
            return Seen(seen.seq, seen.row, seen.live, text=seen.text)

    def refresh(self, game_id: int, older_than: float = 0.0) -> None:
        """Build ``game_id``'s row and live token ids once, if a stream here watches it
        (and, with ``older_than``, only if the last build is older than that many seconds:
        the quiet streams of a game share one re-read)."""
        with self.cond:
            seen = self.games.get(game_id)
            if seen is None or time.monotonic() - seen.at < older_than:
                return
            seen.at = time.monotonic()
        with self.app.app_context():
            try:
                row, live = read(game_id)
            finally:
                db.session.remove()
        with self.cond:
            seen = self.games.get(game_id)
            if seen is not None:
                seen.seq += 1
                seen.row, seen.live, seen.at = row, live, time.monotonic()
                # the event's text once for all the game's streams here
                seen.text = event_text(row) if row is not None else ""
                self.cond.notify_all()

    def refresh_logged(self, game_id: int, older_than: float = 0.0) -> None:
        """:meth:`refresh`, a failure logged (the streams keep their last row)."""
        try:
            self.refresh(game_id, older_than)
        except Exception:
            log.warning("on air: reading game %s failed", game_id, exc_info=True)

    def _listen(self) -> None:
        while True:
            self.refresh_logged(self.local.get())

    def _listen_redis(self) -> None:
        url = self.app.config["SOVA_REDIS_URL"]
        while True:
            try:
                import redis

                client = redis.Redis.from_url(url, socket_connect_timeout=5)
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                # (re)subscribed: what was announced meanwhile is read again
                for game_id in list(self.games):
                    self.refresh_logged(game_id)
                for message in pubsub.listen():
                    try:
                        game_id = int(json.loads(message["data"])["game"])
                    except (KeyError, TypeError, ValueError):
                        continue
                    self.refresh_logged(game_id)
            except Exception:
                log.warning("on air: Redis subscription lost; retrying", exc_info=True)
                time.sleep(1.0)


_hub_lock = threading.Lock()


def row_cache(app: Flask) -> queries.RowCache:
    """This process's latest rows for ``app`` (the polls' and the hub's)."""
    with _hub_lock:
        return app.extensions.setdefault("sova.onair.rows", queries.RowCache())


def hub(app: Flask) -> Hub:
    """This process's hub for ``app``, started at the first held stream."""
    with _hub_lock:
        found = app.extensions.get("sova.onair.hub")
        if found is None:
            found = app.extensions["sova.onair.hub"] = Hub(app)
            found.start()
        return found


def read(game_id: int) -> tuple[dict | None, frozenset[int]]:
    """The game's row (None: the game is gone) and the ids of its live broadcast tokens.
    The row is the process's :func:`row_cache` one when it is still the game's (a poll of
    this change here built it already), else built once and left there for the polls."""
    key = queries.feed_key(game_id)
    if key is None:
        return None, frozenset()
    live = db.session.scalars(
        db.select(BroadcastToken.id).where(
            BroadcastToken.game_id == game_id, BroadcastToken.revoked_at.is_(None)
        )
    )
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    return row_cache(app).row(game_id, key), frozenset(live)


# --- the held stream ------------------------------------------------------------------------


def event_text(row: dict) -> str:
    """One Server-Sent Event ``row``: ``id`` the revision, ``data`` the row's JSON."""
    data = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    return f"id: {row['revision']}\nevent: row\ndata: {data}\n\n"


def held(app: Flask, game_id: int, token_id: int, last: int) -> Iterator[str]:
    """The body of a held stream of ``game_id`` for the client that has revision ``last``:
    the current row if newer, then every newer row as the hub has it, until the token is
    revoked, the game is closed (after its last row) or :data:`HOLD_SECONDS` pass."""
    shared = hub(app)
    seq = shared.watch(game_id)  # before the first read: a change after it wakes us
    try:
        yield f"retry: {RETRY_MS}\n\n"
        with app.app_context():
            try:
                row, live = read(game_id)
            finally:
                db.session.remove()
        text = event_text(row) if row is not None else ""
        ends = time.monotonic() + HOLD_SECONDS
        while True:
            if row is None or token_id not in live:
                return
            if row["revision"] > last:
                last = row["revision"]
                yield text
            if row["status"] == "closed":
                return
            left = ends - time.monotonic()
            if left <= 0:
                return
            seen = shared.wait(game_id, seq, min(CHECK_SECONDS, left))
            if seen is not None:
                seq, row, live, text = seen.seq, seen.row, seen.live, seen.text
                continue
            # quiet: the game is read again (once for all its streams here), in case an
            # announcement was lost; the comment keeps the proxy's read timeout away
            shared.refresh_logged(game_id, older_than=CHECK_SECONDS / 2)
            yield ": quiet\n\n"
    finally:
        shared.unwatch(game_id)
