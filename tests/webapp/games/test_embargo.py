"""The embargo: nothing of a game is public before it is closed and has aired
(``webapp.games.publication``); the air time is set on the game page and through the API;
an editor holds back an aired question.

A game recorded ahead: played and closed, its air time tomorrow. Every public surface
(the author's status page and status API, «Мои вопросы», the public season page) shows
nothing of it; once its air time is in the past they do."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from werkzeug.exceptions import NotFound

from tests.forms import page_forms
from tests.helpers import PRIZE_APP, VIEWERS_WIN
from tests.webapp.games.season_driver import OPEN, SPRING, SeasonRun
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.publication import (
    is_published,
    public_game_or_404,
    published_games,
    published_questions,
    question_public,
)
from webapp.moderation.models import ModerationAudit
from webapp.prizes.models import Prize
from webapp.submissions.links import confirm_token, my_link_token

MINSK = ZoneInfo("Europe/Minsk")


@pytest.fixture
def app(make_app):
    """The prizes' settings (the commission that closing a game names)."""
    app = make_app(**PRIZE_APP)
    with app.app_context():
        yield app


def _form(client, page: str, action: str):
    """The form of ``page`` posting to ``action``, as the page renders it."""
    html = client.get(page).get_data(as_text=True)
    return next(f for f in page_forms(html) if f.action == action)


def _set_air_time(client, game_id: int, local: str):
    """The producer types ``local`` (``YYYY-MM-DDTHH:MM``, Minsk) into the game page's
    air-time form and sends it."""
    form = _form(client, f"/games/{game_id}", f"/games/{game_id}/air-time")
    assert "air_at" in form.fields  # the page shows the current air time
    resp = client.post(form.action, data={**form.fields, "air_at": local})
    assert resp.status_code == 302


def _surfaces(app, token: str, author_id: int) -> dict:
    """What a viewer without a staff role sees of a question: the status page, the status
    API, «Мои вопросы» (opened by the e-mailed links); the public season page:
    :func:`test_the_public_season_page_waits_for_the_air_time`."""
    viewer = app.test_client()
    # the confirmation link (puts the question in «Мои вопросы»), then the «my» link
    question_id = db.session.scalar(db.select(Prize.question_id).limit(1))
    assert viewer.get(f"/confirm/{confirm_token(question_id, author_id)}").status_code == 302
    from webapp.submissions.models import Author

    assert viewer.get(f"/my/{my_link_token(db.session.get(Author, author_id))}").status_code == 302
    return {
        "status": viewer.get(f"/status/{token}").get_data(as_text=True),
        "api": [h["status"] for h in viewer.get(f"/api/v1/submissions/{token}").json["history"]],
        "my": viewer.get("/my/questions").get_data(as_text=True),
    }


def test_a_game_recorded_ahead_is_hidden_until_it_airs(app, client, api, played, login):
    game_id = played("qualifying", VIEWERS_WIN)
    login("producer")
    tomorrow = (datetime.now(MINSK) + timedelta(days=1)).date()
    _set_air_time(client, game_id, f"{tomorrow.isoformat()}T21:00")
    game = db.session.get(Game, game_id)
    assert game.air_at == datetime.combine(tomorrow, datetime.min.time()).replace(
        hour=21, tzinfo=MINSK
    ).astimezone(UTC)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    prize = db.session.scalars(db.select(Prize).order_by(Prize.id)).first()
    question, author_id = prize.question, prize.author_id
    assert (game.status, is_published(game)) == ("closed", False)
    db.session.commit()  # end the test's read transaction: SQLite locks while it is open
    with app.app_context(), app.test_request_context():  # a public page: 404 without a role
        with pytest.raises(NotFound):
            public_game_or_404(game_id)
    assert game_id not in [g.id for g in db.session.scalars(published_games())]
    assert db.session.execute(published_questions()).all() == []

    before = _surfaces(app, question.public_token, author_id)
    assert before["api"] == ["received", "in_review", "accepted"]
    for page in (before["status"], before["my"]):
        assert "Принят редакцией" in page
        assert "Сыгран в игре" not in page and "Вам положен денежный приз" not in page
    # the accountant cannot ask the author for payment details yet: the e-mail would say
    # before the broadcast that the question was not answered
    assert _request_details(client, login, prize.id) == "owed"
    # staff still see the game, with its air time in the season's zone (the API calls
    # above, on the same client with a bearer token, ended its page session)
    login("producer")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f"{tomorrow.strftime('%d.%m.%Y')} 21:00 (время минское)" in page

    _set_air_time(client, game_id, "2023-12-30T21:00")
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game.air_at == datetime(2023, 12, 30, 18, 0, tzinfo=UTC)
    assert is_published(game) and not is_published(game, datetime(2023, 12, 30, 17, tzinfo=UTC))
    assert db.session.scalars(published_games()).all() == [game]
    db.session.commit()
    with app.app_context(), app.test_request_context():
        assert public_game_or_404(game_id).id == game_id
    after = _surfaces(app, question.public_token, author_id)
    assert after["api"] == ["received", "in_review", "accepted", "used", "prize_owed"]
    assert "Сыгран в игре" in after["status"] and "Вам положен денежный приз" in after["status"]
    # played on the day it aired (the season's zone), not when the game was played or closed
    assert "<li>Сыгран в игре — 30.12.2023</li>" in after["status"]
    assert "Вам положен денежный приз" in after["my"]  # «Мои вопросы»: the latest status
    assert question_public(question)
    assert _request_details(client, login, prize.id) == "details_requested"


