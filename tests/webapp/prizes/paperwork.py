"""The paperwork tests' helpers (the PDFs read back line by line, the minutes' numbers, two
Crystal Owls awarded) and the checks run on SQLite (tests/webapp/prizes/test_paperwork.py)
and again on PostgreSQL (test_paperwork_postgres.py): the commission minutes' gapless
per-season number (000_90d7c8192601ed3a.txt §4.11.2–§4.11.5), the migration that numbers
the minutes issued before it, and the payment register as a PDF (totals per currency)."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

import pypdf

from tests.helpers import (
    EXPERTS_WIN,
    OTHER_PAYEES,
    disposition,
    give_details,
    scan_pdf,
    setup_prizes,
)
from webapp.core.models import Document
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.models import CommissionMinutes, PersonalDataAccess, Prize
from webapp.prizes.operations import issue_minutes, mark_paid, mark_signed
from webapp.tasks.outbox import commit
from workers.prizes import render_minutes

TEAM = ["Максим Поташев", "Илья Новиков"]
MONTHS = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)


def pdf_lines(data: bytes) -> list[str]:
    """The PDF's text line by line (no-break spaces as spaces, blank lines dropped)."""
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    return [
        " ".join(line.replace("\u00a0", " ").split()) for line in text.splitlines() if line.strip()
    ]


def pdftotext_words(data: bytes) -> list[tuple[str, float, float]]:
    """``(word, xMin, xMax)`` in points of every word of a PDF (page after page), as poppler's
    ``pdftotext -bbox`` places them."""
    import re
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        out = subprocess.run(
            ["pdftotext", "-bbox", f.name, "-"], check=True, capture_output=True, text=True
        ).stdout
    box = r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)</word>'
    return [(word, float(x0), float(x1)) for x0, x1, word in re.findall(box, out)]


