"""The on-air feed of a game (contracts/api.md, «On air»): the producer's broadcast tokens
(made and revoked on the game page and through the API, stored hashed), vMix's JSON source
with its ETag, the push stream, the overlay page; every read without this game's live token
refused; and, walking a whole game, nothing the viewers must not see yet in any feed."""

from __future__ import annotations

import hashlib
import json
import re

from tests.forms import get_page, submit_form
from tests.query_count import statements
from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.onair import queries
from webapp.onair.models import BroadcastToken


def _token_by_page(client, game_id: int) -> str:
    """A broadcast token made by the producer's form on the game page; returns the secret
    the page shows once."""
    url = f"/games/{game_id}"
    page = get_page(client, url)
    made = submit_form(client, page, "onair-create", url, label="vMix, аппаратная")
    assert made.status_code == 302  # post/redirect/get: a reload re-posts nothing
    assert "key=" not in made.headers["Location"]  # the secret is never in an address
    html = get_page(client, made.headers["Location"])
    return re.search(r'<code id="onair-key">([^<]+)</code>', html).group(1)


def _secrets(g) -> list[str]:
    """What no feed may carry: every question's text, answer and comment, and the names
    and cities of the authors who gave no consent."""
    out = []
    for env in g.envelopes:
        for eq in env.questions:
            q = eq.question
            out += [q.text, q.answer, q.comment]
            if not q.consent_on_air:
                out += [a.name for a in q.author_list]
    return out


def test_a_token_from_the_game_page_reads_the_feed_and_is_stored_hashed(game, login, client):
    producer = login("producer")
    secret = _token_by_page(producer, game.id)
    row = db.session.scalar(db.select(BroadcastToken).where(BroadcastToken.game_id == game.id))
    assert row.label == "vMix, аппаратная"
    assert row.token_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in json.dumps([row.token_hash, row.label])

    anonymous = client.application.test_client()
    r = anonymous.get(f"/api/v1/games/{game.id}/onair.json?key={secret}")
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-store"
    assert r.json == [
        {
            "revision": 0,
            "status": "waiting",
            "game": "Игра 01.03.2023",
            "season": game.season.name,
            "language": "be",
            "team": "Команда Анны",
            "captain": "Анна",
            "score_experts": 0,
            "score_viewers": 0,
            "round": 0,
            "sector_spun": 0,
            "sector": 0,
            "sector_kind": "",
            "author": "",
            "city": "",
            "prize": "",
            "expert": "",
            "result": "",
            "minute_running": False,
            "minute_ends_at": "",
        }
    ]
    # vMix polls every 250 ms: the same row costs a 304 without a body
    again = anonymous.get(
        f"/api/v1/games/{game.id}/onair.json?key={secret}",
        headers={"If-None-Match": r.headers["ETag"]},
    )
    assert (again.status_code, again.data) == (304, b"")
    bearer = anonymous.get(
        f"/api/v1/games/{game.id}/onair.json", headers={"Authorization": f"Bearer {secret}"}
    )
    assert bearer.status_code == 200 and bearer.json == r.json

    # revoked on the game page: refused everywhere at once
    url = f"/games/{game.id}"
    page = get_page(producer, url)
    assert "действует" in page
    revoked = submit_form(producer, page, f"onair-revoke-{row.id}", url)
    assert revoked.status_code == 302
    assert "отозван" in get_page(producer, url)
    for path in (
        f"/api/v1/games/{game.id}/onair.json?key={secret}",
        f"/api/v1/games/{game.id}/onair/stream?key={secret}",
        f"/onair/{game.id}?key={secret}",
    ):
        assert anonymous.get(path).status_code == 401, path


def test_the_new_key_is_shown_once_and_a_reload_makes_no_second_key(game, login):
    """The «Ключ эфира создан» page comes after a redirect: reloading it re-posts nothing, so
    no second key is made, and it shows the key no more; the key leaves no trace in the
    session once shown."""
    producer = login("producer")
    url = f"/games/{game.id}"
    made = submit_form(producer, get_page(producer, url), "onair-create", url, label="титры")
    shown_at = made.headers["Location"]
    first = producer.get(shown_at)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "no-store"
    secret = re.search(r'<code id="onair-key">([^<]+)</code>', first.get_data(as_text=True))[1]
    with producer.session_transaction() as kept:
        assert secret not in json.dumps(dict(kept))

    reload = producer.get(shown_at)  # the browser's reload: the same GET
    assert reload.status_code == 302
    assert reload.headers["Location"].endswith(f"/games/{game.id}#onair")
    page = get_page(producer, url)
    assert secret not in reload.get_data(as_text=True) + page
    assert (
        "Ключ эфира показывается один раз, сразу после создания; повторно его не показать. "
        "Если адрес не сохранён, отзовите этот ключ и создайте новый." in page
    )
    tokens = db.session.scalars(db.select(BroadcastToken).filter_by(game_id=game.id)).all()
    assert [t.label for t in tokens] == ["титры"]


