"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

# --- markers -------------------------------------------------------------------
# ``e2e`` and ``integration`` by directory, ``integration`` also for every test that asks for
# a real PostgreSQL or Redis (``pg_url``, ``pg_app``, ``redis_url``); ``slow`` is set on the
# tests themselves. ``make test`` runs all; ``make test-fast`` deselects the three.

TESTS_DIR = Path(__file__).resolve().parent
SERVICE_FIXTURES = {"pg_url", "pg_app", "redis_url"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.path.resolve().relative_to(TESTS_DIR).parts
        if parts[0] == "e2e":
            item.add_marker(pytest.mark.e2e)
        if parts[0] == "integration" or SERVICE_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.integration)


def pytest_terminal_summary(terminalreporter):
    """Say how many browser tests (tests/e2e, Chromium) were skipped and why, whenever any
    ran or was skipped: a machine without Chromium must not pass ``make test`` silently."""
    from collections import Counter

    def e2e(report) -> bool:
        return report.nodeid.replace("\\", "/").startswith("tests/e2e/") and report.when in (
            "setup",
            "call",
        )

    seen, skipped = set(), Counter()
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if not hasattr(report, "nodeid") or not e2e(report):
                continue
            seen.add(report.nodeid)
            if outcome == "skipped":
                longrepr = report.longrepr
                reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
                skipped[reason.removeprefix("Skipped: ")] += 1
    if not seen:
        return
    total = sum(skipped.values())
    line = f"browser tests (tests/e2e): {total} of {len(seen)} skipped"
    if skipped:
        line += ": " + "; ".join(f"{reason} ({n})" for reason, n in skipped.most_common())
    terminalreporter.write_line(line, yellow=bool(total), bold=bool(total))


# --- hypothesis: no per-example deadline ----------------------------------------
# Speed is the benchmarks' business, never a timed test's: hypothesis's default 200 ms per
# example failed a property (tests/webapp/games/test_draw.py) on a loaded machine.

from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("sova", deadline=None)
_hypothesis_settings.load_profile("sova")


# --- shared test data --------------------------------------------------------
# Real packets and other data live in the folder "shared" next to the repo
# checkout (``<checkout>/../shared``). Tests skip without it, except on
# CI (CI=true), where its absence is a failure.

SHARED_DIR = Path(__file__).resolve().parents[1] / ".." / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """Path of the shared test-data folder; skips (fails when CI=true) if absent."""
    path = SHARED_DIR.resolve()
    if not path.is_dir():
        message = f"shared test data not found at {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required when CI=true)")
        pytest.skip(message)
    return path


# --- end of shared test data -------------------------------------------------


# --- the application ---------------------------------------------------------

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402
from jinja2 import BytecodeCache  # noqa: E402

from tests.helpers import CachedBuilderRule  # noqa: E402

Flask.url_rule_class = CachedBuilderRule  # every app of the tests (tests/helpers.py)


class ClosingClient(FlaskClient):
    """The test client, reading each response whole and closing it (``buffered=True``): a
    file a view sends (``send_file``) is closed at once, as a WSGI server closes it, instead
    of when the garbage collector finds it (a ResourceWarning, an error in this suite).
    The request body too: Werkzeug's test client spools a multipart body over 500 KB to a
    temporary file that nothing else closes."""

    def open(self, *args, buffered=True, **kwargs):
        response = super().open(*args, buffered=buffered, **kwargs)
        body = response.request.environ.get("wsgi.input")
        if body is not None and not body.closed:
            body.close()
        return response


@pytest.fixture(autouse=True)
def _closing_test_client(monkeypatch):
    monkeypatch.setattr(Flask, "test_client_class", ClosingClient)