def _request_details(client, login, prize_id: int) -> str:
    """The accountant presses «Запросить реквизиты» on the prize page; the prize's status."""
    login("accountant")
    form = _form(client, f"/prizes/{prize_id}", f"/prizes/{prize_id}/request-details")
    client.post(form.action, data=form.fields)
    db.session.expire_all()
    return db.session.get(Prize, prize_id).status


def test_an_editor_holds_back_an_aired_question(app, client, api, played, login, staff):
    game_id = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    asked = db.session.execute(published_questions()).all()
    assert len(asked) == 6 and {g.id for _eq, g in asked} == {game_id}
    question = asked[0][0].question
    login("editor")
    page = f"/editor/questions/{question.id}"
    action = f"{page}/hold-back"
    form = _form(client, page, action)
    assert form.checkboxes == ["confirm"] and "confirm" not in form.fields
    # without the confirmation nothing is held back
    client.post(action, data={**form.fields, "reason": "Претензия правообладателя"})
    db.session.expire_all()
    assert question_public(question)
    client.post(
        action,
        data={**form.fields, "reason": "Претензия правообладателя", "confirm": "y"},
    )
    db.session.expire_all()
    editor_id = staff("editor")[0]
    assert (question.held_back_by, question.held_back_reason) == (
        editor_id,
        "Претензия правообладателя",
    )
    assert not question_public(question)
    rest = db.session.execute(published_questions()).all()
    assert len(rest) == 5 and question.id not in {eq.question_id for eq, _g in rest}
    audit = db.session.scalars(db.select(ModerationAudit).filter_by(action="hold_back")).all()
    assert [(a.question_id, a.user_id) for a in audit] == [(question.id, editor_id)]
    shown = client.get(page).get_data(as_text=True)
    assert "«Претензия правообладателя»" in shown and action not in shown


def test_the_public_season_page_waits_for_the_air_time(app, api, client, login):
    """A game played and closed, dated yesterday, but airing tomorrow: the season page
    shows neither its result nor its effect on the standings until the air time passes."""
    run = SeasonRun(api, "2023", "Сезон 2023", "300.00")
    run.add_teams(SPRING)
    run.event(OPEN)
    run.play({"type": "game", "kind": "qualifying", "team": "Королёва", "score": "6:3"})
    run.day = datetime.now(MINSK).date() - timedelta(days=8)  # play() adds a week
    game_id = run.play({"type": "game", "kind": "qualifying", "team": "Потапова", "score": "6:0"})
    yesterday = run.day.strftime("%d.%m.%Y")
    viewer = app.test_client()
    assert f"<td>{yesterday}</td>" in viewer.get(f"/season/{run.id}").get_data(as_text=True)
    login("producer")
    tomorrow = run.day + timedelta(days=2)
    _set_air_time(client, game_id, f"{tomorrow.isoformat()}T20:00")
    page = viewer.get(f"/season/{run.id}").get_data(as_text=True)
    assert "<td>Королёва</td><td>6:3</td>" in page
    assert "Потапова</td><td>6:0" not in page and yesterday not in page
    assert page.index("<li>Стишенок</li>") < page.index("<li>Потапова</li>")
    _set_air_time(client, game_id, f"{run.day.isoformat()}T20:00")
    page = viewer.get(f"/season/{run.id}").get_data(as_text=True)
    assert f"<td>{yesterday}</td>" in page and "Потапова</td><td>6:0" in page


