"""The queue's exports too large for a request: the editor presses the queue page's button,
follows the progress page, downloads the file the worker wrote and opens it; the file is
what the screen lists (the same file the request would have streamed); only the editor who
asked (and a chief editor) may download it; it expires. The XLSX «Получен» is a date
cell. ``SOVA_EXPORT_INLINE_ROWS`` is set small, so a handful of questions is «large»."""

from __future__ import annotations

import csv
import io
import re
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from openpyxl import load_workbook
from sqlalchemy import event
from sqlalchemy.orm import Session

from tests.helpers import drain_outbox
from tests.query_count import statements
from tests.webapp.moderation import pages
from tests.webapp.moderation.queue_data import make, pg_editor_queue
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.export_jobs import job_path
from webapp.moderation.models import ExportJob, ModerationReport
from webapp.submissions.models import Question
from webapp.tasks.outbox import commit

TEXTS = [
    ("Какой город основал Ярослав Мудрый на Волге в XI веке?", "Ярославль", "web", 9),
    ("Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.", "Двина", "mail", 8),
    (
        "Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?",
        "Бородин",
        "web",
        7,
    ),
    ("Какая река Европы длиннее всех и впадает в Каспийское море?", "Волга", "import", 6),
    ("В каком городе на Волге стоит кремль, построенный при Иване Грозном?", "Казань", "mail", 5),
    ("Замок какого рода стоит в Несвиже и внесён в список ЮНЕСКО?", "Радзивиллов", "web", 4),
    ("Какой замок под Кореличами внесён в список ЮНЕСКО вместе с Несвижем?", "Мирский", "web", 3),
]


@pytest.fixture
def app(make_app):
    """The app with at most 3 rows streamed in a request: more go to the worker."""
    app = make_app(WTF_CSRF_ENABLED=False, SOVA_EXPORT_INLINE_ROWS=3)
    with app.app_context():
        yield app


@pytest.fixture
def seven(app):
    made = [make(text, answer, "Минск", channel, days) for text, answer, channel, days in TEXTS]
    made[1].comment = "=1+1"  # a formula-looking comment stays text
    commit()
    return [q.id for q in made]


def _rows(data: bytes, fmt: str) -> list[list]:
    if fmt == "csv":
        return list(csv.reader(io.StringIO(data.decode("utf-8-sig")), delimiter=";"))
    ws = load_workbook(io.BytesIO(data))["Очередь"]
    return [[c.value for c in row] for row in ws.iter_rows()]