def test_wrong_missing_and_other_games_keys_are_refused(game, api, client):
    other = h.game(game.season, 2, status="ready")
    h.commit()
    made = api("post", f"/api/v1/games/{other.id}/broadcast-tokens", role="producer", json={})
    assert made.status_code == 201
    other_key = made.json["token"]
    assert made.json["urls"]["json"].endswith(
        f"/api/v1/games/{other.id}/onair.json?key={other_key}"
    )
    assert api("get", f"/api/v1/games/{other.id}/onair.json?key={other_key}").status_code == 200
    for key in ("", "nonsense", other_key):
        for path in (f"/api/v1/games/{game.id}/onair.json", f"/onair/{game.id}"):
            r = client.get(f"{path}?key={key}")
            assert r.status_code == 401, (path, key)
    # the JSON source says what is missing: the game's key, not a staff login
    r = client.get(f"/api/v1/games/{game.id}/onair.json?key=nonsense")
    assert r.json["error"]["message"] == (
        "Нужен действующий ключ эфира этой игры: ?key=<ключ> в адресе "
        "или заголовок «Authorization: Bearer <ключ>»."
    )
    # the overlay's refusal is drawn over the programme: an empty page, its note the title
    refused = client.get(f"/onair/{game.id}?key=badkey", headers={"Accept-Language": "en"})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 401
    assert "<title>Ключ эфира не действует (401): графика пуста</title>" in html
    assert '<body class="onair"></body>' in html
    assert "Login" not in html and "<header" not in html and "<nav" not in html
    # a staff login is no broadcast token
    r = api("get", f"/api/v1/games/{game.id}/onair.json", role="producer")
    assert r.status_code == 401
    assert api("post", f"/api/v1/games/{game.id}/broadcast-tokens", role="host").status_code == 403
    gone = api(
        "delete",
        f"/api/v1/games/{game.id}/broadcast-tokens/{made.json['id']}",
        role="producer",
    )
    assert gone.status_code == 409  # another game's token
    gone = api(
        "delete", f"/api/v1/games/{other.id}/broadcast-tokens/{made.json['id']}", role="producer"
    )
    assert gone.status_code == 204
    assert client.get(f"/api/v1/games/{other.id}/onair.json?key={other_key}").status_code == 401


def test_the_processs_row_serves_every_poll_and_connection_until_the_game_changes(
    game, api, client, monkeypatch
):
    """vMix's polls and the overlays' connections of one process share the row it built for
    the game's revision and status: one that finds it costs two statements (the token, the
    game's revision and status), never the game's replay; an event makes a new row once."""
    # a row is reused for a second; a slow machine must not let it expire mid-test
    monkeypatch.setattr(queries, "POLLED_ROW_SECONDS", 600.0)
    game_id = game.id  # read once: the test's own session reloads an expired game
    key = api("post", f"/api/v1/games/{game_id}/broadcast-tokens", role="producer").json["token"]
    url = f"/api/v1/games/{game_id}/onair.json?key={key}"

    def reads(sent: list[str]) -> int:  # SQLite's BEGIN IMMEDIATE is no read
        return sum(s.lstrip().startswith("SELECT") for s in sent)

    with statements(db.engine) as built:
        first = client.get(url)
    assert first.status_code == 200 and first.json[0]["revision"] == 0
    assert reads(built) > 2  # the game read and replayed once
    for _ in range(3):
        with statements(db.engine) as sent:
            again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304
        assert reads(sent) == 2, sent
    with statements(db.engine) as sent:
        streamed = _stream(client, game_id, key)
    assert streamed.get_data(as_text=True).startswith("retry: 250\n\nid: 0\nevent: row\n")
    assert reads(sent) == 2, sent
    played = api(
        "post", f"/api/v1/games/{game_id}/events", role="host", json={"type": "spin", "sector": 3}
    )
    assert played.status_code == 201
    with statements(db.engine) as sent:
        changed = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200 and changed.json[0]["revision"] == 1
    assert reads(sent) > 2
    with statements(db.engine) as sent:
        assert client.get(url).json == changed.json
    assert reads(sent) == 2


def _stream(client, game_id, key, last=None):
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    return client.get(f"/api/v1/games/{game_id}/onair/stream?key={key}", headers=headers)


