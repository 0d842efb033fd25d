"""The queue's CSV and XLSX, as the request streams them and as the worker writes them, are
the files the straightforward way makes: each question and its newest report loaded as ORM
objects (every JSON column decoded by its type), the rows built cell by cell, the time by
``strftime``, the XLSX by the sheet writer (``webapp.core.spreadsheet.XlsxSheet``) a row at
a time, the date cell's format given with every row. Byte for byte: the whole CSV, and the
XLSX's sheet and styles (the zip's other parts carry the time of writing)."""

from __future__ import annotations

import csv
import io
import zipfile
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import update

from tests.scale_data import add_questions
from tests.webapp.moderation import pages
from webapp.accounts.models import User
from webapp.core.spreadsheet import (
    BOM,
    XlsxSheet,
    csv_writer,
    decimal_comma,
    safe_row,
    xlsx_workbook,
)
from webapp.extensions import db
from webapp.moderation import queries
from webapp.moderation.export import QUEUE_COLUMNS, RECEIVED_FORMAT
from webapp.moderation.export_jobs import job_path, request_export, run_export
from webapp.moderation.models import PRECHECK_VERSION, ModerationReport
from webapp.moderation.operations.common import CHECK_LABELS, status_label
from webapp.submissions.models import CHANNEL_LABELS, Question
from webapp.tasks.outbox import commit


def reference_rows(f: queries.QueueFilter, zone: str, xlsx: bool) -> list[list]:
    """The queue's rows the straightforward way (ORM objects, decoded JSON)."""
    tz = ZoneInfo(zone)
    questions = db.session.scalars(queries.queue_statement(f).with_only_columns(Question)).all()
    reports = {
        r.question_id: r
        for r in db.session.scalars(db.select(ModerationReport).order_by(ModerationReport.version))
    }
    rows = []
    for q in questions:
        r = reports.get(q.id)
        failed, score = "", ""
        if r is not None:
            failed = "; ".join(
                CHECK_LABELS.get(c["name"], c["name"]) for c in r.checks if not c["ok"]
            )
            score = r.duplicates[0]["score"] if r.duplicates else ""
        local = q.created_at.astimezone(tz)
        rows.append(
            [
                q.id,
                status_label(q.status),
                CHANNEL_LABELS.get(q.channel, q.channel),
                local.replace(second=0, microsecond=0, tzinfo=None)
                if xlsx
                else local.strftime("%d.%m.%Y %H:%M"),
                q.text,
                q.answer,
                q.accepted or "",
                q.rejected or "",
                q.comment or "",
                "\n".join(q.sources or []),
                q.handout or "",
                failed,
                score,
            ]
        )
    return rows


def reference_csv(rows: list[list]) -> bytes:
    buf = io.StringIO()
    writer = csv_writer(buf)
    writer.writerow(QUEUE_COLUMNS)
    for row in rows:
        row = [decimal_comma(v) if isinstance(v, float | Decimal) else v for v in row]
        row[4:11] = safe_row(row[4:11])
        writer.writerow(row)
    return (BOM + buf.getvalue()).encode("utf-8")


def reference_xlsx(rows: list[list]) -> bytes:
    out = io.BytesIO()
    with xlsx_workbook(out) as wb:
        sheet = XlsxSheet(wb, "Очередь")
        sheet.append(list(QUEUE_COLUMNS))
        for row in rows:
            sheet.append(row, {3: sheet.format(num_format=RECEIVED_FORMAT)})
    return out.getvalue()


def xlsx_parts(data: bytes) -> dict[str, bytes]:
    """The sheet and the styles of an XLSX file, as stored."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in ("xl/worksheets/sheet1.xml", "xl/styles.xml")}


def make_varied_queue() -> list[int]:
    """420 generated questions (a report on every third: failed checks, duplicate scores,
    formula-looking and error-code texts, sources and none), and on a few reports what
    the generator does not make: an older version beside the newest, a passed check whose
    message says «false», two failed checks, an unknown check name, a whole-number score,
    sources stored as JSON null."""
    ids = add_questions(420, seed=9)
    reports = {
        r.question_id: r
        for r in db.session.scalars(
            db.select(ModerationReport).where(ModerationReport.question_id.in_(ids))
        )
    }
    with_report = sorted(reports)
    r = reports[with_report[0]]
    db.session.add(
        ModerationReport(
            question_id=r.question_id,
            version=PRECHECK_VERSION - 1,
            checks=[{"name": "length", "ok": False, "message": "old"}],
            duplicates=[{"question_id": 2, "score": 99.0, "status": "approved"}],
        )
    )
    reports[with_report[1]].checks = [
        {"name": "sources_present", "ok": True, "message": "false alarm: «false»"}
    ]
    reports[with_report[2]].checks = [
        {"name": "sources_present", "ok": False, "message": ""},
        {"name": "answer_leak", "ok": True, "message": ""},
        {"name": "no_such_check", "ok": False, "message": "x"},
        {"name": "reading_time", "ok": False, "message": "", "seconds": 41.5},
    ]
    reports[with_report[3]].duplicates = [
        {"question_id": 1, "score": 100, "status": "archived"},
        {"question_id": 3, "score": 64.25, "status": "approved"},
    ]
    db.session.execute(update(Question).where(Question.id.in_(ids[5:9])).values(sources=None))
    commit()
    return ids


def check_same_files(app, client) -> None:
    """The streamed CSV and XLSX of «Все, кроме архива» and the worker's files are the
    reference files."""
    zone = app.config["SOVA_TIMEZONE"]
    f = queries.QueueFilter(status=None)
    listed = client.get("/editor/queue?status=").get_data(as_text=True)
    streamed_csv = client.get(pages.link(listed, "CSV")).get_data()
    streamed_xlsx = client.get(pages.link(listed, "XLSX")).get_data()
    rows = reference_rows(f, zone, xlsx=False)
    assert len(rows) == 368  # the archived eighth left out
    assert streamed_csv == reference_csv(rows)
    # and the file holds what the fixture made unusual
    text = streamed_csv.decode("utf-8-sig")
    parsed = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert "источники; no_such_check; время чтения" in {row[11] for row in parsed[1:]}
    assert {row[12] for row in parsed[1:]} >= {"", "100", "56,5"}
    assert xlsx_parts(streamed_xlsx) == xlsx_parts(reference_xlsx(reference_rows(f, zone, True)))
    editor = db.session.scalar(db.select(User.id).filter_by(role="editor"))
    for fmt, reference in (("csv", streamed_csv), ("xlsx", streamed_xlsx)):
        job = request_export(editor, fmt, f, f"q.{fmt}")
        commit()
        job = run_export(job.id)
        commit()
        written = job_path(job).read_bytes()
        if fmt == "csv":
            assert written == reference
        else:
            assert xlsx_parts(written) == xlsx_parts(reference)


def test_the_streamed_and_the_worker_files_are_the_reference_files(app, login):
    make_varied_queue()
    check_same_files(app, login("editor"))


@pytest.mark.integration
def test_on_postgresql_too(pg_app):
    """PostgreSQL hands the JSON columns' text as it stores them: the same files."""
    from webapp.accounts.operations import create_user

    make_varied_queue()
    create_user("pg-editor@test.local", "editor", password="pg-editor-pw")
    commit()
    client = pg_app.test_client()
    resp = client.post("/login", data={"email": "pg-editor@test.local", "password": "pg-editor-pw"})
    assert resp.status_code == 302
    check_same_files(pg_app, client)
