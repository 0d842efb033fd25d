"""Reading the on-air feed: the row of a game at this moment and the broadcast token a
request presents."""

from __future__ import annotations

import hashlib
import json
import threading
import time

from webapp.accounts.models import token_digest
from webapp.domain.onair import Asked, GameCard, onair_row
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import game_state
from webapp.games.queries import current_draw, event_changes, events_revision, named_on_air
from webapp.onair.models import BroadcastToken


def token_for(game_id: int, token: str | None) -> BroadcastToken | None:
    """The live broadcast token ``token`` (the secret as presented) of game ``game_id``, or
    None: unknown, revoked, or another game's (the caller answers 401 to all three alike)."""
    if not token:
        return None
    row = db.session.scalar(
        db.select(BroadcastToken).where(BroadcastToken.token_hash == token_digest(token))
    )
    if row is None or row.revoked_at is not None or row.game_id != game_id:
        return None
    return row


def tokens(game_id: int) -> list[BroadcastToken]:
    """The game's broadcast tokens, newest first (revoked ones too: the audit)."""
    return list(
        db.session.scalars(
            db.select(BroadcastToken)
            .where(BroadcastToken.game_id == game_id)
            .order_by(BroadcastToken.id.desc())
        )
    )


def revision(game: Game) -> int:
    """The feed's revision of ``game``: every recorded and every undone event (the console's
    audit rows, which are never deleted, so an undo counts up too), plus one once the game is
    closed. It only grows."""
    return events_revision(game.id) + (1 if game.status == "closed" else 0)


#: What a process checks before it reuses a row it built: ``(revision, game status)``.
Key = tuple[int, str]


def feed_key(game_id: int) -> Key | None:
    """The game's :func:`revision` and status in one small statement, without loading the
    game (None: no such game): what a poll or a held stream's wake-up needs to know whether
    the row this process built is still the game's."""
    found = db.session.execute(
        db.select(Game.status, event_changes(game_id).scalar_subquery()).where(Game.id == game_id)
    ).one_or_none()
    if found is None:
        return None
    status, count = found
    return int(count or 0) + (1 if status == "closed" else 0), status


def _asked(q) -> Asked:
    return Asked(
        names=tuple(a.name for a in q.authors),
        # a co-author typed into a viewer form: the name only (QuestionAuthor.typed_in)
        cities=tuple(a.public_city or "" for a in q.authors),
        named=named_on_air(q),
    )


def _table(game: Game, state: dict) -> dict[tuple[int, int], Asked]:
    """``{(sector, slot): Asked}`` of the game's table, and the drawn question of a 2009
    sector 13 at ``(sector, 1)`` (§1.4.1: drawn at the spin, in no envelope)."""
    out = {(e.sector, eq.slot): _asked(eq.question) for e in game.envelopes for eq in e.questions}
    if state["rounds"] and state["rounds"][-1]["kind"] == "sector13":
        draw = current_draw(game)
        if draw is not None and draw.question is not None:
            out[(state["rounds"][-1]["sector"], 1)] = _asked(draw.question)
    return out


def _prize(game: Game) -> str:
    """The prize at stake for an unanswered question (2023 §4.11.1, 2009 §1.2.2): the
    season's amount with its currency, ``"300.00 BYN"``; ``""`` when the season has none."""
    amount = game.season.unanswered_prize
    return f"{amount:.2f} {game.season.currency}" if amount is not None else ""


#: Seconds a process may reuse the row it built for the same revision and status of the
#: game: what changes the row without an event (an author's consent, the team's name) shows
#: within this time, and ten vMix inputs polling every 250 ms plus fifty overlays cost two
#: small statements a request (:func:`webapp.onair.views.open_feed`) and one replay per
#: change, not a replay a request.
POLLED_ROW_SECONDS = 1.0


class RowCache:
    """A process's latest rows by game (the app's ``sova.onair.rows``), shared by the polls,
    the held streams' first rows and the stream hub (:mod:`webapp.onair.live`); one build
    at a time, so requests that miss together wait for one replay instead of making one
    each."""

    def __init__(self) -> None:
        self.rows: dict[int, tuple[Key, float, dict]] = {}
        self.building = threading.Lock()

    def fresh(self, game_id: int, key: Key) -> dict | None:
        """The row built for ``key`` within :data:`POLLED_ROW_SECONDS`, else None."""
        hit = self.rows.get(game_id)
        if hit is None or hit[0] != key:
            return None
        return hit[2] if time.monotonic() - hit[1] < POLLED_ROW_SECONDS else None

    def row(self, game_id: int, key: Key) -> dict | None:
        """The game's row as of ``key`` (:func:`feed_key`, read just before): the one
        built here for it within :data:`POLLED_ROW_SECONDS`, else a new one (None: the
        game is gone). A new row's events are read after ``key``, so a row is never older
        than the revision it is cached under."""
        found = self.fresh(game_id, key)
        if found is not None:
            return found
        with self.building:
            found = self.fresh(game_id, key)
            if found is not None:
                return found
            game = db.session.get(Game, game_id)
            if game is None:
                return None
            closed = 1 if key[1] == "closed" else 0
            # the count read before the game's events: the row may be newer than its
            # revision says (the next revision then sends it again), never older
            built = row(game, changes=key[0] - closed)
            self.rows[game_id] = ((built["revision"], game.status), time.monotonic(), built)
            return built


def row(game: Game, changes: int | None = None) -> dict:
    """The on-air row of ``game`` now (:func:`webapp.domain.onair.onair_row`), from the
    same replay ``GET /api/v1/games/{id}`` and the console read; ``changes``: the count of
    its changes when the caller read it before loading the game (:meth:`RowCache.row`)."""
    state = game_state(game)
    card = GameCard(
        status=game.status,
        game=game.display_title,
        season=game.season.name,
        language=game.season.book.game_language,
        team=game.team_name,
        captain=game.team_row.captain if game.team_row else "",
        prize=_prize(game),
        zone=game.season.timezone,
    )
    events = [e.payload for e in game.events]
    if changes is None:
        at = revision(game)
    else:
        at = changes + (1 if game.status == "closed" else 0)
    return onair_row(card, state, events, _table(game, state), at)


def etag(row_: dict) -> str:
    """The entity tag of a row: the SHA-256 of its canonical JSON (first 32 hex digits)."""
    body = json.dumps(row_, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(body).hexdigest()[:32]