def test_walking_a_game_no_feed_shows_what_is_not_yet_said(game, api, client):
    """A blitz, sector 13, a red card and an early answer: after every event the JSON row,
    the stream's event and the overlay page agree with the state the API gives, and none
    of them carries a question's text, answer or comment, or an author without consent;
    an author is named only once the question is in play."""
    key = api("post", f"/api/v1/games/{game.id}/broadcast-tokens", role="producer").json["token"]
    secrets = _secrets(game)
    named = {
        (env.sector, eq.slot): eq.question.author_list[0].name
        for env in game.envelopes
        for eq in env.questions
        if eq.question.consent_on_air
    }
    events = [
        {"type": "spin", "sector": 2},  # no consent
        {"type": "minute", "action": "start"},
        {"type": "red_card", "expert": "Глеб"},
        {"type": "spin", "sector": 4},  # blitz
        {"type": "answer", "correct": True, "early": True, "expert": "Вера"},
        {"type": "answer", "correct": True},
        {"type": "answer", "correct": True},
        {"type": "spin", "sector": 13},
        {"type": "sector13_option", "option": "three"},
        {"type": "minute", "action": "start"},
        {"type": "answer", "correct": False},
        {"type": "spin", "sector": 7},
        {"type": "answer", "correct": True, "early": True, "expert": "Борис"},
    ]
    revision = 0
    for n, event in enumerate(events):
        r = api("post", f"/api/v1/games/{game.id}/events", role="host", json=event)
        assert r.status_code == 201, r.json
        state = api("get", f"/api/v1/games/{game.id}", role="host").json["state"]
        (row,) = client.get(f"/api/v1/games/{game.id}/onair.json?key={key}").json
        stream = _stream(client, game.id, key, last=revision).get_data(as_text=True)
        overlay = client.get(f"/onair/{game.id}?key={key}").get_data(as_text=True)
        assert row["revision"] == revision + 1 == n + 1
        assert f"id: {row['revision']}\nevent: row\ndata: " in stream
        streamed = json.loads(stream.split("data: ", 1)[1].split("\n", 1)[0])
        assert streamed == row
        assert f"{row['score_experts']}:{row['score_viewers']}" == state["score"]
        current = state["rounds"][-1]
        assert (row["round"], row["sector_spun"], row["sector"]) == (
            len(state["rounds"]),
            current["arrow"],
            current["sector"],
        )
        assert row["result"] == (current["winner"] or "")
        for secret in secrets:
            for feed in (json.dumps(row, ensure_ascii=False), stream, overlay):
                assert secret not in feed, (n, event, secret)
        # only the question in play is named, never one the host has not reached
        in_play = {(row["sector"], slot) for slot in (1, 2, 3)}
        for where, name in named.items():
            if where not in in_play:
                assert name not in row["author"].split(", "), (n, where)
        revision = row["revision"]
    # an unchanged game: the stream answers at once with its retry and no event
    assert _stream(client, game.id, key, last=revision).get_data(as_text=True) == "retry: 250\n\n"
    assert row["expert"] == "Борис" and row["author"] == named[(7, 1)]
    assert row["prize"] == "300.00 BYN"  # the contract's point; the overlay's comma:
    assert '<span id="prize">300,00\u00a0BYN</span>' in overlay


def test_a_closed_games_feed_is_closed(game, api, client, login):
    """After the last row (status ``closed``) the stream answers 204, so EventSource stops;
    no new token is made for a closed game."""
    key = api("post", f"/api/v1/games/{game.id}/broadcast-tokens", role="producer").json["token"]
    game.status = "closed"
    h.commit()
    (row,) = client.get(f"/api/v1/games/{game.id}/onair.json?key={key}").json
    assert (row["status"], row["revision"]) == ("closed", 1)
    assert _stream(client, game.id, key, last=1).status_code == 204
    # its graphics close too (the guide): the overlay page hides every lower third
    html = client.get(f"/onair/{game.id}?key={key}").get_data(as_text=True)
    for graphic in ("score", "sector", "author", "minute"):
        assert re.search(rf'<section [^>]*id="{graphic}" hidden', html), graphic
    refused = api("post", f"/api/v1/games/{game.id}/broadcast-tokens", role="producer")
    assert refused.status_code == 409
    assert "закрыта" in refused.json["error"]["message"]
    # the game page lists the key as reading nothing, with nothing to revoke
    page = get_page(login("producer"), f"/games/{game.id}")
    assert "не читает: игра закрыта" in page and "onair-revoke-" not in page


def test_the_overlay_speaks_the_games_language_and_escapes_names(api, client):
    """A 2009 game's overlay is Russian whatever the browser asks; a team's name is text,
    never markup, in the page and in the row it carries."""
    from webapp.games.season.operations import create_team

    team = create_team('Команда <script>alert("x")</script>', "Анна", h.EXPERTS)
    g = h.game(h.season("2009"), team_=team, status="ready")
    h.commit()
    key = api("post", f"/api/v1/games/{g.id}/broadcast-tokens", role="producer").json["token"]
    r = client.get(f"/onair/{g.id}?key={key}", headers={"Accept-Language": "be,en;q=0.5"})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert '<html lang="ru">' in html
    assert '<span class="label">Знатоки</span>' in html
    assert '<span class="label">Телезрители</span>' in html
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert r.headers["Cache-Control"] == "no-store"
