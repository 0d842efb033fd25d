"""Payment register (XLSX read back with openpyxl, CSV), the bank's paid list import and
the producer's dashboard."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime
from decimal import Decimal

import markupsafe
import openpyxl
from werkzeug.http import parse_options_header

from tests.forms import page_forms
from tests.helpers import OTHER_PAYEES, give_details, scan_pdf, setup_prizes
from webapp.extensions import db
from webapp.prizes.models import PersonalDataAccess, Prize
from webapp.prizes.operations import mark_paid, mark_signed
from webapp.tasks.outbox import commit


def test_register_xlsx_and_csv_with_totals(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    give_details(prizes[0], drain)
    give_details(prizes[1], drain, **OTHER_PAYEES[0])
    give_details(prizes[2], drain, **OTHER_PAYEES[1])
    db.session.expire_all()
    p0, p1, p2 = (db.session.get(Prize, p.id) for p in prizes[:3])
    for p in (p0, p1, p2):
        mark_signed(p, scan_pdf(), "s.pdf", None)
    mark_paid(p0, date(2024, 2, 1), "п/п 1", None)
    mark_paid(p1, date(2024, 3, 5), "п/п 2", None)  # outside the period
    commit()
    client = login("accountant")
    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=xlsx")
    assert r.status_code == 200
    assert parse_options_header(r.headers["Content-Disposition"]) == (
        "attachment",
        {"filename": "Реестр выплат — 2024-02-01 — 2024-02-29.xlsx"},
    )
    ws = openpyxl.load_workbook(io.BytesIO(r.data)).active
    rows = [list(row) for row in ws.iter_rows(values_only=True)]
    assert rows[0][0] == "Реестр выплат призов за 01.02.2024–29.02.2024"
    assert rows[1][:6] == ["№", "Договор", "Получатель", "Приз", "Основание", "Сумма"]
    body = rows[2:]
    # the clause and the status as the PDF prints them, not the file name/code
    assert [r[4] for r in body[:2]] == ["п. 4.11.1 (2023)", "п. 4.11.1 (2023)"]
    assert [(r[1], r[2], Decimal(str(r[5])), r[6], r[7], r[9], r[10]) for r in body[:2]] == [
        (
            "2023-0001",
            "Сапего Иван Петрович",
            Decimal("150.00"),
            "BYN",
            "выплачен",
            "п/п 1",
            "BY13NBRB3600900000002Z00AB00",
        ),
        (
            "2023-0003",
            "Жуков Павел Олегович",
            Decimal("300.00"),
            "BYN",
            "договор подписан",
            None,
            "BY20OLMP31350000001000000933",
        ),
    ]
    assert body[0][8].date() == date(2024, 2, 1)
    assert [(r[2], Decimal(str(r[5])), r[6]) for r in body[2:]] == [
        ("Итого BYN", Decimal("450.00"), "BYN")
    ]
    exports = db.session.scalars(
        db.select(PersonalDataAccess).where(PersonalDataAccess.action == "export")
    ).all()
    assert [(e.prize_id, e.detail) for e in exports] == [
        (p0.id, "реестр 2024-02-01…2024-02-29"),
        (p2.id, "реестр 2024-02-01…2024-02-29"),
    ]
    r = client.get("/prizes/register?start=2024-02-01&end=2024-02-29&format=csv")
    assert r.headers["Content-Type"] == "text/csv; charset=utf-8"
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeff")
    lines = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert lines[1][1:8] == [
        "2023-0001",
        "Сапего Иван Петрович",
        "Приз автору неотвеченного вопроса",
        "п. 4.11.1 (2023)",
        "150,00",
        "BYN",
        "выплачен",
    ]
    assert "000_90d7c8192601ed3a" not in text and "paid" not in text
    assert lines[-1][2:7] == ["Итого BYN", "", "", "450,00", "BYN"]
    bad = client.get("/prizes/register?start=2024-03-01&end=2024-02-01&format=csv")
    assert bad.status_code == 200 and "Начало периода позже его конца." in bad.text
    assert login("producer").get("/prizes/register").status_code == 403


def test_import_bank_paid_list_all_or_nothing(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    give_details(prizes[0], drain)
    give_details(prizes[1], drain, **OTHER_PAYEES[0])
    db.session.expire_all()
    for p in prizes[:2]:
        mark_signed(db.session.get(Prize, p.id), scan_pdf(), "s.pdf", None)
    commit()
    client = login("accountant")

    def upload(content: str, encoding="utf-8"):
        return client.post(
            "/prizes/register/import",
            data={"paid_list": (io.BytesIO(content.encode(encoding)), "paid.csv")},
            content_type="multipart/form-data",
            follow_redirects=True,
        )

    wrong = upload(
        "Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n"
        "2023-0002;151,00;01.02.2024;12\n2023-0003;300,00;01.02.2024;13\n"
        "2023-9999;1,00;01.02.2024;14\n"
    )
    assert "Ничего не отмечено" in wrong.text
    assert "строка 3: сумма 151,00 не равна сумме договора 2023-0002 (150,00)" in wrong.text
    assert "строка 5: договор 2023-9999 не найден" in wrong.text
    assert "строка 4: приз" in wrong.text  # 2023-0003 is not signed
    db.session.expire_all()
    assert (
        db.session.scalar(
            db.select(db.func.count()).select_from(Prize).where(Prize.status == "paid")
        )
        == 0
    )
    # an amount in exponent notation is no amount (1.5e2 would be 150)
    exponent = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;1.5e2;01.02.2024;11\n")
    assert "строка 2: неверная сумма «1.5e2»" in exponent.text
    future = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.01.2030;<b>11</b>\n")
    assert "строка 2: номер платёжного поручения не может содержать знаки" in future.text
    future = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.01.2030;11\n")
    assert "строка 2: дата оплаты 01.01.2030 ещё не наступила" in future.text
    ok = upload(
        "Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n"
        "2023-0002;150,00;2024-02-02;12\n",
        encoding="cp1251",
    )
    assert "Отмечено оплаченными: 2." in ok.text
    again = upload("Договор;Сумма;Дата;Номер п/п\n2023-0001;150,00;01.02.2024;11\n")
    assert "Отмечено оплаченными: 0." in again.text
    db.session.expire_all()
    paid = db.session.scalars(
        db.select(Prize).where(Prize.status == "paid").order_by(Prize.id)
    ).all()
    assert [(p.paid_on, p.payment_reference) for p in paid] == [
        (date(2024, 2, 1), "11"),
        (date(2024, 2, 2), "12"),
    ]


def test_dashboard_counts_and_overdue(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    give_details(prizes[0], drain)
    give_details(prizes[1], drain, **OTHER_PAYEES[0])
    db.session.expire_all()
    mark_signed(db.session.get(Prize, prizes[0].id), scan_pdf(), "s.pdf", None)
    mark_signed(db.session.get(Prize, prizes[1].id), scan_pdf(), "s.pdf", None)
    mark_paid(prizes[1], date(2024, 1, 1), "1", None)
    commit()
    from webapp.prizes.models import PrizeStatusChange

    paid = db.session.scalars(
        db.select(PrizeStatusChange.note).where(
            PrizeStatusChange.prize_id == prizes[1].id, PrizeStatusChange.to_status == "paid"
        )
    ).all()
    assert paid == ["оплачен 01.01.2024, п/п 1"]  # a bare number gets its «п/п»
    from webapp.prizes.queries import dashboard, overdue

    rows = dashboard()
    assert [
        (r["season"], r["owed"], r["issued"], r["signed"], r["paid"], r["unpaid"]) for r in rows
    ] == [
        ("Сезон 2023", 0, 5, 1, 1, {"BYN": Decimal("1650.00")}),
        ("Сезон 2009", 1, 0, 0, 0, {"RUB": Decimal("300000.00")}),
    ]
    from datetime import timedelta

    from webapp.core.models import utcnow

    assert len(overdue(30, now=utcnow() + timedelta(days=31))) == 7
    assert overdue(30) == []
    page = login("producer").get("/prizes/dashboard")
    # «1 650,00 BYN» with no-break spaces (webapp.core.formats.money)
    assert page.status_code == 200 and "1\u00a0650,00\u00a0BYN" in page.text


def test_signed_needs_a_real_scan_and_the_payee_details(app, api, played, drain, login):
    """A «scan» that only starts like a PDF is refused; so is «signed» before the
    payee's details are received (details received → agreement issued → signed)."""
    import pytest
    from PIL import Image

    from webapp.prizes.operations import PrizeError

    prizes = setup_prizes(api, played, drain)
    prize = db.session.get(Prize, prizes[0].id)
    assert prize.status == "agreement_issued"
    with pytest.raises(PrizeError) as no_details:
        mark_signed(prize, scan_pdf(), "s.pdf", None)
    assert no_details.value.message == (
        f"приз {prize.id}: реквизиты получателя не получены — договор 2023-0001 "
        "подписывается после получения паспортных данных и адреса"
    )
    with pytest.raises(PrizeError) as not_signed:
        mark_paid(prize, date(2024, 2, 1), "п/п 1", None)
    assert not_signed.value.message == (
        f"приз {prize.id} («договор выписан»): отметить оплату нельзя — сначала нужен "
        "подписанный договор (загрузите скан)"
    )
    give_details(prize, drain)
    prize = db.session.get(Prize, prize.id)
    client = login("accountant")

    def upload(content: bytes, name: str) -> str:
        return client.post(
            f"/prizes/{prize.id}/signed",
            data={"scan": (io.BytesIO(content), name)},
            content_type="multipart/form-data",
            follow_redirects=True,
        ).get_data(as_text=True)

    assert "Не выполнено: скан договора: файл не открывается как PDF" in upload(
        b"%PDF-1.4 garbage", "scan.pdf"
    )
    assert (
        "Не выполнено: скан договора: файл не открывается как изображение PNG или JPEG"
        in upload(b"\x89PNG\r\n\x1a\n garbage", "scan.png")
    )
    png = io.BytesIO()
    Image.new("RGB", (20, 10), "white").save(png, "PNG")
    assert "Не выполнено: скан договора: нужен файл PDF, PNG или JPEG" in upload(
        png.getvalue(), "scan.jpg"
    )  # a PNG named .jpg
    # a scan over the body limit (8 MB), sent by the page's form: the limit said, and the way
    # back to the prize
    (signed_form,) = [
        f
        for f in page_forms(client.get(f"/prizes/{prize.id}").text)
        if f.action.endswith("/signed")
    ]

    def oversized(data: bytes, referrer: str):
        scan = {"scan": (io.BytesIO(data), "scan.pdf")}
        return client.post(
            signed_form.action,
            data={**signed_form.fields, **scan},
            content_type="multipart/form-data",
            headers={"Referer": referrer},
        )

    big = oversized(b"%PDF-1.4\n" + b"0" * (9 * 1024 * 1024), f"http://localhost/prizes/{prize.id}")
    assert big.status_code == 413
    assert "Файл или текст больше 8 МБ: уменьшите его и отправьте снова." in big.text
    assert f'<a href="http://localhost/prizes/{prize.id}">Вернуться на страницу</a>' in big.text
    elsewhere = oversized(b"0" * (9 * 1024 * 1024), "https://example.org/prizes/1")
    assert elsewhere.status_code == 413 and "Вернуться на страницу" not in elsewhere.text
    db.session.expire_all()
    assert db.session.get(Prize, prize.id).status == "agreement_issued"
    assert "Договор отмечен подписанным." in upload(png.getvalue(), "scan.png")
    db.session.expire_all()
    assert db.session.get(Prize, prize.id).status == "signed"
    page = client.get(f"/prizes/{prize.id}").get_data(as_text=True)
    # Documents and the history's «Кто» in Russian, by name, not by code or id.
    assert "Скан подписанного договора, версия 1 — <a" in page
    assert "Договор дарения, версия 2 — <a" in page
    assert "gift_agreement" not in page and "signed_scan" not in page
    assert "<td>бухгалтер (accountant@test.local)</td>" in page
    assert "<td>система</td>" in page
    # the first line says which game's closing owed it, as the pages name the game
    game = db.session.get(Prize, prize.id).game
    assert f"<td>игра закрыта: {markupsafe.escape(game.label)}</td>" in page
    # the tab's title names the game as every staff page does
    assert f"<title>Приз {prize.id}: {markupsafe.escape(game.label)} — «Что? Где? Когда?»" in page
    # The producer used to see «Нет документов.»; the agreement and the scan carry
    # personal data (accountants only), so they are listed with who opens them, no link.
    page = login("producer").get(f"/prizes/{prize.id}").get_data(as_text=True)
    assert "<li>Договор дарения, версия 1 (открывает бухгалтер)</li>" in page
    assert "<li>Договор дарения, версия 2 (открывает бухгалтер)</li>" in page
    assert "<li>Скан подписанного договора, версия 1 (открывает бухгалтер)</li>" in page
    assert "Нет документов" not in page and "/prizes/documents/" not in page
    # the admin's game page names the signed scan in Russian (not its code «signed_scan»)
    # and does not call it a PDF: the scan may be an image
    page = login("admin").get(f"/games/{prize.game_id}").get_data(as_text=True)
    assert "Скан подписанного договора:" in page and ">скачать скан</a>" in page
    assert "signed_scan" not in page.split('id="game-documents"', 1)[1].split("</ul>", 1)[0]


