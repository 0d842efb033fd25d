"""Rehearsing the §3.1 vote without the SMS gateway: `make run`'s rehearsal secret (never in
production), the command the vote page and seed-demo print, and ``sova vote simulate``
against a real HTTP server — counted with the right secret; with a wrong secret, no secret
on the server or nothing listening, each message given up once with its reason printed."""

from __future__ import annotations

import json
import re
import socket
import threading
from contextlib import contextmanager

import pytest
from werkzeug.serving import make_server

from tests.webapp.votes.helpers import open_vote
from webapp.config import DEMO_SMS_SECRET, ConfigError, load_config
from webapp.votes.simulate import BAD_SIGNATURE, NO_SECRET, REFUSED, REFUSED_TRIES


@pytest.fixture
def app(make_app):
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_SMS_SECRET=DEMO_SMS_SECRET)
    with app.app_context():
        yield app


@contextmanager
def serve(app):
    """``app`` on a real threaded HTTP server on a free port: yields its base URL."""
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()


def simulate(app, url: str, secret: str, total: int = 10):
    """Run ``sova vote simulate`` (good messages only): ``(exit code, seen, stderr)``."""
    result = app.test_cli_runner().invoke(
        args=[
            "vote",
            "simulate",
            "--url",
            url,
            "--secret",
            secret,
            "--total",
            str(total),
            "--rate",
            "0",
            "--concurrency",
            "4",
            "--repeats",
            "0",
            "--invalid",
            "0",
            "--resent",
            "0",
            "--badsig",
            "0",
        ]
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    return result.exit_code, lines[1]["seen"], result.stderr


def test_with_the_rehearsal_secret_every_message_is_counted(app, api, finished_game):
    gid = finished_game()
    open_vote(api, gid)
    with serve(app) as url:
        code, seen, err = simulate(app, url, DEMO_SMS_SECRET)
    assert (code, seen["answers"], seen["failed"], seen["failures"], err) == (
        0,
        {"counted": 10},
        0,
        {},
        "",
    )
    vote = api("get", f"/api/v1/games/{gid}/vote", role="host").json["vote"]
    assert vote["counted"] == 10


def test_a_wrong_secret_is_given_up_at_once_with_its_reason(app, api, finished_game):
    open_vote(api, finished_game())
    with serve(app) as url:
        code, seen, err = simulate(app, url, "test")
    assert code == 1
    assert (seen["failed"], seen["retries"], seen["failures"]) == (10, 0, {BAD_SIGNATURE: 10})
    assert f"Не доставлено 10: {BAD_SIGNATURE}" in err


def test_no_secret_on_the_server_is_given_up_at_once(make_app):
    app = make_app(WTF_CSRF_ENABLED=False)
    with app.app_context(), serve(app) as url:
        code, seen, err = simulate(app, url, "test")
    assert code == 1
    assert (seen["failed"], seen["retries"], seen["failures"]) == (10, 0, {NO_SECRET: 10})
    assert "503 SOVA_SMS_SECRET is not set on the server" in err


def test_nothing_listening_gives_up_after_a_few_tries(app):
    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, seen, err = simulate(app, f"http://127.0.0.1:{port}", DEMO_SMS_SECRET, total=50)
    assert code == 1
    assert (seen["failed"], seen["failures"]) == (50, {REFUSED: 50})
    # a few tries of the first messages, not 20 of each
    assert seen["retries"] <= 4 * (REFUSED_TRIES - 1)
    assert f"Не доставлено 50: {REFUSED}" in err


def test_vote_page_tells_how_to_rehearse(app, client, login, finished_game):
    gid = finished_game()
    login("producer")
    page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    command = f"sova vote simulate --url http://localhost --total 100 --secret {DEMO_SMS_SECRET}"
    assert (
        "Репетиция без SMS-шлюза: откройте голосование и выполните на сервере Совы команду\n"
        f"  <code>{command}</code>. Она пришлёт 100 подписанных SMS" in page
    )


def test_vote_page_without_a_secret_says_sms_are_not_accepted(make_app):
    app = make_app(WTF_CSRF_ENABLED=False)
    with app.app_context():
        from tests.webapp.games.helpers import game, season
        from webapp.accounts.operations import create_user
        from webapp.tasks.outbox import commit

        g = game(season("2009"), 1, status="finished")
        gid = g.id
        create_user("p@test.local", "producer", password="producer-pw")
        commit()
        client = app.test_client()
        client.post("/login", data={"email": "p@test.local", "password": "producer-pw"})
        page = client.get(f"/games/{gid}/vote").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", "", page).split())
    assert (
        "SMS не принимаются: на сервере не задан секрет SMS-шлюза, переменная окружения "
        "SOVA_SMS_SECRET. Для репетиции запустите Сову командой make run. Она задаёт "
        "учебный секрет и печатает команду репетиции." in text
    )
    assert "sova vote simulate" not in page


def test_the_rehearsal_secret_is_refused_in_production(tmp_path):
    base = {"SOVA_INSTANCE_PATH": str(tmp_path), "SOVA_ENV": "production"}
    keys = {"SOVA_SECRET_KEY": "k" * 32, "SOVA_ENCRYPTION_KEYS": "x"}
    with pytest.raises(ConfigError, match="rehearsal secret"):
        load_config({**base, **keys, "SOVA_SMS_SECRET": DEMO_SMS_SECRET})
    assert load_config({**base, **keys, "SOVA_SMS_SECRET": "gw"})["SOVA_SMS_SECRET"] == "gw"


def test_make_run_sets_and_seed_demo_prints_the_rehearsal_secret(app):
    """The Makefile's ``run`` target exports the rehearsal secret (a SOVA_SMS_SECRET of
    the environment wins), and seed-demo — which ``make run`` runs before the servers —
    prints it with the command that rehearses against this instance."""
    from pathlib import Path

    makefile = (Path(__file__).parents[3] / "Makefile").read_text()
    assert f"run: export SOVA_SMS_SECRET ?= {DEMO_SMS_SECRET}\n" in makefile
    app.config["SOVA_PUBLIC_URL"] = "http://127.0.0.1:5000"
    seeded = app.test_cli_runner().invoke(args=["seed-demo"])
    assert seeded.exit_code == 0, seeded.output
    assert (
        f"SMS gateway rehearsal secret (development only): {DEMO_SMS_SECRET}\n"
        "  open a vote on a finished 2009 game's vote page, then: sova vote simulate "
        f"--url http://127.0.0.1:5000 --secret {DEMO_SMS_SECRET} --total 100\n"
    ) in seeded.stdout
    app.config["SOVA_ENV"] = "production"
    again = app.test_cli_runner().invoke(args=["seed-demo"])
    # production refuses seed-demo altogether (its accounts' passwords are published)
    assert again.exit_code == 2 and "rehearsal" not in again.output


@pytest.mark.parametrize(
    "lang,words",
    [
        (
            "en",
            "Rehearsal without the SMS gateway: open the vote and run on Sova's server the "
            "command sova vote simulate --url http://localhost --total 100 --secret "
            f"{DEMO_SMS_SECRET}. It sends 100 signed SMS as the gateway does and prints how "
            "many of them must be counted; the counters below show the same.",
        ),
        (
            "be",
            "Рэпетыцыя без SMS-шлюза: адкрыйце галасаванне і выканайце на серверы Савы "
            "каманду sova vote simulate --url http://localhost --total 100 --secret "
            f"{DEMO_SMS_SECRET}. Яна дашле 100 падпісаных SMS, як шлюз, і надрукуе, колькі з "
            "іх павінна быць залічана; лічыльнікі ніжэй пакажуць тое ж.",
        ),
    ],
)
def test_rehearsal_hint_in_english_and_belarusian(app, client, login, finished_game, lang, words):
    gid = finished_game()
    login("producer")
    page = client.get(f"/games/{gid}/vote?lang={lang}").get_data(as_text=True)
    text = " ".join(re.sub(r"<[^>]+>", "", page).split())
    assert words in text
