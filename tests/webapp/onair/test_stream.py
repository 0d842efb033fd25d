"""The held on-air stream (``webapp.onair.live``) as a threaded server serves it: a row is
pushed on the open connection as soon as the event's commit is announced — in process
without Redis, through Redis pub/sub with it — and the stream ends when the token is
revoked or after the closed game's last row."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from tests.webapp.games import helpers as h

#: Seconds a pushed row may take here (the bench measures the real delay).
WITHIN = 3.0


class Held:
    """A held stream read in a thread, as EventSource reads it: ``next()`` is the next
    chunk the server sent (``None`` once the stream ended)."""

    def __init__(self, client, game_id: int, key: str, last: int | None = None):
        headers = {"Last-Event-ID": str(last)} if last is not None else {}
        self.response = client.get(
            f"/api/v1/games/{game_id}/onair/stream?key={key}",
            headers=headers,
            buffered=False,
            environ_overrides={"wsgi.multithread": True},
        )
        assert self.response.status_code == 200
        assert self.response.mimetype == "text/event-stream"
        self.chunks: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for chunk in self.response.response:
            self.chunks.put(chunk.decode() if isinstance(chunk, bytes) else chunk)
        self.chunks.put(None)

    def next(self) -> str | None:
        return self.chunks.get(timeout=WITHIN)

    def next_event(self) -> str | None:
        """The next event (quiet comments skipped), or None once the stream ended."""
        while True:
            chunk = self.next()
            if chunk is None or not chunk.startswith(":"):
                return chunk


def _key(api, game_id: int) -> tuple[int, str]:
    made = api("post", f"/api/v1/games/{game_id}/broadcast-tokens", role="producer").json
    return made["id"], made["token"]


def _played(api, game_id: int, event: dict) -> None:
    r = api("post", f"/api/v1/games/{game_id}/events", role="host", json=event)
    assert r.status_code == 201, r.json


def _follows_the_console(api, client, game_id: int) -> None:
    token_id, key = _key(api, game_id)
    stream = Held(client, game_id, key)
    assert stream.next() == "retry: 250\n\n"
    assert stream.next_event().startswith("id: 0\nevent: row\ndata: {")
    for n, event in enumerate(
        [{"type": "spin", "sector": 3}, {"type": "answer", "correct": True}], start=1
    ):
        started = time.monotonic()
        _played(api, game_id, event)
        pushed = stream.next_event()
        assert pushed.startswith(f"id: {n}\nevent: row\ndata: {{"), pushed
        assert time.monotonic() - started < WITHIN
    assert '"score_experts":1' in pushed
    # the producer revokes the key: the open stream ends (EventSource's retry then meets 401)
    gone = api("delete", f"/api/v1/games/{game_id}/broadcast-tokens/{token_id}", role="producer")
    assert gone.status_code == 204
    assert stream.next_event() is None
    assert client.get(f"/api/v1/games/{game_id}/onair/stream?key={key}").status_code == 401


def test_a_held_stream_pushes_each_row_in_process(game, api, client):  # noqa: F811
    """Without Redis (the embedded default): the console's commit wakes the stream."""
    _follows_the_console(api, client, game.id)


class TestThroughRedis:
    @pytest.fixture
    def app(self, make_app, redis_url):
        """This test's app with Redis: commits are published, streams subscribe."""
        app = make_app(WTF_CSRF_ENABLED=False, SOVA_REDIS_URL=redis_url)
        with app.app_context():
            yield app

    def test_a_held_stream_pushes_each_row_through_redis(self, game, api, client):  # noqa: F811
        """With Redis: the commit is published and this process's subscription hears it."""
        _follows_the_console(api, client, game.id)


def test_a_held_stream_ends_after_the_closed_games_last_row(game, api, client):  # noqa: F811
    """Closing the game pushes its last row (status ``closed``) and ends the stream; the
    next connection with that revision is answered 204, so EventSource stops."""
    _token_id, key = _key(api, game.id)
    stream = Held(client, game.id, key, last=0)
    assert stream.next() == "retry: 250\n\n"
    game.status = "closed"
    h.commit()
    last = stream.next_event()
    assert last.startswith("id: 1\nevent: row\ndata: {") and '"status":"closed"' in last
    assert stream.next_event() is None
    answer = client.get(
        f"/api/v1/games/{game.id}/onair/stream?key={key}", headers={"Last-Event-ID": "1"}
    )
    assert answer.status_code == 204


@pytest.mark.parametrize("threaded", [False, True])
def test_a_wrong_key_is_refused_before_any_stream(game, client, threaded):  # noqa: F811
    """The token is checked on connect, held or not."""
    answer = client.get(
        f"/api/v1/games/{game.id}/onair/stream?key=wrong",
        environ_overrides={"wsgi.multithread": threaded},
    )
    assert answer.status_code == 401