def test_paid_form_refuses_a_wrong_date_or_number_and_needs_the_confirmation(
    app, api, played, drain, login
):
    """«Оплачен» with 01.01.2030 and ``<b>ПП</b>-77`` was recorded at once and
    cannot be corrected. A payment date after today (the season's zone) or before the game,
    a number with markup and a missing confirmation are refused; messages read as
    sentences; a refusal by status says what must happen first."""
    import html
    from zoneinfo import ZoneInfo

    from webapp.core.formats import when
    from webapp.prizes.models import PrizeStatusChange

    prizes = setup_prizes(api, played, drain)
    owl = db.session.get(Prize, prizes[-1].id)  # 2009 Crystal Owl: no agreement, owed
    first = prizes[0]  # 2023, agreement issued, not signed
    client = login("accountant")
    page = client.get(f"/prizes/{first.id}").get_data(as_text=True)
    assert "Основание: п. 4.11.1 Правил сезона 2023 г. Статус:" in page
    assert "г.." not in page
    assert (
        "Да, оплата проведена банком: дата и номер взяты из выписки, исправить их потом нельзя"
        in page
    )

    def pay(prize_id: int, **data) -> str:
        r = client.post(f"/prizes/{prize_id}/paid", data=data, follow_redirects=True)
        assert r.status_code == 200
        return html.unescape(r.get_data(as_text=True))

    today = datetime.now(ZoneInfo("Europe/Moscow")).date()
    assert (
        "Оплата не отмечена: Укажите дату оплаты; Укажите номер платёжного поручения; "
        "Подтвердите оплату: отметьте галочку." in pay(owl.id)
    )
    assert "Оплата не отмечена: Подтвердите оплату: отметьте галочку." in pay(
        owl.id, paid_on=today.isoformat(), reference="ПП-77"
    )
    assert (
        "Оплата не отмечена: номер платёжного поручения не может содержать знаки «<» и «>»: "
        "укажите номер так, как он напечатан в выписке банка"
        in pay(owl.id, paid_on=today.isoformat(), reference="<b>ПП</b>-77", confirm="y")
    )
    assert (
        f"Оплата не отмечена: дата оплаты 01.01.2030 ещё не наступила (сегодня {when(today)}): "
        "укажите дату из выписки банка"
        in pay(owl.id, paid_on="2030-01-01", reference="ПП-77", confirm="y")
    )
    assert (
        "Оплата не отмечена: дата оплаты 01.12.2023 раньше игры (30.12.2023): приз не мог "
        "быть выплачен до игры, укажите дату из выписки банка"
        in pay(owl.id, paid_on="2023-12-01", reference="ПП-77", confirm="y")
    )
    assert (
        f"Оплата не отмечена: приз {first.id} («договор выписан»): отметить оплату нельзя — "
        "сначала нужен подписанный договор (загрузите скан)"
        in pay(first.id, paid_on=today.isoformat(), reference="ПП-78", confirm="y")
    )
    db.session.expire_all()
    assert (
        db.session.scalars(
            db.select(PrizeStatusChange.prize_id).where(PrizeStatusChange.to_status == "paid")
        ).all()
        == []
    )
    shown = pay(owl.id, paid_on=today.isoformat(), reference="п/п  77", confirm="y")
    assert "Оплата отмечена." in shown
    # the number as typed with its «п/п» is said once
    assert f"Оплачен {when(today)}, п/п 77." in shown and "п/п п/п" not in shown
    db.session.expire_all()
    owl = db.session.get(Prize, owl.id)
    assert (owl.status, owl.paid_on, owl.payment_reference) == ("paid", today, "п/п 77")
    assert owl.payment_order == "п/п 77"