def _ask(client, query: str, fmt: str):
    """The queue page for ``query``, its «Подготовить …» form for ``fmt`` submitted: the
    progress page's URL."""
    page = client.get("/editor/queue?" + query).get_data(as_text=True)
    assert [t for t, _ in pages.parse(page).links if t in ("CSV", "XLSX")] == []
    assert "строк: файл подготовит сервер в фоне" in page
    form = pages.form(page, **{"data-export": fmt})
    assert form["method"] == "post" and dict(form["fields"])["fmt"] == fmt
    resp = client.post(form["action"], data=dict(form["fields"]))
    assert resp.status_code == 302
    return resp.headers["Location"]


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_a_large_export_through_the_page_the_worker_and_the_link(app, seven, login, client, fmt):
    """The button, the progress page (a bar at 0 of the rows, refreshing itself), the task,
    the progress page with its link, the file: the screen's rows in the screen's order,
    the same file as the request streams when the limit allows it."""
    client = login("editor")
    query = "status=&sort=newest"
    shown, _page = pages.screen(client, query)
    assert len(shown) == 7
    progress = _ask(client, query, fmt)
    assert re.fullmatch(r"/editor/exports/\d+", progress)
    page = client.get(progress).get_data(as_text=True)
    assert '<progress id="export-progress" max="1" value="0">' in page
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert "Выгрузка в очереди сервера." in page and "export.js" in page
    status = client.get(progress + "/status").get_json()
    assert status == {"status": "pending", "done": 0, "total": None, "percent": 0, "download": None}

    assert drain_outbox(app, skip=("moderation.precheck",)) == ["moderation.export_queue"]
    page = client.get(progress).get_data(as_text=True)
    assert "Файл готов, строк: 7." in page and "refresh" not in page
    href = pages.link(page, "Скачать файл")
    assert client.get(progress + "/status").get_json() == {
        "status": "ready",
        "done": 7,
        "total": 7,
        "percent": 100,
        "download": href,
    }
    resp = client.get(href)
    assert resp.status_code == 200
    assert "Очередь вопросов — все, кроме архива — " in resp.headers["Content-Disposition"] or (
        "filename*=UTF-8''" in resp.headers["Content-Disposition"]
    )
    rows = _rows(resp.get_data(), fmt)
    assert [int(r[0]) for r in rows[1:]] == shown
    assert (
        resp.headers["Content-Type"]
        == {
            "csv": "text/csv; charset=utf-8",
            "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        }[fmt]
    )
    # the file on the server is the asking editor's business only, as uploads and documents
    (written,) = (Path(app.config["SOVA_INSTANCE_PATH"]) / "exports").iterdir()
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    for row in rows[1:]:
        q = db.session.get(Question, int(row[0]))
        assert (row[4], row[5]) == (q.text, q.answer)

    # the same rows, cell for cell, as the request streams them when the limit allows it
    app.config["SOVA_EXPORT_INLINE_ROWS"] = 100
    page = client.get("/editor/queue?" + query).get_data(as_text=True)
    streamed = client.get(pages.link(page, fmt.upper()))
    assert streamed.status_code == 200
    assert _rows(streamed.get_data(), fmt) == rows
    if fmt == "csv":
        assert streamed.get_data() == resp.get_data()


def test_the_progress_moves_while_the_worker_writes(app, seven, login, client, monkeypatch):
    """Batches of 2 rows: what another connection reads after each of the task's commits
    is the rows written so far of all."""
    monkeypatch.setattr(queries, "EXPORT_BATCH", 2)
    client = login("editor")
    progress = _ask(client, "status=", "xlsx")
    job_id = int(progress.rsplit("/", 1)[1])
    seen = []

    def read(_session):
        with db.engine.connect() as conn:
            row = conn.execute(
                db.select(ExportJob.status, ExportJob.done, ExportJob.total).where(
                    ExportJob.id == job_id
                )
            ).one()
        seen.append(tuple(row))

    event.listen(Session, "after_commit", read)
    try:
        drain_outbox(app, skip=("moderation.precheck",))
    finally:
        event.remove(Session, "after_commit", read)
    progress_seen = [s for s in seen if s[0] == "running"]
    assert progress_seen == [
        ("running", 0, 7),
        ("running", 2, 7),
        ("running", 4, 7),
        ("running", 6, 7),
        ("running", 7, 7),
    ]
    assert seen[-1] == ("ready", 7, 7)


def test_only_the_editor_who_asked_and_a_chief_editor_download(app, seven, staff):
    """Another editor: 404 on the page, the status and the file; a producer: 403; a chief
    editor downloads it."""
    from flask import g

    from webapp.accounts.operations import create_user

    create_user("other-editor@test.local", "editor", password="other-editor-pw")
    commit()
    clients = {}

    def as_(who):
        g.pop("_login_user", None)  # the test's app context is shared: flask-login caches here
        return clients[who]

    for who, email in [
        ("editor", "editor@test.local"),
        ("other", "other-editor@test.local"),
        ("chief", "chief_editor@test.local"),
        ("producer", "producer@test.local"),
    ]:
        login = email.split("@")[0]
        if who != "other":
            staff(login)
        clients[who] = app.test_client()
        resp = as_(who).post("/login", data={"email": email, "password": f"{login}-pw"})
        assert resp.status_code == 302
    progress = _ask(as_("editor"), "status=", "csv")
    drain_outbox(app, skip=("moderation.precheck",))
    href = pages.link(as_("editor").get(progress).get_data(as_text=True), "Скачать файл")
    assert as_("editor").get(href).status_code == 200
    for url in (progress, progress + "/status", href):
        assert as_("other").get(url).status_code == 404
        assert as_("producer").get(url).status_code == 403
    resp = as_("chief").get(href)
    assert resp.status_code == 200 and len(_rows(resp.get_data(), "csv")) == 8


def test_the_file_has_a_generated_name_and_expires(app, seven, login, client):
    """The file lives under the instance folder by a generated name; the hourly beat task
    deletes it once expired (the page says so, the link is gone, the file is 404); a
    second run of the export task leaves the ready file as it was."""
    client = login("editor")
    progress = _ask(client, "status=", "xlsx")
    drain_outbox(app, skip=("moderation.precheck",))
    job = db.session.scalars(db.select(ExportJob)).one()
    path = job_path(job)
    assert re.fullmatch(r"[0-9a-f]{32}\.xlsx", path.name) and path.is_file()
    assert str(path).startswith(app.config["SOVA_INSTANCE_PATH"])
    data, mtime = path.read_bytes(), path.stat().st_mtime_ns

    celery = app.extensions["celery"]
    assert celery.tasks["moderation.export_queue"](job.id) == "ready"  # idempotent
    assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime
    href = pages.link(client.get(progress).get_data(as_text=True), "Скачать файл")

    assert celery.tasks["moderation.purge_exports"]() == 0  # not expired yet
    assert path.is_file()
    job = db.session.get(ExportJob, job.id)
    job.expires_at = datetime.now(UTC) - timedelta(minutes=1)
    commit()
    assert celery.tasks["moderation.purge_exports"]() == 1
    assert not path.exists()
    db.session.expire_all()
    assert db.session.get(ExportJob, job.id).status == "expired"
    page = client.get(progress).get_data(as_text=True)
    assert "Срок хранения файла истёк" in page and "Скачать файл" not in page
    assert client.get(href).status_code == 404


def test_a_direct_export_link_past_the_limit_sends_to_the_button(app, seven, login, client):
    """An old link to the streamed export of more rows than the limit: back to the queue
    with the message, no file."""
    client = login("editor")
    resp = client.get("/editor/export.csv?status=")
    assert resp.status_code == 302 and resp.headers["Location"] == "/editor/queue?status="
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "В выгрузке больше 3 строк: подготовьте файл в фоне" in page
    # within the limit the link streams as before
    assert client.get("/editor/export.csv?status=&channel=import").status_code == 200


def test_a_form_without_a_format_goes_back_to_the_queue(app, seven, login, client):
    client = login("editor")
    resp = client.post("/editor/exports?status=", data={"fmt": "pdf"})
    assert resp.status_code == 302 and resp.headers["Location"] == "/editor/queue?status="
    assert db.session.scalars(db.select(ExportJob)).all() == []


def test_the_xlsx_received_is_a_date_cell_in_the_pages_zone(app, login, client):
    """«Получен» is a datetime cell (the pages' minute in SOVA_TIMEZONE, shown
    dd.mm.yyyy hh:mm), the number and the duplicate score are numbers."""
    q = make(*TEXTS[0][:2], "Минск", "web")
    q.created_at = datetime(2023, 3, 4, 12, 0, 41, tzinfo=UTC)  # 15:00 in Minsk
    report = db.session.scalars(db.select(ModerationReport).filter_by(question_id=q.id)).one()
    report.duplicates = [{"question_id": 1, "score": 87.5, "status": "approved"}]
    commit()
    client = login("editor")
    page = client.get("/editor/queue").get_data(as_text=True)
    ws = load_workbook(io.BytesIO(client.get(pages.link(page, "XLSX")).get_data()))["Очередь"]
    row = next(ws.iter_rows(min_row=2))
    assert row[0].value == q.id and row[0].data_type == "n"
    assert row[3].value == datetime(2023, 3, 4, 15, 0) and row[3].is_date
    assert row[3].number_format == "dd.mm.yyyy hh:mm"
    assert row[12].value == 87.5 and row[12].data_type == "n"
    text = client.get(pages.link(page, "CSV")).get_data().decode("utf-8-sig")
    row = list(csv.reader(io.StringIO(text), delimiter=";"))[1]
    assert row[3] == "04.03.2023 15:00"


@pytest.mark.integration
def test_the_worker_export_on_postgresql(pg_app, monkeypatch):
    """On PostgreSQL, in batches of 500 with the progress committed between them: 1 313 of
    1 500 questions listed, every one once, in the queue's order."""
    monkeypatch.setattr(queries, "EXPORT_BATCH", 500)
    pg_app.config["SOVA_EXPORT_INLINE_ROWS"] = 1000
    client, expected = pg_editor_queue(pg_app)
    progress = _ask(client, "status=", "csv")
    assert drain_outbox(pg_app, skip=("moderation.precheck",)) == ["moderation.export_queue"]
    href = pages.link(client.get(progress).get_data(as_text=True), "Скачать файл")
    rows = _rows(client.get(href).get_data(), "csv")
    assert [int(r[0]) for r in rows[1:]] == expected


def test_a_ready_job_whose_file_is_gone_says_so_and_a_new_run_writes_it(app, seven, login, client):
    """A restored backup holds no exports: the page says the file is gone (no link, the
    file 404); the task run again (its message redelivered) writes it anew."""
    client = login("editor")
    progress = _ask(client, "status=", "csv")
    drain_outbox(app, skip=("moderation.precheck",))
    job = db.session.scalars(db.select(ExportJob)).one()
    href = pages.link(client.get(progress).get_data(as_text=True), "Скачать файл")
    data = client.get(href).get_data()
    job_path(job).unlink()
    page = client.get(progress).get_data(as_text=True)
    assert "Срок хранения файла истёк" in page and "Скачать файл" not in page
    assert client.get(progress + "/status").get_json()["status"] == "expired"
    assert client.get(href).status_code == 404
    assert app.extensions["celery"].tasks["moderation.export_queue"](job.id) == "ready"
    assert client.get(href).get_data() == data


def test_past_the_pages_count_both_exports_are_offered_and_the_click_decides(
    app, seven, login, client, monkeypatch
):
    """More questions than the queue page counts (its cap, here 2) and a limit above the
    cap (5): the page does not count on to the limit (tens of thousands of rows on every
    page) but offers the streamed links and the worker's buttons; the streamed export
    decides at the click: the file within the limit, else back to the buttons."""
    monkeypatch.setattr(queries, "COUNT_CAP", 2)
    app.config["SOVA_EXPORT_INLINE_ROWS"] = 5
    client = login("editor")
    with statements(db.engine) as sent:
        page = client.get("/editor/queue?status=").get_data(as_text=True)
    # one count, up to the cap: none on to the limit
    assert sum("count(" in sql.lower() for sql in sent) == 1
    assert [t for t, _ in pages.parse(page).links if t in ("CSV", "XLSX")] == ["CSV", "XLSX"]
    assert "Если в выгрузке больше 5 строк, файл подготовит сервер в фоне." in page
    assert pages.form(page, **{"data-export": "csv"})["method"] == "post"
    # seven questions: more than five, so the click sends back to the buttons
    resp = client.get("/editor/export.csv?status=")
    assert resp.status_code == 302 and resp.headers["Location"] == "/editor/queue?status="
    # four of «web» (within the limit): the file
    resp = client.get("/editor/export.csv?status=&channel=web")
    assert resp.status_code == 200 and len(_rows(resp.get_data(), "csv")) == 1 + 4