def doc_bytes(app, doc_id: int) -> bytes:
    doc = db.session.get(Document, doc_id)
    assert doc.status == "ready", doc.error
    return (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()


def minutes_docs(prize_id: int) -> list[Document]:
    return list(
        db.session.scalars(
            db.select(Document)
            .where(Document.prize_id == prize_id, Document.kind == "commission_minutes")
            .order_by(Document.version)
        ).all()
    )


def minutes_numbers() -> list[tuple[int, str, int]]:
    return [
        (m.prize_id, m.number, m.seq)
        for m in db.session.scalars(db.select(CommissionMinutes).order_by(CommissionMinutes.id))
    ]


def award_two_owls(api, played) -> tuple[int, int, int]:
    """A won series final and a won year final of one 2023 season, a won year final of the
    next: three Crystal Owl prizes with minutes. Returns their prize ids."""
    series = played("series_final", EXPERTS_WIN)
    season = db.session.get(Game, series).season_id
    year = played("year_final", EXPERTS_WIN, season_id=season)
    other = played("year_final", EXPERTS_WIN, name="Сезон 2024")
    ids = []
    for game, kind, who in (
        (series, "best_participant_of_series", "Илья Новиков"),
        (year, "best_expert_of_year", "Максим Поташев"),
        (other, "best_expert_of_year", "Илья Новиков"),
    ):
        r = api(
            "post",
            f"/api/v1/games/{game}/prizes",
            role="producer",
            json={"kind": kind, "recipient": who, "team": TEAM},
        )
        assert r.status_code == 201, r.json
        ids.append(r.json["prizes"][0]["id"])
    return tuple(ids)


MINUTES_1 = [
    "ПРОТОКОЛ № 2023-К-0001",
    "заседания комиссии по денежным выигрышам",
    "г. Минск 30 декабря 2023 г.",
    "Комиссия по денежным выигрышам ЗАО «Второй национальный телеканал» в",
    "составе:",
    "Иванов И. И., председатель комиссии",
    "Петрова А. А., главный бухгалтер",
    "Сидоров П. П., юрист",
    "Рассмотрела",
    "Итоги игры 30 декабря 2023 г.",
    "Решила",
    "1. Приз: «Лучший участник серии», Малая Хрустальная Сова.",
    "2. Обладатель приза: Илья Новиков.",
    "3. Размер денежного приза: 2 000,00 (Две тысячи) рублей 00 копеек.",
    "Основание: п. 4.11.2 Положения о телевизионном проекте (правила сезона",
    "2023 года).",  # a year stays with «года» (Russian typesetting)
    "Подписи членов комиссии",
    "Иванов И. И., председатель комиссии",
    "Петрова А. А., главный бухгалтер",
    "Сидоров П. П., юрист",
    "1.",
    "2.",
    "3.",
    # the serial on one line, never «версия» and its number apart (the clause between)
    "Протокол № 2023-К-0001, версия 1 п. 4.11.2 Положения",
    "о телевизионном проекте",  # a one-letter word stays with the next
    "(правила сезона 2023 года)",
    "Стр. 1 из 1",
]


def minutes_numbered_per_season_without_gaps_and_kept(app, api, played, drain, login):
    first, second, other = award_two_owls(api, played)
    assert minutes_numbers() == [
        (first, "2023-К-0001", 1),
        (second, "2023-К-0002", 2),
        (other, "2024-К-0001", 1),
    ]
    # Awarding again, or issuing the minutes again, takes no number and makes no document.
    game = db.session.get(Prize, first).game_id
    again = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={"kind": "best_participant_of_series", "recipient": "Илья Новиков", "team": TEAM},
    )
    assert again.status_code == 201 and again.json["prizes"][0]["id"] == first
    issue_minutes(db.session.get(Prize, first))
    commit()
    assert len(minutes_numbers()) == 3 and len(minutes_docs(first)) == 1
    drain()
    [v1] = minutes_docs(first)
    assert pdf_lines(doc_bytes(app, v1.id)) == MINUTES_1
    # plain A4 (210×297 mm): no bleed or crop marks for an office printer to shrink or crop
    (page,) = pypdf.PdfReader(io.BytesIO(doc_bytes(app, v1.id))).pages
    size = (float(page.mediabox.width), float(page.mediabox.height))
    assert tuple(round(v / 72 * 25.4) for v in size) == (210, 297)
    second_lines = pdf_lines(doc_bytes(app, minutes_docs(second)[0].id))
    assert second_lines[0] == "ПРОТОКОЛ № 2023-К-0002"
    assert "2. Обладатель приза: Максим Поташев." in second_lines
    assert pdf_lines(doc_bytes(app, minutes_docs(other)[0].id))[0] == "ПРОТОКОЛ № 2024-К-0001"
    # Rendering again changes nothing; a new version keeps the number.
    sha = v1.sha256
    render_minutes(first)
    assert db.session.get(Document, v1.id).sha256 == sha
    client = login("producer")
    page = client.get(f"/prizes/{first}")
    assert "Протокол комиссии по денежным выигрышам № 2023-К-0001." in page.text
    r = client.post(f"/prizes/{first}/reissue-minutes", follow_redirects=True)
    assert "Новая версия протокола поставлена в очередь." in r.text
    drain()
    db.session.expire_all()
    v1_again, v2 = minutes_docs(first)
    assert (v1_again.id, v2.version, v2.key) == (v1.id, 2, f"commission_minutes:prize:{first}:v2")
    assert pdf_lines(doc_bytes(app, v2.id)) == [
        line.replace(", версия 1 ", ", версия 2 ") for line in MINUTES_1
    ]
    assert minutes_numbers()[0] == (first, "2023-К-0001", 1)
    no_minutes = client.post("/prizes/999999/reissue-minutes")
    assert no_minutes.status_code == 404


def migration_numbers_minutes_issued_before_it(app, api, played, drain):
    from flask_migrate import downgrade, upgrade

    first, second, other = award_two_owls(api, played)
    before = minutes_numbers()
    db.session.remove()
    downgrade(revision="0009_minutes_number@-1")
    upgrade(revision="heads")
    # The table was dropped and made again: the documents already there got their numbers
    # back, oldest prize first within each season.
    assert (
        minutes_numbers()
        == [(first, "2023-К-0001", 1), (second, "2023-К-0002", 2), (other, "2024-К-0001", 1)]
        == before
    )
    drain()
    assert pdf_lines(doc_bytes(app, minutes_docs(first)[0].id)) == MINUTES_1


def ru_date(d: date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year} г."


