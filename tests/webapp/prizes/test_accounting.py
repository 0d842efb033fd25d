"""Payment register (XLSX read back with openpyxl, CSV), the bank's paid list import and
the producer's dashboard."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import openpyxl

from webapp.extensions import db
from webapp.jobs import commit
from webapp.prizes import payee
from webapp.prizes.models import PersonalDataAccess, Prize
from webapp.prizes.operations import mark_paid, mark_signed

from .conftest import EXPERTS_WIN, VIEWERS_WIN
from .test_payee import BY_FORM


def setup_prizes(api, played, drain) -> list[Prize]:
    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    rub = played("series_final", EXPERTS_WIN, ruleset="2009", unanswered_prize="41000.00")
    api("post", f"/api/v1/games/{rub}/prizes", role="producer", json={
        "kind": "best_player_of_series", "recipient": "Ровшан Аскеров",
        "team": ["Ровшан Аскеров"]})
    drain()
    prizes = db.session.scalars(db.select(Prize).order_by(Prize.id)).all()
    # 7 BYN question prizes (150,00 ×2 + 300,00 ×5) and the 2009 Crystal Owl 300 000,00.
    assert [str(p.amount) for p in prizes] == ["150.00", "150.00"] + ["300.00"] * 5 + [
        "300000.00"]
    return prizes


def test_register_xlsx_and_csv_with_totals(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    token = payee.request_details(prizes[0], None)
    commit()
    payee.submit_details(token, payee.PayeeInput(**BY_FORM))
    commit()
    drain()
    db.session.expire_all()
    p0, p1, p2 = (db.session.get(Prize, p.id) for p in prizes[:3])
    for p in (p0, p1, p2):
        mark_signed(p, b"%PDF-1.4", "s.pdf", None)
    mark_paid(p0, date(2024, 2, 1), "п/п 1", None)
    mark_paid(p1, date(2024, 3, 5), "п/п 2", None)  # outside the period
    commit()
    client = login("accountant")
    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=xlsx")
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == \
        'attachment; filename="reestr-2024-02-01-2024-02-29.xlsx"'
    ws = openpyxl.load_workbook(io.BytesIO(r.data)).active
    rows = [list(row) for row in ws.iter_rows(values_only=True)]
    assert rows[0][0] == "Реестр выплат призов за 01.02.2024–29.02.2024"
    assert rows[1][:6] == ["№", "Договор", "Получатель", "Приз", "Основание", "Сумма"]
    body = rows[2:]
    assert [(r[1], r[2], Decimal(str(r[5])), r[6], r[7], r[9], r[10]) for r in body[:2]] == [
        ("2023-0001", "Сапего Иван Петрович", Decimal("150.00"), "BYN", "paid", "п/п 1",
         "BY13NBRB3600900000002Z00AB00"),
        ("2023-0003", "Автор 2", Decimal("300.00"), "BYN", "signed", None, None),
    ]
    assert body[0][8].date() == date(2024, 2, 1)
    assert [(r[2], Decimal(str(r[5])), r[6]) for r in body[2:]] == [
        ("Итого BYN", Decimal("450.00"), "BYN")]
    exports = db.session.scalars(db.select(PersonalDataAccess).where(
        PersonalDataAccess.action == "export")).all()
    assert [(e.prize_id, e.detail) for e in exports] == [
        (p0.id, "реестр 2024-02-01…2024-02-29")]
    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=csv")
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeff")
    lines = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert lines[1][1:8] == ["2023-0001", "Сапего Иван Петрович",
                             "Приз автору неотвеченного вопроса",
                             "000_90d7c8192601ed3a.txt §4.11.1", "150,00", "BYN", "paid"]
    assert lines[-1][2:7] == ["Итого BYN", "", "", "450,00", "BYN"]
    bad = client.get("/prizes/register?start=2024-03-01&end=2024-02-01&format=csv")
    assert bad.status_code == 200 and "Начало периода позже его конца." in bad.text
    assert login("producer").get("/prizes/register").status_code == 403


def test_import_bank_paid_list_all_or_nothing(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    for p in prizes[:2]:
        mark_signed(p, b"%PDF-1.4", "s.pdf", None)
    commit()
    client = login("accountant")

    def upload(content: str, encoding="utf-8"):
        return client.post("/prizes/register/import", data={
            "paid_list": (io.BytesIO(content.encode(encoding)), "paid.csv")},
            content_type="multipart/form-data", follow_redirects=True)

    wrong = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n"
                   "2023-0002;151,00;01.02.2024;12\n2023-0003;300,00;01.02.2024;13\n"
                   "2023-9999;1,00;01.02.2024;14\n")
    assert "Ничего не отмечено" in wrong.text
    assert "строка 3: сумма 151,00 не равна сумме договора 2023-0002 (150,00)" in wrong.text
    assert "строка 5: договор 2023-9999 не найден" in wrong.text
    assert "строка 4: приз" in wrong.text  # 2023-0003 is not signed
    db.session.expire_all()
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)
                             .where(Prize.status == "paid")) == 0
    ok = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n"
                "2023-0002;150,00;2024-02-02;12\n", encoding="cp1251")
    assert "Отмечено оплаченными: 2." in ok.text
    again = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n")
    assert "Отмечено оплаченными: 0." in again.text
    db.session.expire_all()
    paid = db.session.scalars(db.select(Prize).where(Prize.status == "paid")
                              .order_by(Prize.id)).all()
    assert [(p.paid_on, p.payment_reference) for p in paid] == [
        (date(2024, 2, 1), "11"), (date(2024, 2, 2), "12")]


def test_dashboard_counts_and_overdue(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    mark_signed(prizes[0], b"%PDF-1.4", "s.pdf", None)
    mark_signed(prizes[1], b"%PDF-1.4", "s.pdf", None)
    mark_paid(prizes[1], date(2024, 1, 1), "1", None)
    commit()
    from webapp.prizes.queries import dashboard, overdue

    rows = dashboard()
    assert [(r["season"], r["owed"], r["issued"], r["signed"], r["paid"], r["unpaid"])
            for r in rows] == [
        ("Сезон 2023", 0, 5, 1, 1, {"BYN": Decimal("1650.00")}),
        ("Сезон 2009", 1, 0, 0, 0, {"RUB": Decimal("300000.00")})]
    from datetime import timedelta

    from webapp.core.models import utcnow

    assert len(overdue(30, now=utcnow() + timedelta(days=31))) == 7
    assert overdue(30) == []
    page = login("producer").get("/prizes/dashboard")
    assert page.status_code == 200 and "1650,00 BYN" in page.text
