"""Helpers shared by the tests and conftests, in one place (this module imports no test
module or conftest): the viewer submission through the API, the in-process outbox drain,
and the prizes tests' games, commission and payee details; the Kubok packet's images; a free
port and a polling wait for the tests that start processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from webapp.prizes.models import Prize

# --- the full run (CI) and the local one ------------------------------------


def full_run() -> bool:
    """Whether this is the full test run: on CI (``CI=true``, as ``.ci/run`` sets) or with
    ``SOVA_TEST_FULL=1``. A local ``make test`` without it builds no wheel
    (tests/packaging) and tries fewer random examples per property (:func:`examples`)."""
    return os.environ.get("CI") == "true" or os.environ.get("SOVA_TEST_FULL") == "1"


def examples(n: int) -> int:
    """Hypothesis examples per property: ``n`` in the full run, else a quarter of it (at
    least 10). The properties and their assertions are the same in both."""
    return n if full_run() else max(10, n // 4)


# --- URL rules compiled once per process ----------------------------------------

from werkzeug.routing import Rule as _WerkzeugRule  # noqa: E402

_COMPILED: dict[tuple, tuple] = {}


class CachedBuilderRule(_WerkzeugRule):
    """Werkzeug's URL rule, compiled once per process for rules of the same text, options,
    defaults and map settings: the parsed parts, the converters and the two URL builders
    (Python source built from the rule, then ``compile()``). Compiling every rule again was
    most of ``create_app``'s time, and the suite makes an app per test. A later rule of
    the same key takes the same parts, converter objects (they keep nothing of the map
    they were made for but a reference) and builder functions, bound to itself: the
    builders read the converters from the rule they are bound to.
    ``tests/test_helpers.py`` checks that every URL of the app builds and matches the same
    with it."""

    def compile(self) -> None:
        m = self.map
        assert m is not None, "rule not bound"
        key = (
            self.rule,
            self.merge_slashes,
            self.host,
            self.subdomain,
            m.host_matching,
            tuple(sorted(m.converters.items())),
            tuple(sorted((k, repr(v)) for k, v in (self.defaults or {}).items())),
        )
        hit = _COMPILED.get(key)
        if hit is None:
            super().compile()
            _COMPILED[key] = (
                tuple(self._parts),
                tuple(self._trace),
                self._converters,
                frozenset(self.arguments),
                self._build.__func__,  # type: ignore[attr-defined]
                self._build_unknown.__func__,  # type: ignore[attr-defined]
            )
            return
        parts, trace, converters, arguments, build, build_unknown = hit
        self.arguments.update(arguments)
        # Werkzeug's private parts of a compiled rule, taken over: measured, create_app in a
        # test 111 → 61 ms and 200 trivial tests 6.4 → 4.3 s (docs/performance-history.md)
        self._parts, self._trace, self._converters, self._build, self._build_unknown = (
            list(parts),
            list(trace),
            dict(converters),
            build.__get__(self, None),
            build_unknown.__get__(self, None),
        )


def drain_outbox(app, skip: tuple[str, ...] = ()) -> list[str]:
    """Run every unsent outbox message in-process with the real task functions (unit tests
    have no worker), each through the task edge (``webapp.tasks.celery.SovaTask``: committed when
    it returns, rolled back when it raises). Messages whose task name starts with a prefix in ``skip`` are only
    marked sent. Returns the task names run, in order."""
    import workers.tasks  # noqa: F401  (registers the tasks)
    from webapp.core.models import OutboxMessage, utcnow
    from webapp.extensions import db

    celery = app.extensions["celery"]
    ran = []
    while True:
        msgs = db.session.scalars(
            db.select(OutboxMessage)
            .where(OutboxMessage.sent_at.is_(None))
            .order_by(OutboxMessage.id)
        ).all()
        if not msgs:
            return ran
        for msg in msgs:
            task, args = msg.task, list(msg.args)
            msg.sent_at = utcnow()
            db.session.commit()
            if skip and task.startswith(skip):
                continue
            celery.tasks[task](*args)  # through the task edge: commits, or rolls back
            ran.append(task)


# --- a viewer's submission through the API -----------------------------------


def api_season(api, name: str, ruleset: str, **fields) -> int:
    """``POST /api/v1/seasons`` as the producer (``api`` is the fixture of
    tests/fixtures/users.py) → the new season's id; ``fields``: the other keys of the body
    (``currency``, ``unanswered_prize``, …)."""
    r = api(
        "post",
        "/api/v1/seasons",
        role="producer",
        json={"name": name, "ruleset": ruleset, **fields},
    )
    assert r.status_code == 201, r.json
    return r.json["id"]


def api_game(
    api, season_id: int, day: str, table: dict, kind: str = "qualifying", air_at: str | None = None
):
    """``POST /api/v1/games`` as the producer → the response (201 with the id, or the
    refusal the caller checks); ``table``: ``{"blitz", "superblitz", "sector13"}``;
    ``air_at``: the air time given with it (ISO 8601, the season's zone without an
    offset), else none (nothing of the game is published until one is given)."""
    body = {"season_id": season_id, "kind": kind, "date": day, "table": table}
    if air_at is not None:
        body["air_at"] = air_at
    return api("post", "/api/v1/games", role="producer", json=body)


def submission(n: int, **fields) -> dict:
    """A valid ``POST /api/v1/submissions`` body, unique by ``n`` (question text, author,
    e-mail, so no two are duplicates of each other); ``fields`` replace its keys."""
    body = {
        "question": f"Назовите город, где прошёл фестиваль номер {n}: {'слово ' * n}",
        "answer": "Ленинград",
        "authors": [{"name": f"Автор {n}", "city": "Минск"}],
        "email": f"author{n}@example.com",
        "consent": True,
        "sources": ["https://example.org/a"],
    }
    return {**body, **fields}


def submit(client, body: dict, expect: int | None = 201):
    """POST ``body`` to ``/api/v1/submissions`` with the Flask test ``client``. With
    ``expect`` (default 201) asserts that status and returns the JSON answer; with None
    returns the response unchecked (fault tests accept 201 or 503)."""
    resp = client.post("/api/v1/submissions", json=body)
    if expect is None:
        return resp
    assert resp.status_code == expect, resp.get_json()
    return resp.get_json()


# --- prizes: games played to the end, the commission, the payee --------------

# 6 right answers: the experts win 6:0. 6 wrong: the viewers win 0:6 (6 unanswered).
EXPERTS_WIN = [
    e
    for s in range(1, 7)
    for e in ({"type": "spin", "sector": s}, {"type": "answer", "correct": True})
]
VIEWERS_WIN = [
    e
    for s in range(1, 7)
    for e in ({"type": "spin", "sector": s}, {"type": "answer", "correct": False})
]

COMMISSION = [
    "Иванов И. И., председатель комиссии",
    "Петрова А. А., главный бухгалтер",
    "Сидоров П. П., юрист",
]

#: ``make_app`` overrides of the prizes tests: CSRF off, the prize commission's members;
#: the sources sign-off belongs to moderation, not tested there.
PRIZE_APP = {
    "WTF_CSRF_ENABLED": False,
    "SOVA_PRIZE_COMMISSION": COMMISSION,
    "SOVA_REQUIRE_SIGNOFF": False,
}

#: A Belarusian payee's details as the one-time form sends them.
BY_FORM = {
    "full_name": "Сапего Иван Петрович",
    "country": "BY",
    "passport_series": "mp",
    "passport_number": "7654321",
    "issued_by": "Первомайский РУВД г. Минска",
    "issued_on": "2015-06-01",
    "personal_number": "3010190a001pb9",
    "inn": "",
    "address": "г. Брест, ул. Тайная, д. 17, кв. 42",
    "iban": "BY13 NBRB 3600 9000 0000 2Z00 AB00",
    "account": "",
    "bik": "",
    "tax_status": "resident",
}


def scan_pdf() -> bytes:
    """A real one-page PDF (pypdf), standing in for the signed agreement's scan."""
    import io

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def give_details(prize, drain, **over) -> None:
    """The payee of ``prize`` sends their details (``BY_FORM`` with ``over``) through the
    one-time link (the agreement is re-issued with the address; ``drain`` renders it)."""
    from flask import current_app

    from webapp.prizes import payee
    from webapp.tasks.outbox import commit

    token = payee.request_details(prize, None)
    commit()
    with current_app.test_request_context():  # the form's messages are translated
        payee.submit_details(token, payee.PayeeInput(**{**BY_FORM, **over}))
    commit()
    drain()


