"""Sova installed the way services are deployed: the wheel, not the checkout.

Builds the wheel (from the sdist, as a registry would), installs it with the runtime lock into
a fresh virtual environment in a temporary folder, and from an empty current directory, with
a clean environment (no PYTHONPATH, HOME in the temporary folder, no SOVA_INSTANCE_PATH), runs
the installed ``sova`` console script: migrations, staff users, the demo seed (the packaged
demo packets), then ``sova run`` (web, a real Celery worker and beat on the embedded SQLite
database and broker). A viewer's question goes through the API, the worker pre-checks it and
e-mails the confirmation (to aiosmtpd in this process); editors approve it; the producer fills
a table and the worker renders the envelope and host-card PDFs, whose text is asserted.

Slow (a wheel build and an install: about a minute with a warm uv cache); select it with
``-m slow`` or leave it out with ``-m "not slow"``. Needs uv (a dev dependency) and PyPI for
the build backend and any wheel not yet in uv's cache. It runs in the full run
(``tests.helpers.full_run``: on CI, ``CI=true`` as ``.ci/run`` sets, or with
``SOVA_TEST_FULL=1``); a local ``make test`` skips it with that reason, as it skips the tests
that need PostgreSQL and Redis (``make test`` in two minutes without services).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import free_port, full_run, install_wheel, wait_for

# a wheel build, an install and a dozen process starts: far beyond the default 300 s when
# the machine is busy
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]


def _run(args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(venv, wheel)``: the wheel built from this checkout, installed into a new venv
    (:func:`tests.helpers.install_wheel`). Skips outside the full run
    (``tests.helpers.full_run``)."""
    if not full_run():
        pytest.skip("the wheel build runs on CI (CI=true) or with SOVA_TEST_FULL=1")
    try:
        return install_wheel(tmp_path_factory.mktemp("wheel"))
    except RuntimeError as exc:
        pytest.fail(str(exc))


def test_wheel_carries_the_run_time_files(installed):
    """Templates (pages, e-mails, PDFs), static files, translations (.po and compiled .mo),
    migrations, the demo packets and the Procfile are in the wheel."""
    import zipfile

    _venv, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "sova_templates/base.html",
        "sova_templates/emails/received.txt",
        "sova_templates/pdf/envelope.html",
        "sova_templates/pdf/pdf.css",
        "sova_templates/pdf/host_card.html",
        "webapp/static/sova.css",
        "webapp/static/onair/overlay.ograf.json",
        "webapp/static/onair/graphic.mjs",
        "webapp/translations/be/LC_MESSAGES/messages.mo",
        "webapp/translations/en/LC_MESSAGES/messages.po",
        "webapp/migrations/env.py",
        "webapp/migrations/alembic.ini",
        "webapp/migrations/script.py.mako",
        "webapp/migrations/versions/0009_minutes_number.py",
        "webapp/demo/demo_pool.4s",
        "webapp/submissions/sample_packet.4s",
        "webapp/Procfile",
        "workers/documents.py",
    ):
        assert name in names, name
    # every template of the checkout is in the wheel
    for path in (ROOT / "templates").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            assert f"sova_templates/{path.relative_to(ROOT / 'templates')}" in names, path