def test_air_time_through_the_api(app, api):
    season = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "С", "ruleset": "2009"}
    ).json["id"]
    body = {"season_id": season, "kind": "qualifying", "date": "2009-03-01", "table": {}}
    default = api("post", "/api/v1/games", role="producer", json=body).json["id"]
    typed = api(
        "post", "/api/v1/games", role="producer", json={**body, "air_at": "2009-03-01T22:30"}
    ).json["id"]
    got = api("get", f"/api/v1/games/{default}", role="host").json
    assert (got["air_at"], got["air_time_given"]) == ("2009-03-01T00:00:00+03:00", False)
    assert api("get", f"/api/v1/games/{typed}", role="host").json["air_time_given"] is True
    assert db.session.get(Game, typed).air_at == datetime(2009, 3, 1, 19, 30, tzinfo=UTC)
    resp = api(
        "patch",
        f"/api/v1/games/{typed}",
        role="producer",
        json={"air_at": "2009-03-02T18:00:00+00:00"},
    )
    assert resp.status_code == 200
    assert resp.json == {"id": typed, "air_at": "2009-03-02T21:00:00+03:00"}
    db.session.expire_all()
    assert db.session.get(Game, typed).air_date.isoformat() == "2009-03-02"  # one date
    assert api("patch", f"/api/v1/games/{typed}", role="host", json={}).status_code == 403
    bad = api("patch", f"/api/v1/games/{typed}", role="producer", json={"air_at": "завтра"})
    assert bad.status_code == 422 and list(bad.json["errors"]) == ["air_at"]
    far = api(
        "patch", f"/api/v1/games/{typed}", role="producer", json={"air_at": "2200-01-01T00:00"}
    )
    assert far.status_code == 422 and list(far.json["errors"]) == ["air_at"]


@pytest.mark.parametrize("typed", ["", "abc", "2023-02-30T10:00"])
def test_a_wrong_air_time_on_the_game_page_is_a_message(app, client, api, login, typed):
    """The producer types no date, a word or a day that does not exist: the game page says
    what is wrong and keeps the air time (it answered 500 for these)."""
    season = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "С", "ruleset": "2023"}
    ).json["id"]
    body = {"season_id": season, "kind": "qualifying", "date": "2023-09-09", "table": {}}
    game_id = api("post", "/api/v1/games", role="producer", json=body).json["id"]
    login("producer")
    form = _form(client, f"/games/{game_id}", f"/games/{game_id}/air-time")
    resp = client.post(form.action, data={**form.fields, "air_at": typed})
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Время эфира не изменено: " in page
    db.session.expire_all()
    assert db.session.get(Game, game_id).air_at == datetime(2023, 9, 8, 21, 0, tzinfo=UTC)


def test_a_game_without_an_air_time_is_never_public_until_one_is_given(
    app, client, api, played, login
):
    """A game created without an air time holds 00:00 of its day as a placeholder: closed,
    and that hour long past, it stays private, and the game page says why; once the
    producer gives the time on the game page, it is public."""
    season = api(
        "post", "/api/v1/seasons", role="producer", json={"name": "С", "ruleset": "2023"}
    ).json["id"]
    body = {"season_id": season, "kind": "qualifying", "date": "2023-09-09", "table": {}}
    game_id = api("post", "/api/v1/games", role="producer", json=body).json["id"]
    game = db.session.get(Game, game_id)
    game.status = "closed"  # played and closed long ago (the embargo reads only this)
    db.session.commit()
    assert game.air_at == datetime(2023, 9, 8, 21, 0, tzinfo=UTC)  # 00:00 in Minsk
    assert not is_published(game)
    assert game_id not in [g.id for g in db.session.scalars(published_games())]
    assert app.test_client().get(f"/archive/games/{game_id}").status_code == 404
    login("producer")
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert (
        "Время эфира не задано: пока его не зададут, ничего из этой игры не будет "
        "опубликовано (игры часто записывают заранее)."
    ) in page
    _set_air_time(client, game_id, "2023-09-09T20:30")
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game.air_time_given and is_published(game)
    assert app.test_client().get(f"/archive/games/{game_id}").status_code == 200
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Время эфира не задано" not in page
    assert "Игра опубликована: её вопросы, ответы и авторы видны зрителям." in page


def test_details_of_a_game_without_an_air_time_are_refused_saying_why(
    app, client, api, played, login
):
    """The accountant's «Запросить реквизиты» for a prize of a game whose air time was never
    given says so (not a past placeholder date) and changes nothing."""
    game_id = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    game = db.session.get(Game, game_id)
    game.air_time_given = False
    db.session.commit()
    prize = db.session.scalars(db.select(Prize).order_by(Prize.id)).first()
    login("accountant")
    form = _form(client, f"/prizes/{prize.id}", f"/prizes/{prize.id}/request-details")
    page = client.post(form.action, data=form.fields, follow_redirects=True).get_data(as_text=True)
    assert (
        "время эфира игры не задано: пока продюсер не задаст его на странице игры, игра не "
        "публикуется, а реквизиты запрашиваются только после эфира"
    ) in page
    db.session.expire_all()
    assert db.session.get(Prize, prize.id).status == "owed"