@pytest.fixture(autouse=True)
def _cheap_password_hashes(request, monkeypatch):
    """argon2id with argon2-cffi's ``CHEAPEST`` parameters in tests: the same hash and
    verify code, the parameters stored in each hash, but about 0.1 ms instead of 0.25 CPU s,
    which staff users and logins would otherwise cost every test that makes them (a
    quarter of the suite's CPU). Processes the tests start (gunicorn, the CLI) keep the
    shipped parameters, and so does a test marked ``shipped_password_hasher``."""
    from argon2 import PasswordHasher, profiles

    from webapp.accounts import operations

    if request.node.get_closest_marker("shipped_password_hasher"):
        return

    monkeypatch.setattr(operations, "_hasher", PasswordHasher.from_parameters(profiles.CHEAPEST))


# --- PDF renders: once per input and process ------------------------------------
# WeasyPrint's render is deterministic (``workers.documents.render_pdf``: the same HTML and
# images give the same bytes; tests/workers/test_documents.py holds it), and a fifth of the
# suite's CPU went on rendering the same gift agreements and envelopes again, test after
# test, from the same played games. A render is kept by its input (the HTML and the SHA-256
# of each image it may show) and a later test with the same input gets those bytes. A render
# that fails is not kept. tests/workers/test_documents.py, which tests the rendering itself
# (forked workers, font configurations, what is fetched), renders every time (marker
# ``fresh_render``); so does every process the tests start (a worker, the installed wheel).

_RENDERED: dict[tuple, bytes] = {}


@pytest.fixture(autouse=True)
def _render_once_per_input(request, monkeypatch):
    if request.node.get_closest_marker("fresh_render"):
        return
    import hashlib

    from workers import documents

    render = documents._html_to_pdf

    def once(html: str, allowed_files=None) -> bytes:
        try:
            images = tuple(
                sorted(
                    (name, hashlib.sha256(Path(path).read_bytes()).hexdigest())
                    for name, path in (allowed_files or {}).items()
                )
            )
        except OSError:  # a missing image: the render says what is wrong
            return render(html, allowed_files)
        key = (html, images)
        if key not in _RENDERED:
            _RENDERED[key] = render(html, allowed_files)
        return _RENDERED[key]

    monkeypatch.setattr(documents, "_html_to_pdf", once)


def _require_env(name: str) -> str:
    """The value of ``name``; skips the test when unset (fails under CI=true)."""
    value = os.environ.get(name)
    if not value:
        message = f"{name} is not set: integration test needs a real service"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (required when CI=true)")
        pytest.skip(message)
    return value


def _test_config(tmp_path: Path, database_url: str) -> dict:
    """The configuration every test app starts from (SQLite file ``database_url``)."""
    return {
        "TESTING": True,
        "SOVA_INSTANCE_PATH": str(tmp_path / "instance"),
        "SOVA_DATABASE_URL": database_url,
        "SOVA_BROKER_URL": "memory://",
        "SOVA_OUTBOX_AUTOSEND": False,
        "SOVA_DOCUMENTS_PATH": str(tmp_path / "documents"),
        "RATELIMIT_ENABLED": False,
        "SOVA_MIN_FILL_SECONDS": 0,
    }


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite file migrated to ``heads`` once per session (per xdist worker: each has its
    own ``tmp_path_factory``); :func:`make_app` copies it instead of migrating per test.
    The file is left in rollback-journal mode, so the one file holds everything."""
    import sqlite3

    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.extensions import db

    tmp = tmp_path_factory.mktemp("sqlite-template")
    path = tmp / "template.sqlite"
    app = create_app(_test_config(tmp, f"sqlite:///{path}"))
    with app.app_context():
        upgrade(revision="heads")
        db.engine.dispose()
    with sqlite3.connect(path) as conn:  # checkpoint the WAL into the file, drop the -wal
        conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    return path


class _MemoryBytecodeCache(BytecodeCache):
    """Jinja's compiled templates kept in this process's memory, for every test app: a
    Flask app has its own Jinja environment, so each test compiled again every template it
    rendered (a few ms each; Jinja's compiler was the largest single cost of the page
    tests). A bucket's key is the template's name and a hash of its source, so a template
    whose source differs compiles anew."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_JINJA_BYTECODE = _MemoryBytecodeCache()


