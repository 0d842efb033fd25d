"""The 2009 §3.1 audience vote in headless Debian Chromium: the host opens the vote on the
console after the game; SMS arrive over HTTP; the host's console and the producer's vote
page show the live tally without a reload; the host closes the vote."""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.request
from datetime import UTC, datetime

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402

from tests.webapp.votes.helpers import EXPERTS  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


SECRET = "e2e-gateway-secret"


@pytest.fixture
def game_id(live_server):
    from tests.webapp.games import helpers as h
    from webapp.games.season.operations import create_team
    from webapp.tasks.outbox import commit

    live_server.app.config["SOVA_SMS_SECRET"] = SECRET
    with live_server.app.app_context():
        team = create_team("Команда Друзя", EXPERTS[0], EXPERTS)
        g = h.game(h.season("2009"), team_=team, status="finished")
        gid = g.id
        commit()
    return gid


def sms(url: str, message_id: str, msisdn: str, text: str) -> str:
    body = json.dumps(
        {
            "message_id": message_id,
            "msisdn": msisdn,
            "text": text,
            "received_at": datetime.now(UTC).isoformat(),
        }
    ).encode()
    req = urllib.request.Request(
        f"{url}/api/v1/votes/sms",
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "X-Sova-Signature": hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
        },
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())["result"]


def cell(page, n: int):
    return page.locator(f"#vote-candidates tr[data-n='{n}'] td.votes")


def test_live_tally_on_console_and_producer_page(live_server, browser, page, game_id):
    url = live_server.url
    live_server.login(page, "host")
    page.goto(f"{url}/games/{game_id}/console")
    page.get_by_role("button", name="Открыть голосование").click()
    page.wait_for_load_state("load")
    expect(page.locator("#vote-status")).to_have_text("Голосование идёт: SMS принимаются.")
    assert cell(page, 3).inner_text() == "0"
    page.evaluate("window.__noReload = 1")

    producer_ctx = browser.new_context(locale="ru-RU")
    producer = producer_ctx.new_page()
    producer.set_default_timeout(15000)
    live_server.login(producer, "producer")
    producer.goto(f"{url}/games/{game_id}/vote")
    producer.evaluate("window.__noReload = 1")

    assert sms(url, "m1", "+79160000001", "3") == "counted"
    assert sms(url, "m2", "+79160000002", "аскёров") == "counted"
    assert sms(url, "m3", "+79160000002", "1") == "repeat"
    assert sms(url, "m4", "+79160000003", "Друзь") == "invalid"
    for p in (page, producer):
        expect(cell(p, 3)).to_have_text("2", timeout=5000)  # polled every second
        # a poll answered between two SMS shows the earlier tally: wait for each value
        expect(p.locator("#vote-counted")).to_have_text("2", timeout=5000)
        expect(p.locator("#vote-repeats")).to_have_text("1", timeout=5000)
        expect(p.locator("#vote-invalid")).to_have_text("1", timeout=5000)
        assert p.evaluate("window.__noReload") == 1  # no reload happened
    assert sms(url, "m5", "+79160000004", "Инна Друзь") == "counted"
    expect(cell(producer, 2)).to_have_text("1", timeout=5000)

    page.locator("#vote-controls input[name=confirm]").check()
    page.get_by_role("button", name="Закрыть голосование").click()
    page.wait_for_load_state("load")
    expect(page.locator("#vote-status")).to_have_text("Голосование закрыто.")
    expect(producer.locator("#vote-status")).to_have_text("Голосование закрыто.", timeout=5000)
    expect(producer.get_by_role("link", name="Итоги и приз")).to_be_visible()
    assert sms(url, "m6", "+79160000005", "3") == "late"
    producer_ctx.close()