def test_installed_package_runs_the_pipeline_from_an_empty_directory(
    installed, tmp_path, smtp_sink
):
    venv, _wheel = installed
    smtp_url, received = smtp_sink
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    home = tmp_path / "home"
    port = free_port()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "SOVA_SMTP_URL": smtp_url,
        "SOVA_PORT": str(port),
        "SOVA_MIN_FILL_SECONDS": "0",
        "SOVA_RATELIMIT_ENABLED": "0",
    }
    sova = str(venv / "bin" / "sova")

    def cli(*args) -> subprocess.CompletedProcess:
        return _run([sova, *args], cwd=cwd, env=env)

    # the installed files are the ones used, not this checkout
    where = json.loads(
        _run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import json, webapp, workers, sova_templates, weasyprint; "
                "print(json.dumps([webapp.__file__, workers.__file__, "
                "sova_templates.__file__]))",
            ],
            cwd=cwd,
            env=env,
        ).stdout
    )
    for path in where:
        assert Path(path).is_relative_to(venv), where

    upgraded = cli("db", "upgrade", "heads")
    instance = home / ".local" / "share" / "sova"
    assert (
        f"sova: instance folder {instance} "
        "(per-user data directory; it does not exist yet, so it starts empty)"
    ) in upgraded.stderr
    assert (instance / "sova.sqlite").is_file()
    seeded = cli("seed-demo").stdout
    assert "Demo pool: 50 questions from demo_pool.4s approved" in seeded
    assert "sample_packet.4s: imported 10 questions as archive" in seeded
    # `sova import` itself: the app without its pages (webapp.cli.WITHOUT_PAGES) and its
    # reader processes, as installed
    sample = Path(where[0]).parent / "submissions" / "sample_packet.4s"
    again = cli("import", str(sample), "--as", "archive", "--workers", "2")
    assert again.stdout.splitlines() == [
        "sample_packet.4s: imported 10 questions as archive",
        "total: 10 questions from 1 file(s); 0 file(s) failed",
    ]
    assert f"Warning: {sample}: 10 of 10 questions are already in the database" in again.stderr
    tokens = {}
    for role in ("editor", "chief_editor", "producer", "host"):
        out = cli(
            "users", "create", "--email", f"{role}@wheel.local", "--role", role, "--token"
        ).stdout.splitlines()
        assert out[0] == f"created user {role}@wheel.local ({role})"
        tokens[role] = out[1]

    log = open(tmp_path / "sova-run.log", "wb")  # noqa: SIM115 (closed in the finally below)
    server = subprocess.Popen(
        [sova, "run"],
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    def call(method, path, role=None, body=None):
        headers = {"Content-Type": "application/json"}
        if role:
            headers["Authorization"] = f"Bearer {tokens[role]}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:
                return resp.status, resp.headers.get_content_type(), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get_content_type(), exc.read()

    def up():
        try:
            return call("GET", "/submit")[0] == 200
        except OSError:
            return False

    try:
        wait_for(up, 180, what="the web process of `sova run`")
        # the page is rendered from the installed templates, in Russian
        status, _type, page = call("GET", "/submit")
        assert "Отправить" in page.decode()

        status, _type, body = call(
            "POST",
            "/api/v1/submissions",
            body={
                "question": "Какой город называли Северной Пальмирой задолго до революции?",
                "answer": "Санкт-Петербург",
                "authors": [{"name": "Ян Колас", "city": "Минск"}],
                "email": "viewer@wheel.example",
                "consent": True,
                "language": "ru",
            },
        )
        assert status == 201, body
        submitted = json.loads(body)

        def confirmation():
            return [m for m in received if m["To"] == "viewer@wheel.example"]

        (mail,) = wait_for(confirmation, 180, what="the confirmation e-mail")
        text = mail.get_payload(decode=True).decode(mail.get_content_charset() or "utf-8")
        assert "Мы получили ваш вопрос" in text
        # the link of the «received» e-mail confirms the authorship and then
        # opens the status page
        base_url = submitted["status_url"].split("/status/")[0]
        assert f"{base_url}/confirm/" in text

        def in_review():
            status, _type, body = call("GET", f"/api/v1/questions/{submitted['id']}", "editor")
            return json.loads(body)["status"] == "in_review"

        wait_for(in_review, 180, what="the worker's pre-check")
        for role, decision in (("editor", "approve"), ("chief_editor", "sign_off")):
            status, _type, body = call(
                "POST",
                f"/api/v1/questions/{submitted['id']}/decision",
                role,
                {"decision": decision},
            )
            assert status == 200, body

        status, _type, body = call(
            "POST",
            "/api/v1/seasons",
            "producer",
            {"name": "Сезон 2023", "ruleset": "2023", "currency": "BYN"},
        )
        assert status == 201, body
        status, _type, body = call(
            "POST",
            "/api/v1/games",
            "producer",
            {
                "season_id": json.loads(body)["id"],
                "kind": "qualifying",
                "date": "2023-03-04",
                "table": {"blitz": 4, "superblitz": None, "sector13": None},
            },
        )
        assert status == 201, body
        game = json.loads(body)["id"]
        status, _type, body = call("POST", f"/api/v1/games/{game}/assign", "producer")
        assert status == 200, body
        sectors = {s["sector"]: s["question_ids"] for s in json.loads(body)["sectors"]}
        assert [len(sectors[n]) for n in range(1, 14)] == [1, 1, 1, 3] + [1] * 9
        assert call("POST", f"/api/v1/games/{game}/envelopes", "producer")[0] == 202

        def documents():
            items = json.loads(call("GET", f"/api/v1/games/{game}/documents", "host")[2])
            items = items["items"]
            return items if len(items) == 2 and all(d["status"] == "ready" for d in items) else None

        docs = {d["kind"]: d for d in wait_for(documents, 180, what="envelope PDFs")}
        status, mimetype, envelopes = call("GET", docs["envelopes"]["url"], "host")
        assert (status, mimetype) == (200, "application/pdf")
        reader = PdfReader(io.BytesIO(envelopes))
        assert len(reader.pages) == 13
        text = " ".join("\n".join(p.extract_text() for p in reader.pages).split())
        assert "Сектор 4 — Блиц" in text
        first = json.loads(call("GET", f"/api/v1/questions/{sectors[1][0]}", "editor")[2])
        assert " ".join(first["question"].split()[:4]) in text
        status, mimetype, cards = call("GET", docs["host_cards"]["url"], "host")
        assert (status, mimetype) == (200, "application/pdf")
        card_text = " ".join(
            "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(cards)).pages).split()
        )
        assert first["answer"].split()[0] in card_text
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
    # nothing was written into the current directory
    assert list(cwd.iterdir()) == []