# --- one SQLite engine per worker ---------------------------------------------------
# SQLAlchemy compiles each statement once per engine (its compiled cache lives on the
# engine), and a test app made a new engine for a new database file, so every test compiled
# again every statement it ran: an eighth of the CPU of the games and prizes tests. The test
# apps' database is therefore one file per pytest-xdist worker (``_worker_database``), emptied
# and copied from the migrated template for each test, and the apps on it share one engine
# (``SQLAlchemy._make_engine`` below); the listeners Sova's factory puts on an engine are
# taken off before the next app's factory puts its own. Apps on any other database (an
# override of ``SOVA_DATABASE_URL``, PostgreSQL) get their own engine, as before.

_SHARED_ENGINES: dict[str, object] = {}  # repr of the engine options -> engine
_SHARED_URL: dict[str, str] = {}  # "url": the per-worker database's URL, once known


def _shared_make_engine(self, bind_key, options, app):
    from sqlalchemy import event

    if str(options.get("url")) != _SHARED_URL.get("url"):
        return _make_engine(self, bind_key, options, app)
    key = repr(sorted((k, repr(v)) for k, v in options.items()))
    engine = _SHARED_ENGINES.get(key)
    if engine is None:
        engine = _SHARED_ENGINES[key] = _make_engine(self, bind_key, options, app)
        return engine
    for target, identifiers in ((engine.pool, ("connect", "checkin", "checkout")),
                                (engine, ("begin",))):  # fmt: skip
        for identifier in identifiers:
            for fn in list(getattr(target.dispatch, identifier)):
                if getattr(fn, "__module__", "").startswith("webapp."):
                    event.remove(engine, identifier, fn)
    return engine


from flask_sqlalchemy import SQLAlchemy  # noqa: E402

_make_engine = SQLAlchemy._make_engine
SQLAlchemy._make_engine = _shared_make_engine  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def _worker_database(tmp_path_factory) -> Path:
    """The SQLite file of this worker's test apps (see above)."""
    path = tmp_path_factory.mktemp("database") / "sova.sqlite"
    _SHARED_URL["url"] = f"sqlite:///{path}"
    return path


