"""Fixtures of the 2009 §3.1 audience vote tests: an app on SQLite and on PostgreSQL with
the SMS gateway's secret, a finished 2009 game, a signed-callback helper (its secret and
signature: tests/webapp/votes/helpers.py)."""

from __future__ import annotations

import pytest

from tests.webapp.votes.helpers import EXPERTS, SECRET, sign, sms_body


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request):
    if request.param == "postgresql":
        return request.getfixturevalue("pg_url")
    return None


@pytest.fixture
def app(make_app, backend):
    extra = {"SOVA_DATABASE_URL": backend} if backend else {}
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMS_SECRET=SECRET, **extra)
    with app.app_context():
        yield app
        from webapp.extensions import db

        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def sms(app):
    """``sms(message_id, msisdn, text, received_at=None)`` → response of a signed callback
    (the gateway's own client: no staff session)."""
    client = app.test_client()

    def send(message_id, msisdn, text, received_at=None, signature=None):
        body = sms_body(message_id, msisdn, text, received_at)
        resp = client.post(
            "/api/v1/votes/sms",
            data=body,
            content_type="application/json",
            headers={"X-Sova-Signature": signature or sign(body)},
        )
        # the test's app context (and so ``g``) outlives the request: drop the anonymous
        # user the API request cached there, or the next page request of a logged-in
        # test client would see it
        from flask import g

        g.pop("_login_user", None)
        return resp

    return send


@pytest.fixture
def finished_game(app):
    """``finished_game(ruleset="2009", day=1)`` → id of a finished game of a season of that
    rule set whose team's experts are EXPERTS."""
    from tests.webapp.games.helpers import game, season
    from webapp.games.season.operations import create_team
    from webapp.tasks.outbox import commit

    made = {}

    def make(ruleset: str = "2009", day: int = 1, status: str = "finished") -> int:
        if ruleset not in made:
            made[ruleset] = (
                season(ruleset),
                create_team(f"Команда {ruleset}", EXPERTS[0], EXPERTS),
            )
        s, t = made[ruleset]
        g = game(s, day, team_=t, status=status)
        gid = g.id
        commit()
        return gid

    return make