def test_register_period_says_which_date_is_wrong_and_bounds_the_years(app, login):
    """The register's forms as the page renders them: dates that are no dates say so for
    each end (not «Укажите …», they were given); a period 01.01.0001–31.12.9999 is refused
    for the download and for the PDF (the show's years, 1975..2100), and no PDF is queued."""
    from webapp.core.models import Document

    client = login("accountant")
    page = client.get("/prizes/register").text
    (download,) = [f for f in page_forms(page) if f.method == "get"]
    (pdf,) = [f for f in page_forms(page) if f.action == "/prizes/register/pdf"]

    r = client.get(
        "/prizes/register", query_string={**download.fields, "start": "2023-13-45", "end": "x"}
    )
    assert r.status_code == 200 and r.mimetype == "text/html"
    errors = [str(markupsafe.Markup(e).unescape()) for e in _errors(r.text)]
    assert errors == ["Начало периода: неверная дата.", "Конец периода: неверная дата."]
    assert "Укажите" not in r.text

    r = client.get(
        "/prizes/register",
        query_string={**download.fields, "start": "0001-01-01", "end": "9999-12-31"},
    )
    assert r.status_code == 200 and r.mimetype == "text/html"
    years = (
        "Период реестра — в годах передачи, с 1975 по 2100: начало 01.01.0001, конец 31.12.9999."
    )
    assert markupsafe.escape(years) in r.text

    r = client.post(
        pdf.action,
        data={**pdf.fields, "start": "0001-01-01", "end": "9999-12-31"},
        follow_redirects=True,
    )
    assert markupsafe.escape(f"PDF не заказан: {years}") in r.text
    assert db.session.scalar(db.select(db.func.count()).select_from(Document)) == 0


def _errors(page: str) -> list[str]:
    import re

    return re.findall(r'<p class="error">([^<]*)</p>', page)