def _fresh_worker_database(path: Path, template: Path) -> None:
    """Close the shared engines' connections, delete the last test's database (and its WAL
    files) and put a copy of the migrated ``template`` in its place."""
    import shutil

    from webapp.votes.operations.sms import _open_cache

    for engine in _SHARED_ENGINES.values():
        engine.dispose()
    _open_cache.clear()  # the open vote this process saw, by database URL: another database now
    if path.is_dir():  # a test made the database unreachable (tests/e2e/test_viewer_outage.py)
        shutil.rmtree(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(template, path)


@pytest.fixture
def make_app(tmp_path, sqlite_template, _worker_database):
    """Factory: a Sova app on a fresh SQLite database (this worker's file, a copy of the
    session's migrated template made for each test), its instance and documents folders in
    ``tmp_path``. With ``SOVA_DATABASE_URL`` among the overrides, that database is migrated
    instead."""
    from flask_migrate import upgrade

    from webapp.app import create_app

    fresh = {"done": False}

    def factory(**overrides):
        db_file = _worker_database
        config = _test_config(tmp_path, f"sqlite:///{db_file}")
        config.update(overrides)
        own_db = config["SOVA_DATABASE_URL"] == f"sqlite:///{db_file}"
        if own_db and not fresh["done"]:
            _fresh_worker_database(db_file, sqlite_template)
            fresh["done"] = True
        app = create_app(config)
        app.jinja_env.bytecode_cache = _JINJA_BYTECODE
        if not own_db:
            with app.app_context():
                upgrade(revision="heads")
        factory.apps.append(app)
        return app

    factory.apps = []  # every app of this test: a restored game's secrets go to each
    return factory


@pytest.fixture
def app(make_app):
    """An app with CSRF off (CSRF itself is tested with ``csrf_app``)."""
    app = make_app(WTF_CSRF_ENABLED=False)
    with app.app_context():
        yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def staff(app):
    """``staff("editor")`` → (user id, API token); one user per role, made on demand."""
    from webapp.accounts.operations import create_user
    from webapp.jobs import commit

    made: dict[str, tuple[int, str]] = {}

    def get(role: str) -> tuple[int, str]:
        if role not in made:
            user, token = create_user(
                f"{role}@test.local", role, password=f"{role}-pw", with_token=True
            )
            made[role] = (user.id, token)
            commit()
        return made[role]

    get.made = made  # the users made so far: ``played`` restores them with a saved game
    return get


@pytest.fixture
def api(client, staff):
    """``api("post", "/api/v1/...", role="editor", json=...)`` → response."""

    def call(method: str, path: str, role: str | None = None, **kwargs):
        headers = kwargs.pop("headers", {})
        if role:
            headers["Authorization"] = f"Bearer {staff(role)[1]}"
        return getattr(client, method)(path, headers=headers, **kwargs)

    return call


@pytest.fixture
def login(client, staff):
    """``login("editor")``: the test client gets a session of that role."""

    def do(role: str):
        staff(role)
        resp = client.post("/login", data={"email": f"{role}@test.local", "password": f"{role}-pw"})
        assert resp.status_code == 302, resp.data
        return client

    return do


@pytest.fixture
def drain(app):
    """``drain()``: run the queued tasks in-process (``tests.helpers.drain_outbox``)."""
    from tests.helpers import drain_outbox

    return lambda: drain_outbox(app)


def _saved_settings(app, tmp_path: Path) -> list[tuple[str, object]]:
    """The app's settings that a saved state (``played``, ``saved_state``) must share with
    the test restoring it: all but the secrets (saved with the state) and the paths under
    this test's ``tmp_path``, sorted by name."""
    return sorted(
        (k, v)
        for k, v in app.config.items()
        if k not in ("SECRET_KEY", "SOVA_ENCRYPTION_KEYS") and str(tmp_path) not in repr(v)
    )


@pytest.fixture(scope="session")
def played_games(tmp_path_factory) -> dict:
    """The games ``played`` made in this session (per xdist worker) on a fresh SQLite
    database: ``{key: saved}`` (see :func:`tests.helpers.save_sqlite_app`); the folder
    ``dir`` holds their files."""
    return {"dir": tmp_path_factory.mktemp("played"), "games": {}}


@pytest.fixture
def played(app, client, api, staff, drain, tmp_path, played_games, sqlite_template, make_app):
    """``played(kind, events, ruleset="2023", season_id=None)`` → game id of a finished game
    whose 13 single sectors hold questions 1..13 (question 1 has two co-authors); a new
    season unless ``season_id`` is given.

    The first game of a test on a still-empty SQLite database is played through the API
    once per session for the same arguments, app settings and ``drain``; later tests get a
    copy of that database, instance folder (its secrets) and documents folder, and the
    same staff users and tokens (:func:`tests.helpers.restore_sqlite_app`): the same rows
    the API calls below would write, without replaying 13 submissions, their pre-checks,
    26 decisions and the game."""
    from tests.helpers import (
        restore_sqlite_app,
        save_sqlite_app,
        sqlite_app_is_fresh,
        submission,
        submit,
    )

    made = {"n": 0}

    def play(
        kind: str,
        events: list[dict],
        ruleset: str = "2023",
        name: str | None = None,
        season_id: int | None = None,
        **season_extra,
    ) -> int:
        key = None
        if (
            made["n"] == 0
            and season_id is None
            and not staff.made
            and sqlite_app_is_fresh(app, sqlite_template)
        ):
            code = drain.__code__
            key = repr(
                (kind, events, ruleset, name, sorted(season_extra.items()),
                 (code.co_filename, code.co_firstlineno), _saved_settings(app, tmp_path))
            )  # fmt: skip
            saved = played_games["games"].get(key)
            if saved is not None:
                restore_sqlite_app(app, saved, tmp_path, also=make_app.apps)
                staff.made.update(saved["staff"])
                made["n"] = 13
                return saved["game"]
        game = _play(kind, events, ruleset, name, season_id, **season_extra)
        if key is not None:
            folder = played_games["dir"] / str(len(played_games["games"]))
            saved = save_sqlite_app(app, folder, tmp_path)
            played_games["games"][key] = {**saved, "staff": dict(staff.made), "game": game}
        return game

    def _play(kind, events, ruleset, name, season_id, **season_extra) -> int:
        base = made["n"]
        for n in range(base + 1, base + 14):
            authors = (
                [{"name": f"Автор {n}", "city": "Минск"}, {"name": f"Соавтор {n}", "city": "Брест"}]
                if n == base + 1
                else None
            )
            submit(client, submission(n, **({"authors": authors} if authors else {})))
        made["n"] = base + 13
        drain()
        while True:  # the queue is paginated: approve page after page until empty
            items = api("get", "/api/v1/questions?status=in_review", role="editor").json["items"]
            if not items:
                break
            for item in items:
                r = api(
                    "post",
                    f"/api/v1/questions/{item['id']}/decision",
                    role="editor",
                    json={"decision": "approve"},
                )
                assert r.status_code == 200, r.json
                r = api(
                    "post",
                    f"/api/v1/questions/{item['id']}/decision",
                    role="chief_editor",
                    json={"decision": "sign_off"},
                )
                assert r.status_code == 200, r.json
        currency = "BYN" if ruleset == "2023" else "RUB"
        if name is None and season_id is None:  # season names are unique
            from webapp.extensions import db as _db
            from webapp.games.models import Season

            name = f"Сезон {ruleset}"
            taken = _db.session.scalar(
                _db.select(_db.func.count()).select_from(Season).where(Season.name.startswith(name))
            )
            name = f"{name} №{taken + 1}" if taken else name
        season = (
            season_id
            or api(
                "post",
                "/api/v1/seasons",
                role="producer",
                json={
                    "name": name,
                    "ruleset": ruleset,
                    "currency": currency,
                    **season_extra,
                },
            ).json["id"]
        )
        game = api(
            "post",
            "/api/v1/games",
            role="producer",
            json={
                "season_id": season,
                "kind": kind,
                "date": "2023-12-30",
                "table": {"blitz": None, "superblitz": None, "sector13": None},
            },
        ).json["id"]
        r = api("post", f"/api/v1/games/{game}/assign", role="producer")
        assert r.status_code == 200, r.json
        for ev in events:
            r = api("post", f"/api/v1/games/{game}/events", role="host", json=ev)
            assert r.status_code == 201, (ev, r.json)
        assert r.json["state"]["finished"]
        return game

    return play


@pytest.fixture(scope="session")
def _saved_states(tmp_path_factory) -> dict:
    """States :func:`saved_state` made in this session (per xdist worker)."""
    return {"dir": tmp_path_factory.mktemp("saved"), "states": {}}


@pytest.fixture
def saved_state(app, tmp_path, sqlite_template, make_app, _saved_states):
    """``saved_state(key, build)`` → what ``build()`` returned: the first call for ``key`` in
    a session, on a still-empty SQLite database, runs ``build`` and saves the database,
    instance and documents folders and secrets it left (:func:`tests.helpers.save_sqlite_app`);
    later tests calling it with the same ``key`` and app settings on an empty database get a
    copy instead (:func:`tests.helpers.restore_sqlite_app`), as ``played`` does for games.
    On a database that already holds rows ``build`` simply runs."""
    from tests.helpers import restore_sqlite_app, save_sqlite_app, sqlite_app_is_fresh

    def get(key: str, build):
        if not sqlite_app_is_fresh(app, sqlite_template):
            return build()
        full_key = repr((key, _saved_settings(app, tmp_path)))
        saved = _saved_states["states"].get(full_key)
        if saved is not None:
            restore_sqlite_app(app, saved, tmp_path, also=make_app.apps)
            return saved["value"]
        value = build()
        folder = _saved_states["dir"] / str(len(_saved_states["states"]))
        _saved_states["states"][full_key] = {
            **save_sqlite_app(app, folder, tmp_path),
            "value": value,
        }
        return value

    return get


def worker_index() -> int:
    """This pytest-xdist worker's number (``gw3`` → 3); 0 without xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(worker.removeprefix("gw") or 0)


@pytest.fixture(scope="session")
def pg_template():
    """A PostgreSQL database migrated to ``heads`` once per session (one per xdist worker),
    dropped at the end; ``pg_url`` clones it for each test."""
    base = _require_env("SOVA_TEST_DATABASE_URL")
    import uuid

    import sqlalchemy as sa
    from flask_migrate import upgrade

    from webapp.app import create_app
    from webapp.extensions import db

    name = f"sova_tmpl_{worker_index()}_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
        app = create_app(
            {
                "TESTING": True,
                "SOVA_DATABASE_URL": url,
                "SOVA_BROKER_URL": "memory://",
                "SOVA_OUTBOX_AUTOSEND": False,
            }
        )
        with app.app_context():
            upgrade(revision="heads")
            db.session.remove()
            db.engine.dispose()  # CREATE DATABASE … TEMPLATE needs it unused
        yield name
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def pg_url(pg_template):
    """A fresh PostgreSQL database for this test, already migrated to ``heads`` (a copy of
    ``pg_template``), dropped afterwards, so that counts a test asserts are its own."""
    base = _require_env("SOVA_TEST_DATABASE_URL")
    import uuid

    import sqlalchemy as sa

    name = f"sova_it_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"'))
    url = sa.engine.make_url(base).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def pg_app(make_app, pg_url):
    """An app (CSRF off, app context pushed) on a fresh PostgreSQL database (``pg_url``)."""
    from webapp.extensions import db

    app = make_app(WTF_CSRF_ENABLED=False, SOVA_DATABASE_URL=pg_url)
    with app.app_context():
        assert db.engine.dialect.name == "postgresql"
        yield app
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def redis_url():
    """The Redis URL for integration tests, its database flushed before each test (so no
    message of an earlier test reaches this test's worker). Under pytest-xdist each worker
    has its own database: SOVA_TEST_REDIS_URL's number plus the worker's (``gw0`` → that
    number, ``gw1`` → number + 1, …), so workers never flush each other's."""
    base = _require_env("SOVA_TEST_REDIS_URL")
    import redis

    parts = urlsplit(base)
    number = int(parts.path.strip("/") or 0) + worker_index()
    url = urlunsplit(parts._replace(path=f"/{number}"))
    try:
        redis.Redis.from_url(url).flushdb()
    except redis.ResponseError as exc:  # "DB index is out of range"
        pytest.fail(
            f"Redis database {number} for xdist worker {worker_index()} ({url}): {exc};"
            " give SOVA_TEST_REDIS_URL a lower database number or use fewer workers"
        )
    return url


@pytest.fixture
def smtp_sink(monkeypatch):
    """A real SMTP server (aiosmtpd) on a free port: ``(url, received_messages)``.
    Also sets SOVA_TEST_SMTP_URL for servers started by the e2e fixtures."""
    import socket

    from aiosmtpd.controller import Controller
    from aiosmtpd.handlers import Message

    received = []

    class Sink(Message):
        def handle_message(self, message):
            received.append(message)

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    url = f"smtp://127.0.0.1:{port}"
    monkeypatch.setenv("SOVA_TEST_SMTP_URL", url)
    yield url, received
    controller.stop()