#: Two more payees (Belarusian passports), for prizes that are signed: a prize is signed
#: only once its payee's details are received.
OTHER_PAYEES = [
    {
        "full_name": "Ковалёва Анна Сергеевна",
        "passport_number": "1234567",
        "personal_number": "4150385a002pb6",
        "iban": "BY86 AKBB 1010 0000 0029 6600 0000",
    },
    {
        "full_name": "Жуков Павел Олегович",
        "passport_number": "2345678",
        "personal_number": "3040280a003pb0",
        "iban": "BY20 OLMP 3135 0000 0010 0000 0933",
    },
]


def setup_prizes(api, played, drain) -> list[Prize]:
    """Eight prizes, in id order: the seven BYN question prizes of a closed 2023 game the
    viewers won 0:6 and a 2009 Crystal Owl of 300 000,00 RUB (drained: papers rendered)."""
    from webapp.extensions import db
    from webapp.prizes.models import Prize

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    rub = played("series_final", EXPERTS_WIN, ruleset="2009", unanswered_prize="41000.00")
    api(
        "post",
        f"/api/v1/games/{rub}/prizes",
        role="producer",
        json={
            "kind": "best_player_of_series",
            "recipient": "Ровшан Аскеров",
            "team": ["Ровшан Аскеров"],
        },
    )
    drain()
    prizes = db.session.scalars(db.select(Prize).order_by(Prize.id)).all()
    # 7 BYN question prizes (150,00 ×2 + 300,00 ×5) and the 2009 Crystal Owl 300 000,00.
    assert [str(p.amount) for p in prizes] == ["150.00", "150.00"] + ["300.00"] * 5 + ["300000.00"]
    return prizes


