"""Prize paperwork rendered for real: the gift agreement (numbered, versioned, the same
text on a re-render), the prize commission minutes of a Crystal Owl prize
(000_90d7c8192601ed3a.txt §4.11.2–§4.11.5), and the status history."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pypdf
import pytest

from tests.helpers import (
    COMMISSION,
    EXPERTS_WIN,
    PRIZE_APP,
    VIEWERS_WIN,
    drain_outbox,
    give_details,
    scan_pdf,
)
from webapp.core.models import Document
from webapp.extensions import db
from webapp.prizes.models import GiftAgreement, Prize, PrizeStatusChange
from webapp.prizes.operations import (
    PrizeError,
    close_prize,
    mark_paid,
    mark_signed,
    reissue_agreement,
)
from webapp.tasks.outbox import commit
from workers.prizes import issue_agreement


@pytest.fixture
def app(make_app):
    """The prizes tests' app (commission members; see tests/webapp/prizes/conftest.py)."""
    app = make_app(**PRIZE_APP)
    with app.app_context():
        yield app


@pytest.fixture
def drain(app):
    """Queued tasks run in-process, the authors' notification e-mails only marked sent."""
    return lambda: drain_outbox(app, skip=("notify.",))


def pdf_text(app, doc_id: int) -> str:
    doc = db.session.get(Document, doc_id)
    assert doc.status == "ready", doc.error
    data = (Path(app.config["SOVA_DOCUMENTS_PATH"]) / doc.path).read_bytes()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.replace("\u00a0", " ").split())


def test_agreement_text_number_and_rerender(app, api, played, drain):
    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    agreement = prize.agreement
    assert (agreement.number, agreement.status, prize.status) == (
        "2023-0001",
        "issued",
        "agreement_issued",
    )
    text = pdf_text(app, agreement.document_id)
    assert "ДОГОВОР ДАРЕНИЯ № 2023-0001" in text
    assert "150,00 (Сто пятьдесят) рублей 00 копеек" in text  # question 1: two co-authors
    assert "Автор 1" in text and "ЗАО «Второй национальный телеканал»" in text
    assert "п. 4.11.1 Положения о телевизионном проекте (правила сезона 2023 года)" in text
    assert "версия 1" in text
    first = db.session.get(Document, agreement.document_id)
    sha1 = first.sha256
    # Running the task again renders nothing new and changes nothing.
    issue_agreement(prize.id)
    assert db.session.get(Document, agreement.document_id).sha256 == sha1
    changes = db.session.scalar(db.select(db.func.count()).select_from(PrizeStatusChange))
    # A new version: same number, same text but the version line.
    doc2 = reissue_agreement(prize, None)
    commit()
    drain()
    db.session.expire_all()
    agreement = db.session.get(GiftAgreement, agreement.id)
    assert (agreement.document_id, agreement.number, doc2.version) == (doc2.id, "2023-0001", 2)
    text2 = pdf_text(app, doc2.id)
    assert text2.replace("версия 2", "версия 1") == text
    assert db.session.scalar(db.select(db.func.count()).select_from(GiftAgreement)) == 7
    assert db.session.scalar(db.select(db.func.count()).select_from(PrizeStatusChange)) == changes


def test_minutes_of_a_crystal_owl_prize(app, api, played, drain):
    game = played("year_final", EXPERTS_WIN)
    r = api(
        "post",
        f"/api/v1/games/{game}/prizes",
        role="producer",
        json={
            "kind": "best_expert_of_year",
            "recipient": "Максим Поташев",
            "team": ["Максим Поташев", "Илья Новиков"],
        },
    )
    assert r.status_code == 201
    drain()
    prize = db.session.get(Prize, r.json["prizes"][0]["id"])
    minutes = db.session.scalar(
        db.select(Document).where(
            Document.prize_id == prize.id, Document.kind == "commission_minutes"
        )
    )
    text = pdf_text(app, minutes.id)
    assert "ПРОТОКОЛ № 2023-К-0001" in text
    assert "заседания комиссии по денежным выигрышам" in text
    assert "Приз: «Лучший знаток финальной игры года», Большая Хрустальная Сова." in text
    assert "Обладатель приза: Максим Поташев." in text
    assert "2 000,00 (Две тысячи) рублей 00 копеек" in text
    assert "Основание: п. 4.11.4 Положения о телевизионном проекте" in text
    for member in COMMISSION:
        assert member in text
    agreement_text = pdf_text(app, prize.agreement.document_id)
    assert (
        "как обладателю приза «Лучший знаток финальной игры года» (Большая Хрустальная Сова)"
        in agreement_text
    )
    assert "Максим Поташев" in agreement_text