def register_pdf_rows_and_totals_per_currency(app, api, played, drain, login):
    prizes = setup_prizes(api, played, drain)
    give_details(prizes[0], drain)
    db.session.expire_all()
    p = [db.session.get(Prize, x.id) for x in prizes]
    give_details(p[1], drain, **OTHER_PAYEES[0])
    give_details(p[2], drain, **OTHER_PAYEES[1])
    db.session.expire_all()
    p = [db.session.get(Prize, x.id) for x in prizes]
    for prize in p[:3]:
        mark_signed(prize, scan_pdf(), "s.pdf", None)
    mark_paid(p[0], date(2024, 2, 1), "п/п 1", None)
    mark_paid(p[1], date(2024, 3, 5), "п/п 2", None)  # outside the period
    mark_paid(p[-1], date(2024, 2, 10), "п/п 3", None)  # 2009 Crystal Owl, no agreement
    commit()
    audited = db.session.scalar(db.select(db.func.count()).select_from(PersonalDataAccess))

    assert (
        login("producer")
        .post("/prizes/register/pdf", data={"start": "2024-02-01", "end": "2024-02-29"})
        .status_code
        == 403
    )
    client = login("accountant")
    bad = client.post(
        "/prizes/register/pdf",
        data={"start": "2024-03-01", "end": "2024-02-01"},
        follow_redirects=True,
    )
    assert "PDF не заказан: Начало периода позже его конца." in bad.text
    r = client.post("/prizes/register/pdf", data={"start": "2024-02-01", "end": "2024-02-29"})
    assert (r.status_code, r.headers["Location"]) == (302, "/prizes/register")
    page = client.get("/prizes/register")
    assert "PDF реестра (версия 1) готовится." in page.text and "готовится</td>" in page.text
    assert drain() == ["prizes.render_register"]
    doc = db.session.scalar(db.select(Document).where(Document.kind == "payment_register"))
    assert (doc.key, doc.version, doc.status) == (
        "payment_register:2024-02-01:2024-02-29:v1",
        1,
        "ready",
    )
    page = client.get("/prizes/register")
    assert f'<a href="/prizes/documents/{doc.id}">скачать PDF</a>' in page.text
    pdf = client.get(f"/prizes/documents/{doc.id}")
    assert (pdf.status_code, pdf.mimetype) == (200, "application/pdf")
    assert pdf.headers["Content-Disposition"] == disposition(
        "Реестр выплат — 2024-02-01 — 2024-02-29.pdf"
    )
    made = ru_date(doc.created_at.astimezone(ZoneInfo(app.config["SOVA_TIMEZONE"])).date())
    assert pdf_lines(pdf.data) == [
        "Реестр выплат призов за период с 1 февраля 2024 г. по 29 февраля 2024 г.",
        f"Сформирован {made} Призы, оплаченные за период, и подписанные, ожидающие оплаты.",
        "№ Договор Получатель Приз Основание Сумма Статус Оплачен Номер п/п",
        # the payee as the agreement and the XLSX/CSV name them: declared with the details
        "1 2023-0001 Сапего Иван Петрович Приз автору неотвеченного",
        "вопроса",
        "п. 4.11.1 (2023) 150,00 BYN выплачен 01.02.2024 п/п 1",
        "2 — Ровшан Аскеров Лучший игрок серии п. 3.2 (2009) 300 000,00 RUB выплачен "
        "10.02.2024 п/п 3",
        "3 2023-0003 Жуков Павел Олегович Приз автору неотвеченного",
        "вопроса",
        "п. 4.11.1 (2023) 300,00 BYN договор подписан — —",
        "Итого BYN: 450,00 (строк: 2)",
        "Итого RUB: 300 000,00 (строк: 1)",
        f"Реестр выплат, версия 1 Сформирован {made} Стр. 1 из 1",
    ]
    # No account and nothing decrypted for it (the name is kept on the prize), so the PDF
    # is no personal-data export: nothing audited, nothing the retention job misses.
    text = " ".join(pdf_lines(pdf.data))
    assert "BY13NBRB" not in text and "BY20" not in text
    assert db.session.scalar(db.select(db.func.count()).select_from(PersonalDataAccess)) == audited
    # plain A4 landscape (297×210 mm, no bleed); the clause stays inside its cell: every
    # word of «п. 4.11.1 (2023)» ends left of the «Сумма» column's text (its cell padding)
    (page,) = pypdf.PdfReader(io.BytesIO(pdf.data)).pages
    size = (float(page.mediabox.width), float(page.mediabox.height))
    assert tuple(round(v / 72 * 25.4) for v in size) == (297, 210)
    words = pdftotext_words(pdf.data)
    amount_left = next(x0 for word, x0, _x1 in words if word == "Сумма")
    clause = [x1 for word, _x0, x1 in words if word in ("4.11.1", "(2023)", "3.2", "(2009)")]
    assert len(clause) == 6 and max(clause) < amount_left - 1.5 / 25.4 * 72
    assert login("producer").get(f"/prizes/documents/{doc.id}").status_code == 403
    # Another request for the period is a new version (a snapshot of its moment).
    client = login("accountant")
    client.post("/prizes/register/pdf", data={"start": "2024-02-01", "end": "2024-02-29"})
    drain()
    keys = db.session.scalars(
        db.select(Document.key).where(Document.kind == "payment_register").order_by(Document.id)
    ).all()
    assert keys == [
        "payment_register:2024-02-01:2024-02-29:v1",
        "payment_register:2024-02-01:2024-02-29:v2",
    ]