# --- an outage: the app's SQLite database made unreachable ---------------------


def break_database(app) -> Path:
    """Make the app's SQLite database unreachable; returns the moved file."""
    import shutil

    from webapp.extensions import db

    with app.app_context():
        path = Path(db.engine.url.database)
        db.engine.dispose()
    moved = path.with_suffix(".away")
    shutil.move(path, moved)
    path.mkdir()
    return moved


# --- a test app's state saved and restored (the ``played`` fixture's games) ------


def _sqlite_file(app) -> Path | None:
    """The SQLite database file of ``app``; None for another database."""
    from sqlalchemy.engine import make_url

    url = make_url(app.config["SQLALCHEMY_DATABASE_URI"])
    return Path(url.database) if url.get_backend_name() == "sqlite" and url.database else None


def _row_counts(path: Path) -> dict[str, int]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}  # noqa: S608
    conn.close()
    return counts


def sqlite_app_is_fresh(app, template: Path) -> bool:
    """Whether ``app`` runs on SQLite and every table holds as many rows as in the migrated
    ``template`` (nothing written yet)."""
    path = _sqlite_file(app)
    return path is not None and _row_counts(path) == _row_counts(template)


def _copy_sqlite(source: Path, target: Path) -> None:
    """Copy one SQLite database into another with SQLite's backup API (consistent, and
    safe while the target has other connections)."""
    import sqlite3

    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _app_folders(app, tmp_path: Path) -> dict[str, Path]:
    """The instance and documents folders of a test app, by their path under ``tmp_path``."""
    return {
        str(Path(app.config[name]).relative_to(tmp_path)): Path(app.config[name])
        for name in ("SOVA_INSTANCE_PATH", "SOVA_DOCUMENTS_PATH")
    }


def save_sqlite_app(app, folder: Path, tmp_path: Path) -> dict:
    """Save the state of a test app on SQLite into ``folder``: its database, its instance
    and documents folders (under ``tmp_path``) and its secrets. Returns what
    :func:`restore_sqlite_app` takes."""
    import shutil

    from webapp.extensions import db

    db.session.remove()
    folder.mkdir(parents=True)
    _copy_sqlite(_sqlite_file(app), folder / "db.sqlite")
    for relative, path in _app_folders(app, tmp_path).items():
        if path.is_dir():
            shutil.copytree(path, folder / "files" / relative)
    return {
        "folder": folder,
        "secrets": {k: app.config[k] for k in ("SECRET_KEY", "SOVA_ENCRYPTION_KEYS")},
    }


def restore_sqlite_app(app, saved: dict, tmp_path: Path, also: Sequence = ()) -> None:
    """Put the state :func:`save_sqlite_app` saved into ``app`` (same settings, another
    ``tmp_path``): the database's rows, the folders' files, the secrets they were made with.
    The apps in ``also`` that share ``app``'s database file (a live server made before the
    game was restored) get the same secrets: without them its links and sessions, signed
    with the restored secret key, would not verify there."""
    import shutil

    from webapp.extensions import db

    db.session.remove()
    _copy_sqlite(saved["folder"] / "db.sqlite", _sqlite_file(app))
    for relative in _app_folders(app, tmp_path):
        source = saved["folder"] / "files" / relative
        if source.is_dir():
            shutil.copytree(source, tmp_path / relative, dirs_exist_ok=True)
    database = _sqlite_file(app)
    for other in {id(a): a for a in (app, *also)}.values():
        if other is app or _sqlite_file(other) == database:
            other.config.update(saved["secrets"])