def test_status_flow_recorded_who_and_when(app, api, played, drain, staff):
    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    accountant = staff("accountant")[0]
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    with pytest.raises(PrizeError):
        mark_paid(prize, date(2024, 1, 10), "77", accountant)  # not signed yet
    with pytest.raises(PrizeError):
        mark_signed(prize, b"not a pdf", "scan.pdf", accountant)
    with pytest.raises(PrizeError):  # no payee details yet
        mark_signed(prize, scan_pdf(), "scan.pdf", accountant)
    give_details(prize, drain)
    prize = db.session.get(Prize, prize.id)
    mark_signed(prize, scan_pdf(), "scan.pdf", accountant)
    mark_paid(prize, date(2024, 1, 10), "п/п 77", accountant)
    mark_paid(prize, date(2024, 1, 10), "п/п 77", accountant)  # the same payment again: nothing
    close_prize(prize, accountant)
    commit()
    rows = db.session.scalars(
        db.select(PrizeStatusChange)
        .where(PrizeStatusChange.prize_id == prize.id)
        .order_by(PrizeStatusChange.id)
    ).all()
    assert [(r.from_status, r.to_status, r.by_user_id) for r in rows] == [
        (None, "owed", staff("producer")[0]),
        ("owed", "agreement_issued", None),
        ("agreement_issued", "details_requested", None),
        ("details_requested", "details_received", None),
        ("details_received", "agreement_issued", None),
        ("agreement_issued", "signed", accountant),
        ("signed", "paid", accountant),
        ("paid", "closed", accountant),
    ]
    assert all(r.created_at.tzinfo is not None for r in rows)
    assert rows[-2].note == "оплачен 10.01.2024, п/п 77"  # typed «п/п 77»: not doubled
    assert (prize.paid_on, prize.payment_reference) == (date(2024, 1, 10), "п/п 77")
    assert db.session.get(Document, prize.agreement.signed_document_id).kind == "signed_scan"
    with pytest.raises(PrizeError):
        reissue_agreement(prize, None)


def test_agreement_names_the_payee_as_declared_and_the_question_as_people_know_it(
    app, api, played, drain
):
    """With the payee's details the agreement prints every line the payee form collects
    (passport and who issued it, identification number, registration address, IBAN) and
    needs no pen but for the signatures; «именуемый» agrees with the payee (the first digit
    of the identification number); the question is named by its sector, game, season and
    air date, not by a database id; quotes inside quotes are „…“."""
    from webapp.prizes.payee import agreement_payee
    from webapp.prizes.queries import agreement_context
    from workers.documents import render_html

    game = played("qualifying", VIEWERS_WIN)
    api("post", f"/api/v1/games/{game}/close", role="producer")
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    give_details(prize, drain)
    prize = db.session.get(Prize, prize.id)
    text = pdf_text(app, prize.agreement.document_id)
    assert "версия 2" in text
    assert (
        "и Сапего Иван Петрович (Минск), именуемый в дальнейшем «Одаряемый», с другой стороны"
    ) in text
    for line in (
        "Паспорт: серия MP № 7654321, выдан Первомайский РУВД г. Минска 1 июня 2015 г.",
        "Идентификационный номер: 3010190A001PB9",
        "Адрес регистрации: г. Брест, ул. Тайная, д. 17, кв. 42",
        "Счёт: IBAN BY13 NBRB 3600 9000 0000 2Z00 AB00",
        "Сапего Иван Петрович подпись Одаряемого",
        "переводом на счёт Одаряемого, указанный в разделе 4",
    ):
        assert line in text, line
    assert not prize.game.title  # untitled: named by its air date, never «игра «Игра …»»
    season = prize.game.season.name
    assert f"(сектор 1, игра сезона «{season}», эфир " in text and "«Игра" not in text
    assert f"№ {prize.question_id}" not in text
    assert "««" not in text and "»»" not in text
    # the only lines left to fill by pen are the two signatures
    html = render_html("gift_agreement.html", agreement_context(prize, agreement_payee(prize)))
    assert html.count('class="blank') == 2
