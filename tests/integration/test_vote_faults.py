"""Nothing acknowledged is lost: a burst of signed SMS votes through gunicorn on
PostgreSQL; inside the burst (placed by message count, not by time) both gunicorn workers
are SIGKILLed in turn (their requests and keep-alive connections die) and the private Redis
is killed and started again. The gateway simulator retries every non-2xx and every broken
connection, like the real gateway; the tally must still equal the counts the generator
knows, and every message is answered."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from datetime import date
from pathlib import Path

from tests.helpers import free_port, wait_for
from webapp.votes.simulate import plan, send

ROOT = Path(__file__).resolve().parents[2]
SECRET = "fault-gateway-secret"
EXPERTS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Ефим"]


def _children(pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    return [int(x) for x in out.split()]


def _api(port, method, path, token, body=None):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def test_worker_killed_and_redis_restarted_mid_burst_tally_exact(pg_url, private_redis, tmp_path):
    from flask_migrate import upgrade

    from webapp.accounts.operations import create_user
    from webapp.app import create_app
    from webapp.extensions import db
    from webapp.games.season.operations import create_game, create_season, create_team
    from webapp.tasks.outbox import commit

    env = dict(
        os.environ,
        SOVA_DATABASE_URL=pg_url,
        SOVA_BROKER_URL=private_redis.url,
        SOVA_REDIS_URL=private_redis.url,
        SOVA_INSTANCE_PATH=str(tmp_path / "inst"),
        SOVA_RATELIMIT_ENABLED="0",
        SOVA_SMS_SECRET=SECRET,
        PYTHONWARNINGS="ignore",
    )
    app = create_app({k: v for k, v in env.items() if k.startswith("SOVA_")})
    with app.app_context():
        upgrade(revision="heads")
        _, token = create_user("host@fault.local", "host", with_token=True)
        team = create_team("Команда", EXPERTS[0], EXPERTS)
        game = create_game(
            create_season("Сезон 2009", "2009").id,
            "qualifying",
            date(2009, 3, 1),
            {"blitz": 4, "superblitz": 9, "sector13": 13},
            team_id=team.id,
        )
        game.status = "finished"
        gid = game.id
        commit()
        db.session.remove()
        db.engine.dispose()
    port = free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    server = subprocess.Popen(
        [
            str(gunicorn),
            "-w",
            "2",
            "-k",
            "gthread",
            "--threads",
            "4",
            "-b",
            f"127.0.0.1:{port}",
            "--log-level",
            "error",
            "webapp:create_app()",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:

        def up():
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                return len(_children(server.pid)) == 2
            except OSError:
                return False

        wait_for(up, 60, "gunicorn up")
        _api(port, "POST", f"/api/v1/games/{gid}/vote", token, {"action": "open"})
        p = plan(1500, SECRET, candidates=6, seed=1818)
        workers = _children(server.pid)
        assert len(workers) == 2
        fired: list[str] = []

        def kill(pid: int, name: str):
            def action():
                os.kill(pid, signal.SIGKILL)  # a web worker dies mid-burst
                fired.append(name)

            return action

        def redis(action, name: str):
            def run():
                action()
                fired.append(name)

            return run

        # the faults are placed by message count (simulate.send's ``at``), not by time, so
        # they land inside the burst however loaded the machine is; killing both original
        # workers, one after the other, breaks every keep-alive connection of the burst, so
        # retries are certain
        faults = {
            300: kill(workers[0], "worker 1 killed"),
            600: redis(private_redis.stop, "redis stopped"),  # Redis dies ...
            800: redis(private_redis.start, "redis started"),  # ... and comes back empty
            1000: kill(workers[1], "worker 2 killed"),
        }
        report = send(
            f"http://127.0.0.1:{port}",
            p.messages,
            rate=150,
            concurrency=16,
            retries=60,
            timeout=20,
            at=faults,
        )
        assert fired == ["worker 1 killed", "redis stopped", "redis started", "worker 2 killed"]
        assert report.retries > 0  # the killed workers' connections broke mid-burst
        assert report.failed == 0
        vote = _api(port, "GET", f"/api/v1/games/{gid}/vote", token)["vote"]
        expected = p.expected()
        assert {str(c["n"]): c["votes"] for c in vote["candidates"] if c["votes"]} == (
            expected["votes"]
        )
        assert (vote["counted"], vote["repeats"], vote["invalid"], vote["late"]) == (
            expected["counted"],
            expected["repeats"],
            expected["invalid"],
            0,
        )
        assert report.answers["401"] == expected["rejected_badsig"]
        closed = _api(port, "POST", f"/api/v1/games/{gid}/vote", token, {"action": "close"})["vote"]
        assert closed["counted"] == expected["counted"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