def celery_worker(env: dict, log) -> subprocess.Popen:
    """A real Celery worker process (solo pool, INFO log to ``log``, an open file) of the
    checkout's ``workers.app`` with the deployed flags (``webapp.tasks.celery.WORKER_FLAGS``), in
    its own session so a test can stop its whole group."""
    from webapp.tasks.celery import WORKER_FLAGS

    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            *WORKER_FLAGS,
        ],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )


# --- the wheel, installed the way services are deployed ----------------------


def install_wheel(tmp: Path) -> tuple[Path, Path]:
    """Build Sova's wheel from this checkout (``uv build``: sdist, then the wheel from it, as
    a registry would) into ``tmp/dist`` and install it with ``requirements/runtime.lock``
    (hashes checked) into a new virtual environment ``tmp/venv``, outside the checkout.

    Returns ``(venv, wheel)`` (paths). Raises ``RuntimeError`` when uv (a dev dependency)
    is missing or a step fails (its command and the end of its output in the message).
    Needs PyPI for the build backend and any wheel not yet in uv's cache (about a minute
    with a warm cache)."""
    import shutil

    root = Path(__file__).resolve().parents[1]
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        raise RuntimeError("uv is not installed (it is in the dev lock: make install)")

    def run(*args: str) -> None:
        done = subprocess.run(args, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"{args}: {done.stdout[-3000:]} {done.stderr[-3000:]}")

    dist, venv = tmp / "dist", tmp / "venv"
    run(uv, "build", "--quiet", "--out-dir", str(dist), str(root))
    (wheel,) = dist.glob("sova-*.whl")
    run(uv, "venv", "--quiet", "--python", sys.executable, str(venv))
    python = str(venv / "bin" / "python")
    lock = str(root / "requirements" / "runtime.lock")
    run(uv, "pip", "install", "--quiet", "--python", python, "--require-hashes", "-r", lock)
    run(uv, "pip", "install", "--quiet", "--python", python, "--no-deps", str(wheel))
    return venv, wheel


# --- packet images -------------------------------------------------------------

#: The real Kubok packet of ../shared (it refers to seven image files, none of which is kept
#: there) and a distinct size for each of its images, in packet order.
KUBOK = "data/chgk/alexander-pecheny__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon"
KUBOK_PREFIX = "Kubok_knyagini_Olgi-2015_"
KUBOK_IMAGES = {
    f"{KUBOK_PREFIX}001.png": (60, 30),
    f"{KUBOK_PREFIX}001.jpeg": (64, 32),
    f"{KUBOK_PREFIX}002.jpeg": (68, 34),
    f"{KUBOK_PREFIX}003.jpeg": (72, 36),
    f"{KUBOK_PREFIX}004.jpeg": (76, 38),
    f"{KUBOK_PREFIX}002.png": (80, 40),
    f"{KUBOK_PREFIX}003.png": (84, 42),
}


def image_bytes(name: str, size: tuple[int, int] | None = None) -> bytes:
    """A plain image in the format its ``name`` says (PNG, else JPEG) of ``size`` (default
    ``KUBOK_IMAGES[name]``)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    fmt = "PNG" if name.endswith(".png") else "JPEG"
    Image.new("RGB", size or KUBOK_IMAGES[name], (30, 120, 200)).save(buf, format=fmt)
    return buf.getvalue()


def kubok_images(folder, skip: str | None = None):
    """Write the Kubok packet's images (but ``skip``) into the new folder ``folder``
    (a ``pathlib.Path``); returns it."""
    folder.mkdir()
    for name in KUBOK_IMAGES:
        if name != skip:
            (folder / name).write_bytes(image_bytes(name))
    return folder


# --- processes the tests start -------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate, timeout: float = 60, what: str = "condition", every: float = 0.2):
    """Call ``predicate`` every ``every`` seconds until it returns a truthy value, and return
    that value; AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def disposition(name: str, kind: str = "inline") -> str:
    """The exact ``Content-Disposition`` sent for a non-ASCII ``name``: the transliterated
    plain ``filename`` fallback, the whole name in ``filename*``."""
    from urllib.parse import quote

    from webapp.core.filenames import ascii_name

    simple = ascii_name(name)
    quoted = quote(name, safe="!#$&+-.^_`|~")
    return f"{kind}; filename=\"{simple}\"; filename*=UTF-8''{quoted}"


def descendants(pid: int) -> set[int]:
    """Every live or zombie process below ``pid`` (Linux's ``/proc``)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, todo = set(), [pid]
    while todo:
        here = todo.pop()
        kids = {p for p, pp in parents.items() if pp == here}
        todo += list(kids - found)
        found |= kids
    return found


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is not a zombie; Linux's ``/proc``)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
