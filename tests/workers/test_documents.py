"""workers.documents: PDF rendering, the restricted URL fetcher, amounts in words.

Real WeasyPrint renders, real pypdf extraction, a real HTTP server on 127.0.0.1 to prove
nothing is fetched. No mocks.
"""

from __future__ import annotations

import datetime as dt
import http.server
import io
import logging
import os
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import jinja2
import pypdf
import pytest
from markupsafe import Markup

from tests.workers.agreement import RULE, agreement_context
from workers import documents
from workers.documents import (
    ASSETS_DIR,
    ResourceRefused,
    SafeURLFetcher,
    amount_figures,
    amount_in_words,
    render_html,
    render_pdf,
    safe_url_fetcher,
)

# this module tests the rendering itself: every render is a real one (tests/fixtures/speedups.py)
pytestmark = pytest.mark.fresh_render

AUTHOR = {"name": "Иван Сапего", "city": "Брест — Минск"}
KINDS = {4: "blitz", 8: "superblitz", 13: "sector13"}  # the others are "single"
LABELS = {"single": "Вопрос", "blitz": "Блиц", "superblitz": "Суперблиц", "sector13": "13 сектор"}


# --------------------------------------------------------------------------- helpers


def question(sector: int, number: int, **overrides) -> dict:
    item = {
        "slot": number,
        "text": f"Сектор {sector}, вопрос {number}. Внимание, в вопросе есть замены.",
        "handout": None,
        "authors": [dict(AUTHOR)],
        "answer": f"Сова {sector}.{number}",
        "accepted": "Филин",
        "rejected": "Птица",
        "comment": "Символ игры.",
        "sources": ["https://ru.wikipedia.org/wiki/Сова", "Книга «Что? Где? Когда?», 2001"],
    }
    item.update(overrides)
    return item


def game_context() -> dict:
    """13 sectors, realistic Russian text, blitz/superblitz with three questions."""
    sectors = []
    for number in range(1, 14):
        kind = KINDS.get(number, "single")
        count = 3 if kind in ("blitz", "superblitz") else 1
        sectors.append(
            {
                "sector": number,
                "kind": kind,
                "questions": [question(number, i) for i in range(1, count + 1)],
            }
        )
    sectors[1]["questions"][0]["handout"] = "Раздаточный материал к вопросу:\nвторая строка"
    sectors[4]["questions"][0]["authors"] = [dict(AUTHOR), {"name": "Анна Лысенко", "city": None}]
    return {
        "game": {"title": "Весенняя серия, игра 2", "date": "2023-03-04", "season": "Сезон 2023"},
        "serial": "007",
        "sectors": sectors,
    }


def reader(pdf: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(pdf))


def page_text(pdf_reader: pypdf.PdfReader, index: int) -> str:
    """Extracted text of one page, whitespace (incl. U+00A0 and line breaks) collapsed."""
    return " ".join(pdf_reader.pages[index].extract_text().split())


def all_text(pdf_reader: pypdf.PdfReader) -> str:
    return " ".join(page_text(pdf_reader, i) for i in range(len(pdf_reader.pages)))


def assert_no_embedded_content(pdf_reader: pypdf.PdfReader) -> None:
    """No attachments, no annotations/links, no images, no scripts, no actions."""
    root = pdf_reader.trailer["/Root"]
    assert pdf_reader.attachments == {}
    assert "/EmbeddedFiles" not in root.get("/Names", {})
    for key in ("/OpenAction", "/AA", "/AcroForm"):
        assert key not in root
    assert "/JavaScript" not in root.get("/Names", {})
    for page in pdf_reader.pages:
        assert "/Annots" not in page
        xobjects = page["/Resources"].get("/XObject", {})
        for name in xobjects:
            assert xobjects[name].get_object().get("/Subtype") != "/Image"


class RecordingHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self.server.requests.append(self.path)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def envelope_pdf() -> bytes:
    """The envelopes of ``game_context()``, rendered once for the tests that only read them."""
    return render_pdf("envelope.html", game_context())


@pytest.fixture(scope="module")
def agreement_pdf() -> bytes:
    """The gift agreement of ``agreement_context()``, rendered once for the tests that only
    read it."""
    return render_pdf("gift_agreement.html", agreement_context())


@pytest.fixture
def http_server() -> Iterator[http.server.ThreadingHTTPServer]:
    """A real HTTP server on 127.0.0.1 that records every request path."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RecordingHandler)
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


def hostile(port: int) -> list[str]:
    return [
        "<script>alert(1)</script>",
        "<b>жирный</b>",
        "<link rel=attachment href=file:///etc/hostname>",
        f"<img src=http://127.0.0.1:{port}/x.png>",
        '<div style="background:url(file:///etc/passwd)">',
    ]


# --------------------------------------------------------------------------- amounts


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        ("300.00", "BYN", "300,00 (Триста) рублей 00 копеек"),
        ("2000.00", "BYN", "2 000,00 (Две тысячи) рублей 00 копеек"),
        ("200", "BYN", "200,00 (Двести) рублей 00 копеек"),
        ("1000000", "RUB", "1 000 000,00 (Один миллион) рублей 00 копеек"),
        ("150.50", "BYN", "150,50 (Сто пятьдесят) рублей 50 копеек"),
        ("1.01", "BYN", "1,01 (Один) рубль 01 копейка"),
        ("21.21", "RUB", "21,21 (Двадцать один) рубль 21 копейка"),
        ("22.22", "RUB", "22,22 (Двадцать два) рубля 22 копейки"),
        ("5.05", "RUB", "5,05 (Пять) рублей 05 копеек"),
        ("11.11", "BYN", "11,11 (Одиннадцать) рублей 11 копеек"),
        ("12.14", "BYN", "12,14 (Двенадцать) рублей 14 копеек"),
        ("111.02", "BYN", "111,02 (Сто одиннадцать) рублей 02 копейки"),
        ("0.5", "BYN", "0,50 (Ноль) рублей 50 копеек"),
        ("1000", "BYN", "1 000,00 (Одна тысяча) рублей 00 копеек"),
        ("2001.00", "RUB", "2 001,00 (Две тысячи один) рубль 00 копеек"),
        ("1.500", "BYN", "1,50 (Один) рубль 50 копеек"),
    ],
)
def test_amount_in_words(amount: str, currency: str, expected: str) -> None:
    assert amount_in_words(Decimal(amount), currency) == expected


def test_amount_in_words_thousands_separator_option() -> None:
    assert amount_in_words(Decimal("2000"), "BYN", thousands_sep="\u00a0") == (
        "2\u00a0000,00 (Две тысячи) рублей 00 копеек"
    )


@pytest.mark.parametrize(
    ("amount", "expected"),
    [("2000", "2 000,00"), ("0", "0,00"), ("1234567.8", "1 234 567,80"), ("999.99", "999,99")],
)
def test_amount_figures(amount: str, expected: str) -> None:
    assert amount_figures(Decimal(amount)) == expected


@pytest.mark.parametrize(
    ("amount", "currency"),
    [
        (Decimal("-1"), "BYN"),
        (Decimal("1.005"), "BYN"),
        (Decimal("NaN"), "BYN"),
        (Decimal("Infinity"), "RUB"),
        (Decimal("1"), "USD"),
        (Decimal("1"), "byn"),
        (Decimal("1"), "BYR"),
        (Decimal("1"), None),
    ],
)
def test_amount_in_words_rejects_bad_values(amount, currency) -> None:
    with pytest.raises(ValueError):
        amount_in_words(amount, currency)


@pytest.mark.parametrize("amount", [300, 300.0, "300.00", True])
def test_amount_must_be_decimal(amount) -> None:
    with pytest.raises(TypeError):
        amount_in_words(amount, "BYN")
    with pytest.raises(TypeError):
        amount_figures(amount)


# --------------------------------------------------------------------------- context


class FakeRow:
    """Looks like an ORM row: attribute access, a __str__ that would print fine."""

    def __init__(self) -> None:
        self.name = "Иван Сапего"
        self.city = "Брест — Минск"

    def __str__(self) -> str:
        return self.name


@pytest.mark.parametrize(
    "bad",
    [
        FakeRow(),
        Markup("<b>raw</b>"),  # a str subclass that would bypass autoescape
        1.5,  # money is Decimal, never float
        {1: "non-str key"},
        {"set"},
        b"bytes",
        object(),
    ],
)
def test_context_rejects_non_primitives(bad) -> None:
    context = game_context()
    context["sectors"][2]["questions"][0]["authors"] = [bad]
    with pytest.raises(TypeError, match=r"context"):
        render_html("envelope.html", context)
    with pytest.raises(TypeError):
        render_pdf("envelope.html", {**game_context(), "extra": bad})


def test_context_accepts_dates_decimals_tuples() -> None:
    context = agreement_context()
    context["date"] = dt.date(2023, 3, 10)
    context["game"]["date"] = dt.datetime(2023, 3, 4, 20, 0)
    context["extra"] = ({"n": 1, "ok": True, "none": None, "d": Decimal("1.00")},)
    html = render_html("gift_agreement.html", context)
    assert "10 марта 2023\u00a0г." in html
    assert "эфир 4 марта 2023\u00a0г.)" in html


def test_context_must_be_dict() -> None:
    with pytest.raises(TypeError):
        render_html("envelope.html", [game_context()])  # type: ignore[arg-type]


def test_missing_key_is_an_error() -> None:
    context = game_context()
    del context["serial"]
    with pytest.raises(jinja2.UndefinedError):
        render_html("envelope.html", context)


def test_unknown_sector_kind_is_an_error() -> None:
    context = game_context()
    context["sectors"][0]["kind"] = "bonus"
    with pytest.raises(ValueError, match="bonus"):
        render_html("envelope.html", context)


@pytest.mark.parametrize(
    "name", ["_base.html", "_macros.html", "../pyproject.toml", "pdf/../x.html", "missing.html"]
)
def test_only_public_templates(name: str) -> None:
    with pytest.raises(jinja2.TemplateNotFound):
        render_html(name, {})


def test_autoescape_is_forced_for_every_template() -> None:
    context = game_context()
    context["sectors"][0]["questions"][0]["text"] = "<script>alert(1)</script> & <b>x</b>"
    html = render_html("envelope.html", context)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;x&lt;/b&gt;" in html
    assert "<script>" not in html
    assert documents.TEMPLATE_ENV.autoescape is True


# --------------------------------------------------------------------------- envelopes


def test_envelope_one_page_per_sector_with_labels(envelope_pdf: bytes) -> None:
    pdf = reader(envelope_pdf)
    assert len(pdf.pages) == 13
    for number in range(1, 14):
        label = LABELS[KINDS.get(number, "single")]
        text = page_text(pdf, number - 1)
        if number == 13:  # said once: «13 сектор», not «Сектор 13 — 13 сектор»
            assert f"{label} Сектор 13, вопрос 1." in text and "Сектор 13 —" not in text
        else:
            assert f"Сектор {number} — {label}" in text
        assert f"Экземпляр № 007 Сезон 2023 Стр. {number} из 13" in text


def test_envelope_page_texts_exactly(envelope_pdf: bytes) -> None:
    pdf = reader(envelope_pdf)
    header = "Весенняя серия, игра 2 4 марта 2023 г."
    author = "Автор: Иван Сапего, Брест — Минск"
    assert page_text(pdf, 0) == (
        f"{header} Сектор 1 — Вопрос "
        "Сектор 1, вопрос 1. Внимание, в вопросе есть замены. "
        f"{author} Экземпляр № 007 Сезон 2023 Стр. 1 из 13"
    )
    assert page_text(pdf, 1) == (
        f"{header} Сектор 2 — Вопрос "
        "Сектор 2, вопрос 1. Внимание, в вопросе есть замены. "
        "Раздаточный материал: Раздаточный материал к вопросу: вторая строка "
        f"{author} Экземпляр № 007 Сезон 2023 Стр. 2 из 13"
    )
    blitz = " ".join(
        f"{i}. Сектор 4, вопрос {i}. Внимание, в вопросе есть замены. {author}" for i in (1, 2, 3)
    )
    assert page_text(pdf, 3) == (
        f"{header} Сектор 4 — Блиц {blitz} Экземпляр № 007 Сезон 2023 Стр. 4 из 13"
    )
    assert "Авторы: Иван Сапего, Брест — Минск; Анна Лысенко Экземпляр" in page_text(pdf, 4)
    assert page_text(pdf, 12).startswith(f"{header} 13 сектор Сектор 13, вопрос 1.")
    # the answers are not in the envelopes
    assert "Сова 1.1" not in all_text(pdf)


def test_envelope_metadata_and_crop_marks(envelope_pdf: bytes) -> None:
    pdf = reader(envelope_pdf)
    assert pdf.metadata["/CreationDate"] == "D:20230304"
    assert pdf.metadata["/Title"] == "Весенняя серия, игра 2 — 4 марта 2023\u00a0г. — конверты"
    page = pdf.pages[0]
    bleed = 3 / 25.4 * 72  # 3 mm in points
    assert float(page.trimbox.width) == pytest.approx(595.28, abs=0.01)  # A4
    assert float(page.trimbox.height) == pytest.approx(841.89, abs=0.01)
    assert float(page.mediabox.width) == pytest.approx(595.28 + 2 * bleed, abs=0.01)


def test_signed_papers_are_plain_a4_and_the_printers_sheets_keep_their_marks() -> None:
    """An agreement is plain A4 (210×297 mm, no bleed, no crop marks), which an office
    printer prints as it is; envelopes and host cards keep the 3 mm bleed (216×303 mm)."""

    def sizes(template: str, context: dict) -> set[tuple[float, float, float, float]]:
        return {
            tuple(
                round(float(v) * 25.4 / 72, 1)
                for v in (p.mediabox.width, p.mediabox.height, p.trimbox.width, p.trimbox.height)
            )
            for p in reader(render_pdf(template, context)).pages
        }

    assert sizes("gift_agreement.html", agreement_context()) == {(210.0, 297.0, 210.0, 297.0)}
    assert sizes("envelope.html", game_context()) == {(216.0, 303.0, 210.0, 297.0)}
    host = game_context()
    for sector in host["sectors"]:
        for q in sector["questions"]:
            q.update(answer="Ответ", accepted=None, rejected=None, comment=None, sources=[])
    assert sizes("host_card.html", host) == {(216.0, 303.0, 210.0, 297.0)}


def test_only_dejavu_fonts_are_embedded(agreement_pdf: bytes) -> None:
    pdf = reader(agreement_pdf)
    names = set()
    for page in pdf.pages:
        fonts = page["/Resources"]["/Font"]
        names |= {str(fonts[key].get_object()["/BaseFont"]) for key in fonts}
    assert names
    assert all("DejaVu" in name for name in names), names


# --------------------------------------------------------------------------- host cards


def test_host_card_pages_exactly() -> None:
    pdf = reader(render_pdf("host_card.html", game_context()))
    assert len(pdf.pages) == 13
    header = "Весенняя серия, игра 2 4 марта 2023 г."

    def card(sector: int, number: int) -> str:
        return (
            f"Ответ: Сова {sector}.{number} Зачёт: Филин Незачёт: Птица "
            "Комментарий: Символ игры. Источники: 1. https://ru.wikipedia.org/wiki/Сова "
            "2. Книга «Что? Где? Когда?», 2001 Автор: Иван Сапего, Брест — Минск"
        )

    assert page_text(pdf, 0) == (
        f"{header} Сектор 1 — Вопрос {card(1, 1)} Экземпляр № 007 Сезон 2023 Стр. 1 из 13"
    )
    blitz = " ".join(f"{i}. {card(8, i)}" for i in (1, 2, 3))
    assert page_text(pdf, 7) == (
        f"{header} Сектор 8 — Суперблиц {blitz} Экземпляр № 007 Сезон 2023 Стр. 8 из 13"
    )


def test_host_card_omits_empty_fields() -> None:
    context = game_context()
    context["sectors"][0]["questions"][0].update(
        accepted=None, rejected="", comment=None, sources=[]
    )
    text = page_text(reader(render_pdf("host_card.html", context)), 0)
    assert "Ответ: Сова 1.1 Автор: Иван Сапего, Брест — Минск" in text
    for label in ("Зачёт", "Незачёт", "Комментарий", "Источники"):
        assert label not in text


# --------------------------------------------------------------------------- agreements


def test_gift_agreement_text(agreement_pdf: bytes) -> None:
    pdf = reader(agreement_pdf)
    assert len(pdf.pages) == 1
    text = page_text(pdf, 0)
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № 2023-0001 г. Минск 10 марта 2023 г. ")
    assert (
        "ЗАО «Второй национальный телеканал» (далее — «Даритель») в лице генерального "
        "директора Петрова П. П., действующего на основании Устава, с одной стороны, и Иван "
        "Сапего (Брест — Минск), именуемый в дальнейшем «Одаряемый», с другой стороны"
    ) in text
    assert (
        "1.1. Даритель безвозмездно передаёт Одаряемому денежный приз в размере "
        "300,00 (Триста) рублей 00 копеек за вопрос «Внимание, в вопросе есть замены. "
        "Что это?» (сектор 7, игра «Весенняя серия, игра 2» сезона «Сезон 2023», эфир "
        "4 марта 2023 г.), на который Команда знатоков не дала правильного ответа."
    ) in text
    assert "№ 17" not in text  # no database id
    assert f"1.2. Приз выплачивается на основании {RULE}." in text
    assert "УНП: 100000000" in text
    assert "ИНН" not in text
    assert "Город: Брест — Минск Паспорт:" in text
    assert text.endswith(f"Договор № 2023-0001, версия 1 {RULE} Стр. 1 из 1")
    assert pdf.metadata["/Title"] == "Договор дарения № 2023-0001"
    assert pdf.metadata["/CreationDate"] == "D:20230310"


def test_gift_agreement_money_as_on_the_pages() -> None:
    """«1 800,00 BYN» with no-break spaces (grouping and before the code,
    Babel's ru pattern), so the amount never wraps away from its currency."""
    context = agreement_context()
    context.update(amount=Decimal("1800"), currency="BYN")
    raw = reader(render_pdf("gift_agreement.html", context)).pages[0].extract_text()
    assert "2.2. Сумма приза: 1\u00a0800,00\u00a0BYN." in raw


def test_gift_agreement_neutral_wording_when_gender_unknown() -> None:
    """No «именуемый(-ая)»: a payee whose gender is not known is named with a neutral
    construction."""
    context = agreement_context()
    context["author"] = {"name": "Женя Пак", "city": "Гомель", "address": None}
    text = page_text(reader(render_pdf("gift_agreement.html", context)), 0)
    assert "и Женя Пак (Гомель; далее — «Одаряемый»), с другой стороны" in text
    assert "(-ая)" not in text and "именуем" not in text.split("вместе")[0]


def test_gift_agreement_of_a_payee_with_details_needs_no_pen() -> None:
    """With the payee's details every line is printed: passport and who issued it,
    identification number, registration address, IBAN; the only lines left are the
    signatures. A woman's identification number (first digit 4) makes «именуемая»."""
    context = agreement_context()
    context["author"] = {
        "name": "Анна Лысенко",
        "city": "Гомель",
        "address": "г. Гомель, ул. Советская, 1",
        "gender": "femn",
        "document": {
            "series": "HB",
            "number": "1234567",
            "issued_by": "Советским РУВД г. Гомеля",
            "issued_on": "2015-02-01",
        },
        "personal_number": "4010190A001PB9",
        "inn": "",
        "account": "IBAN BY13 NBRB 3600 9000 0000 2Z00 AB00",
    }
    pdf = render_pdf("gift_agreement.html", context)
    text = page_text(reader(pdf), 0)
    assert "Анна Лысенко (Гомель), именуемая в дальнейшем «Одаряемый»" in text
    for line in (
        "Паспорт: серия HB № 1234567, выдан Советским РУВД г. Гомеля 1 февраля 2015 г.",
        "Идентификационный номер: 4010190A001PB9",
        "Адрес регистрации: г. Гомель, ул. Советская, 1",
        "Счёт: IBAN BY13 NBRB 3600 9000 0000 2Z00 AB00",
        "Анна Лысенко подпись Одаряемого",
    ):
        assert line in text, line
    # the blank lines left: the two signatures only
    html = render_html("gift_agreement.html", context)
    assert html.count('class="blank') == 2


def test_gift_agreement_names_the_donors_signer_and_keeps_numbers_with_their_signs() -> None:
    """The donor's representative is named under the donor's signature line, as in the
    preamble; «д. 5», «№ 12», «г. Минск» and initials never break across lines (U+00A0)."""
    context = agreement_context()
    context["author"].update(
        address="г. Минск, ул. Янки Купалы, д. 5, кв. 12",
        document={"series": "MP", "number": "12", "issued_by": "РУВД", "issued_on": ""},
    )
    text = " ".join(page_text(reader(render_pdf("gift_agreement.html", context)), 0).split())
    signer = (
        "ЗАО «Второй национальный телеканал» в лице генерального директора Петрова П. П., "
        "действующего на основании Устава"
    )
    assert text.replace("\u00a0", " ").count(signer) == 1  # the preamble says «(далее …) в лице»
    assert f"{signer} подпись представителя Дарителя, М. П." in text.replace("\u00a0", " ")
    html = render_html("gift_agreement.html", context)
    for bound in (
        "г.\u00a0Минск, ул.\u00a0Янки Купалы, д.\u00a05, кв.\u00a012",
        "серия MP №\u00a012",
        "ДОГОВОР ДАРЕНИЯ №\u00a02023-0001",
        "Петрова\u00a0П.\u00a0П.",
    ):
        assert bound in html.replace("&nbsp;", "\u00a0"), bound


def test_gift_agreement_of_a_russian_payee() -> None:
    """A Russian payee: passport series of 4 digits, INN, settlement account with BIK (the
    fields of the payee form for RU); no identification number line."""
    context = agreement_context()
    context.update(currency="RUB")
    context["author"] = {
        "name": "Женя Пак",
        "city": "Тверь",
        "address": "г. Тверь, ул. Советская, 5",
        "gender": None,
        "document": {
            "series": "4510",
            "number": "123456",
            "issued_by": "ОВД Тверского района",
            "issued_on": "2012-09-14",
        },
        "personal_number": "",
        "inn": "500100732259",
        "account": "р/с 40817810099910004312 в банке с БИК 044525225",
    }
    text = page_text(reader(render_pdf("gift_agreement.html", context)), 0)
    assert "и Женя Пак (Тверь; далее — «Одаряемый»), с другой стороны" in text
    for line in (
        "Паспорт: серия 4510 № 123456, выдан ОВД Тверского района 14 сентября 2012 г.",
        "ИНН: 500100732259",
        "Счёт: р/с 40817810099910004312 в банке с БИК 044525225",
    ):
        assert line in text, line
    assert "Идентификационный номер" not in text


def test_gift_agreement_without_representative_or_details() -> None:
    """A donor without a representative prints no «в лице» (no line to fill by pen); a
    donor without bank details gets the one line to fill."""
    context = agreement_context()
    context.update(amount=Decimal("2000"), currency="RUB")
    context["donor"] = {
        "name": "Генеральный спонсор сезона",
        "city": "Москва",
        "place": "г.\u00a0Москва",
        "details": "",
        "representative": "",
    }
    context["author"] = {"name": "Анна Лысенко", "city": "", "address": "", "gender": "femn"}
    text = page_text(reader(render_pdf("gift_agreement.html", context)), 0)
    assert text.startswith("ДОГОВОР ДАРЕНИЯ № 2023-0001 г. Москва 10 марта 2023 г. ")
    assert "Генеральный спонсор сезона (далее — «Даритель»), с одной стороны" in text
    assert "в лице" not in text
    assert "в размере 2 000,00 (Две тысячи) рублей 00 копеек за вопрос" in text
    assert "Сумма приза: 2 000,00 RUB." in text
    assert "Анна Лысенко, именуемая в дальнейшем «Одаряемый»" in text
    assert "УНП" not in text and "ИНН" not in text and "Минск" not in text


def test_gift_agreement_has_no_quotes_inside_quotes() -> None:
    """«ЗАО «…»» inside «…» is printed „…“: a game title and an award with quotes."""
    context = agreement_context()
    context["game"]["title"] = "Финал «Зимней серии»"
    context["question"]["text"] = "Что называют «совой»?"
    text = page_text(reader(render_pdf("gift_agreement.html", context)), 0)
    assert "за вопрос «Что называют „совой“?» (сектор 7, игра «Финал „Зимней серии“»" in text
    assert "««" not in text and "»»" not in text


def test_gift_agreement_long_question_is_excerpted() -> None:
    context = agreement_context()
    context["question"]["text"] = "слово " * 200
    text = page_text(reader(render_pdf("gift_agreement.html", context)), 0)
    assert "«" + ("слово " * 50).strip() + "…»" in text


# --------------------------------------------------------------------------- security


def test_user_text_is_printed_literally_and_nothing_is_fetched(http_server, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="sova.documents")
    evil = hostile(http_server.server_address[1])
    game = game_context()
    first = game["sectors"][0]["questions"][0]
    first.update(text=" ".join(evil), handout=evil[3], answer=evil[4], comment=evil[2])
    first["authors"] = [{"name": evil[1], "city": evil[0]}]
    first["sources"] = evil
    agreement = agreement_context()
    agreement["question"]["text"] = " ".join(evil)
    agreement["author"] = {"name": evil[1], "city": evil[0], "address": evil[2]}
    agreement["donor"]["details"] = evil[4]

    rendered = {
        "envelope.html": render_pdf("envelope.html", game),
        "host_card.html": render_pdf("host_card.html", game),
        "gift_agreement.html": render_pdf("gift_agreement.html", agreement),
    }
    for name, pdf_bytes in rendered.items():
        pdf = reader(pdf_bytes)
        # lines may break inside a snippet (after "/", in narrow table cells): compare
        # with all whitespace removed
        text = "".join(all_text(pdf).split())
        for snippet in evil:
            assert "".join(snippet.split()) in text, (name, snippet)
        assert_no_embedded_content(pdf)
    envelope = page_text(reader(rendered["envelope.html"]), 0)
    assert "Автор: <b>жирный</b>, <script>alert(1)</script>" in envelope

    assert http_server.requests == []
    refusals = [
        r for r in caplog.records if r.name == "sova.documents" and r.levelname == "WARNING"
    ]
    assert refusals == []
    served = [r.getMessage() for r in caplog.records if r.getMessage().startswith("served ")]
    assert len(served) == 3
    assert all(m.startswith(f"served file://{ASSETS_DIR}/pdf.css ") for m in served)


@pytest.mark.parametrize(
    ("markup", "refused"),
    [
        ('<img src="http://127.0.0.1:{port}/x.png">', "http://127.0.0.1:{port}/x.png"),
        (
            '<link rel="stylesheet" href="http://127.0.0.1:{port}/a.css">',
            "http://127.0.0.1:{port}/a.css",
        ),
        ('<link rel="attachment" href="file:///etc/hostname">', "file:///etc/hostname"),
        ('<div style="background:url(file:///etc/passwd)">x</div>', "file:///etc/passwd"),
        ('<a rel="attachment" href="file:///etc/hostname">x</a>', "file:///etc/hostname"),
        ('<img src="data:image/png;base64,iVBORw0KGgo=">', "data:image/png;base64,iVBORw0KGgo="),
        ('<img src="../../pyproject.toml">', f"file://{ASSETS_DIR.parent.parent}/pyproject.toml"),
        ('<img src="envelope.html">', f"file://{ASSETS_DIR}/envelope.html"),
        ('<img src="sova-file:secret.png">', "sova-file:secret.png"),
        (
            "<style>@font-face { font-family: X; src: url(https://127.0.0.1:{port}/f.ttf) }"
            "</style><p style='font-family: X'>x</p>",
            "https://127.0.0.1:{port}/f.ttf",
        ),
    ],
)
def test_raw_html_resources_are_refused(http_server, caplog, markup: str, refused: str) -> None:
    """Defence in depth: even HTML that escaped escaping fetches nothing but our assets."""
    port = http_server.server_address[1]
    markup, refused = markup.replace("{port}", str(port)), refused.replace("{port}", str(port))
    caplog.set_level(logging.WARNING, logger="sova.documents")
    html = f'<html><head><link rel="stylesheet" href="pdf.css"></head><body>{markup}</body></html>'
    with pytest.raises(ResourceRefused):
        documents.html_to_pdf(html)
    assert http_server.requests == []
    messages = [r.getMessage() for r in caplog.records if r.name == "sova.documents"]
    assert any(m.startswith(f"refused to fetch {refused}: ") for m in messages), messages


def test_allowed_file_is_served(tmp_path: Path) -> None:
    from PIL import Image

    image = tmp_path / "handout.png"
    Image.new("RGB", (4, 4), (200, 0, 0)).save(image)
    html = '<html><body><img src="sova-file:handout-17.png"></body></html>'
    pdf = reader(documents.html_to_pdf(html, {"handout-17.png": image}))
    xobjects = pdf.pages[0]["/Resources"]["/XObject"]
    assert [xobjects[k].get_object()["/Subtype"] for k in xobjects] == ["/Image"]


# --------------------------------------------------------------------------- fetcher


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x.png",
        "https://example.org/font.ttf",
        "ftp://127.0.0.1/x",
        "data:text/css,body{}",
        "file:///etc/passwd",
        "file:///etc/hostname",
        "file://remote-host" + str(ASSETS_DIR / "pdf.css"),
        f"file://{ASSETS_DIR}/pdf.css?x=1",
        f"file://{ASSETS_DIR}/../../pyproject.toml",
        f"file://{ASSETS_DIR}/%2e%2e/%2e%2e/pyproject.toml",
        f"file://{ASSETS_DIR}/envelope.html",
        f"file://{ASSETS_DIR}/missing.css",
        f"file://{ASSETS_DIR}",
        "sova-file:handout.png",
        "javascript:alert(1)",
        "pdf.css",
    ],
)
def test_fetcher_refuses(url: str, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="sova.documents")
    fetcher = SafeURLFetcher()
    with pytest.raises(ResourceRefused):
        fetcher.fetch(url)
    with pytest.raises(ResourceRefused):
        safe_url_fetcher(url)
    assert fetcher.refused == [url]
    assert fetcher.fetched == []
    assert [r.levelname for r in caplog.records if r.name == "sova.documents"] == ["WARNING"] * 2


def test_fetcher_serves_our_css() -> None:
    fetcher = SafeURLFetcher()
    url = f"file://{ASSETS_DIR}/pdf.css"
    response = fetcher(url)
    assert response.content_type == "text/css"
    assert b"@page" in response.read()
    assert fetcher.fetched == [url]
    assert safe_url_fetcher(url).content_type == "text/css"


def test_fetcher_refuses_symlink_out_of_assets(tmp_path: Path) -> None:
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "ok.css").write_text("p {}")
    secret = tmp_path / "secret.css"
    secret.write_text("secret")
    (assets / "link.css").symlink_to(secret)
    fetcher = SafeURLFetcher(assets_dir=assets)
    assert fetcher.fetch(f"file://{assets}/ok.css").read() == b"p {}"
    with pytest.raises(ResourceRefused, match="outside the assets folder"):
        fetcher.fetch(f"file://{assets}/link.css")


def test_fetcher_allowed_files(tmp_path: Path) -> None:
    image = tmp_path / "a.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    fetcher = SafeURLFetcher({"h1.png": image})
    assert fetcher.fetch("sova-file:h1.png").read() == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ResourceRefused):
        fetcher.fetch("sova-file:h2.png")
    with pytest.raises(ResourceRefused):  # the allowed file is not reachable as file:
        fetcher.fetch(f"file://{image}")


@pytest.mark.parametrize(
    ("name", "suffix"),
    [("../x.png", ".png"), ("a b.png", ".png"), ("", ".png"), ("ok.png", ".html")],
)
def test_fetcher_allowed_files_validation(tmp_path: Path, name: str, suffix: str) -> None:
    path = tmp_path / f"file{suffix}"
    path.write_bytes(b"x")
    with pytest.raises(ValueError):
        SafeURLFetcher({name: path})


def test_fetcher_allowed_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        SafeURLFetcher({"x.png": tmp_path / "missing.png"})


# --------------------------------------------------------------------------- robustness


@pytest.mark.slow
def test_long_word_wraps_on_the_page() -> None:
    word = "Щ" * 10_000  # over three times the longest question a form accepts (3 000)
    context = game_context()
    context["sectors"][0]["questions"][0]["text"] = f"Начало {word} конец"
    pdf = reader(render_pdf("envelope.html", context))  # speed is the benches' (no timed test)
    first = pdf.pages[0].extract_text()
    assert "Сектор 1 — Вопрос" in first
    assert "Начало " + "Щ" * 500 in first.replace("\n", "")
    # the word is broken into lines that fit the page: no line holds more than ~50 glyphs
    lines = [
        line for i in range(len(pdf.pages)) for line in pdf.pages[i].extract_text().split("\n")
    ]
    assert max(len(line) for line in lines) < 80
    assert sum(line.count("Щ") for line in lines) == 10_000
    assert "Щ конец" in " ".join(lines)
    assert "Весенняя серия, игра 2 4 марта 2023 г. 13 сектор" in page_text(pdf, len(pdf.pages) - 1)


@pytest.mark.slow
def test_long_word_in_a_table_cell() -> None:
    word = "Ж" * 10_000  # over thirty times the payee form's 300 characters
    context = agreement_context()
    context["author"]["address"] = word
    pdf = reader(render_pdf("gift_agreement.html", context))
    assert "Адрес регистрации: " + "Ж" * 10 in all_text(pdf)
    lines = [line for page in pdf.pages for line in page.extract_text().split("\n")]
    # half-page-wide cell: a line of the word holds ~19 glyphs, never the whole word
    assert max(line.count("Ж") for line in lines) < 30
    assert sum(line.count("Ж") for line in lines) == 10_000


def test_long_runs_get_invisible_break_opportunities() -> None:
    context = game_context()
    context["sectors"][0]["questions"][0]["text"] = "А" * 61 + " " + "Б" * 60
    html = render_html("envelope.html", context)
    assert "\u200b".join(["АА"] * 30 + ["А"]) + " " + "Б" * 60 in html
    # ordinary text (runs up to 60 characters, e.g. most URLs) is untouched
    assert "\u200b" not in render_html("envelope.html", game_context())


# --------------------------------------------------------------------------- determinism


def test_same_inputs_same_bytes(agreement_pdf: bytes, envelope_pdf: bytes) -> None:
    environ_before = os.environ.get("SOURCE_DATE_EPOCH")
    first, envelope = agreement_pdf, envelope_pdf  # rendered earlier in this module
    time.sleep(1.1)  # embedded font subsets would carry a new timestamp
    assert render_pdf("gift_agreement.html", agreement_context()) == first
    assert render_pdf("envelope.html", game_context()) == envelope
    assert os.environ.get("SOURCE_DATE_EPOCH") == environ_before  # not leaked


def test_different_inputs_different_bytes(agreement_pdf: bytes) -> None:
    context = agreement_context()
    context["version"] = 2
    assert render_pdf("gift_agreement.html", context) != agreement_pdf


def test_render_is_weasyprint_own_output(monkeypatch, envelope_pdf: bytes) -> None:
    """The process's shared font configuration and the single serialisation of the PDF
    objects change no byte: the PDF is exactly WeasyPrint's with a fresh FontConfiguration
    and pydyf's own content-hash /ID."""
    from weasyprint import HTML
    from weasyprint.text.fonts import FontConfiguration
    from weasyprint.urls import path2url

    monkeypatch.setenv("SOURCE_DATE_EPOCH", documents.FONT_EPOCH)
    for template, context, pdf in (
        ("envelope.html", game_context(), envelope_pdf),
        ("host_card.html", game_context(), render_pdf("host_card.html", game_context())),
    ):
        bare = HTML(
            string=render_html(template, context),
            base_url=path2url(ASSETS_DIR),
            url_fetcher=SafeURLFetcher(),
        ).write_pdf(pdf_identifier=True, custom_metadata=False, font_config=FontConfiguration())
        assert pdf == bare


def test_pdf_identifier_is_derived_from_the_content(
    agreement_pdf: bytes, envelope_pdf: bytes
) -> None:
    context = agreement_context()
    context["version"] = 2
    pdfs = [agreement_pdf, envelope_pdf, render_pdf("gift_agreement.html", context)]
    ids = [[bytes(part, "latin-1") for part in reader(pdf).trailer["/ID"]] for pdf in pdfs]
    for first, second in ids:
        # pydyf's MD5 of the serialised objects, as hex, twice (no creation-time part)
        assert len(first) == 32 and int(first, 16) >= 0
        assert first == second
    assert len({first for first, _ in ids}) == 3


def _render_in_forked_child(_: int) -> tuple[bytes, bool, bool]:
    inherited = documents.FONT_CONFIG
    pdf = render_pdf("envelope.html", game_context())
    made = documents.FONT_CONFIG
    assert inherited is not None and made is not None
    return pdf, made[0] == os.getpid(), made[1] is not inherited[1]


def test_forked_worker_makes_its_own_font_configuration(envelope_pdf: bytes) -> None:
    """Celery's prefork pool forks the worker: a child never uses the Pango / fontconfig
    objects of its parent, makes its own and renders the same bytes."""
    import multiprocessing

    assert documents.FONT_CONFIG is not None  # the fixture rendered in this process
    with multiprocessing.get_context("fork").Pool(1) as pool:
        pdf, own_pid, new_config = pool.map(_render_in_forked_child, [0])[0]
    assert (own_pid, new_config) == (True, True)
    assert pdf == envelope_pdf


def test_templates_declare_no_font_face() -> None:
    """The shared font configuration (``documents._font_config``) keeps every @font-face a
    document declares for the next documents: the templates and the stylesheet must
    declare none (fonts come from fontconfig)."""
    files = sorted(ASSETS_DIR.glob("*.html")) + sorted(ASSETS_DIR.glob("*.css"))
    assert len(files) >= 5
    assert [f.name for f in files if "@font-face" in f.read_text().lower()] == []


# --------------------------------------------------------------------------- whole blocks


IMAGE_SIZES = {"tiny": (4, 4), "wide": (3000, 200), "tall": (200, 3000), "huge": (4000, 4000)}


def image_files(tmp_path: Path) -> dict[str, Path]:
    from PIL import Image

    files = {}
    for name, size in IMAGE_SIZES.items():
        path = tmp_path / f"{name}.png"
        Image.new("RGB", size, (200, 0, 0)).save(path)
        files[f"{name}.png"] = path
    return files


def picture_question(sector: int, number: int, image: str, repeat: int = 8) -> dict:
    return question(
        sector,
        number,
        text=f"Вопрос {sector}.{number}. " + "Посмотрите на рисунок и ответьте. " * repeat,
        handout=f"Рисунок к вопросу {sector}.{number}.",
        image=image,
        authors=[{"name": f"Автор {sector}.{number}", "city": "Минск"}],
        show_text=True,
    )


def picture_context() -> dict:
    """Sector 1: a tiny image; sector 4: a blitz of huge, tall and wide handout images;
    sector 12: a blitz whose first question has a long text and a huge image, then two
    more huge images (the envelopes that printed «Стр. 12 из 14»: the third question's
    image and author ran on to a sheet of their own)."""
    return {
        "game": {"title": "Весенняя серия, игра 2", "date": "2023-03-04", "season": "Сезон 2023"},
        "serial": "007",
        "sectors": [
            {"sector": 1, "kind": "single", "questions": [picture_question(1, 1, "tiny.png")]},
            {
                "sector": 4,
                "kind": "blitz",
                "questions": [
                    picture_question(4, 1, "huge.png"),
                    picture_question(4, 2, "tall.png"),
                    picture_question(4, 3, "wide.png"),
                ],
            },
            {
                "sector": 12,
                "kind": "blitz",
                "questions": [
                    picture_question(12, 1, "huge.png", repeat=28),
                    picture_question(12, 2, "huge.png"),
                    picture_question(12, 3, "huge.png"),
                ],
            },
        ],
    }


def pdftotext_pages(pdf: bytes, tmp_path: Path) -> list[str]:
    """Each page's text as poppler's pdftotext reads it, whitespace collapsed."""
    import subprocess

    path = tmp_path / "read-back.pdf"
    path.write_bytes(pdf)
    out = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    return [" ".join(page.split()) for page in out.split("\f")[:-1]]


def images_on(page: pypdf.PageObject) -> int:
    """How many raster images a page draws (``Do`` of an image XObject in its content
    stream, or in a form XObject it draws)."""
    from pypdf.generic import ContentStream

    def count(stream, resources) -> int:
        xobjects = resources.get("/XObject", {}) if resources else {}
        total = 0
        for operands, operator in ContentStream(stream, page.pdf).operations:
            if operator != b"Do" or operands[0] not in xobjects:
                continue
            obj = xobjects[operands[0]].get_object()
            if obj.get("/Subtype") == "/Image":
                total += 1
            elif obj.get("/Subtype") == "/Form":
                total += count(obj, obj.get("/Resources"))
        return total

    return count(page.get_contents(), page["/Resources"])


@pytest.mark.parametrize("template", ["envelope.html", "host_card.html"])
def test_a_question_block_is_never_split_across_sheets(template: str, tmp_path: Path) -> None:
    """Whatever the image size (tiny, wide, tall, huge, a long text with a huge image), each
    sheet that holds a question's text holds its handout image, its author (and on host
    cards its answer) and its sector's header; a sector that runs on names itself on the
    next sheet («…, продолжение»)."""
    context = picture_context()
    pdf = render_pdf(template, context, allowed_files=image_files(tmp_path))
    pages = [page_text(reader(pdf), i) for i in range(len(reader(pdf).pages))]
    poppler = pdftotext_pages(pdf, tmp_path)
    assert len(poppler) == len(pages)
    header = {1: "Сектор 1 — Вопрос", 4: "Сектор 4 — Блиц", 12: "Сектор 12 — Блиц"}
    seen = []
    for index, (text, other) in enumerate(zip(pages, poppler, strict=True)):
        on_page = 0
        for sector in context["sectors"]:
            number = sector["sector"]
            for q in sector["questions"]:
                key = f"{number}.{q['slot']}"
                if f"Вопрос {key}. Посмотрите на рисунок" not in text:
                    continue
                on_page += 1
                seen.append(key)
                assert header[number] in text and header[number] in other, (index, text)
                for piece in (f"Рисунок к вопросу {key}.", f"Автор: Автор {key}, Минск"):
                    assert piece in text and piece in other, (index, piece, text)
                if template == "host_card.html":
                    assert f"Ответ: Сова {key}" in text and f"Ответ: Сова {key}" in other
        # a sheet is never a sector header alone, nor a question's remains
        assert on_page >= 1, (index, text)
        # every handout box on the sheet has its image on the same sheet
        assert images_on(reader(pdf).pages[index]) == text.count("Раздаточный материал")
        assert text.count("Автор: Автор") == on_page, (index, text)
    # each of the 7 questions was found whole on one sheet that names its sector
    assert seen == ["1.1", "4.1", "4.2", "4.3", "12.1", "12.2", "12.3"]
    assert any("Сектор 12 — Блиц, продолжение" in t for t in pages)


def test_a_question_of_an_envelope_prints_the_emoji_a_viewer_typed(tmp_path: Path) -> None:
    """An emoji prints its glyph from the emoji font of the stack (fonts-noto-color-emoji),
    not an empty box: the font is embedded and the text reads back."""
    context = game_context()
    context["sectors"][0]["questions"][0]["text"] = "Кто кричит «Угу» 🦉 по ночам?"
    pdf = render_pdf("envelope.html", context)
    page = reader(pdf).pages[0]
    fonts = page["/Resources"]["/Font"]
    names = {str(fonts[key].get_object()["/BaseFont"]) for key in fonts}
    assert any(name.endswith("Noto-Color-Emoji") for name in names), names
    assert "Кто кричит «Угу» 🦉 по ночам?" in page_text(reader(pdf), 0)
    assert "Кто кричит «Угу» 🦉 по ночам?" in pdftotext_pages(pdf, tmp_path)[0]


def test_the_emoji_font_is_installed_everywhere_and_takes_no_digits() -> None:
    """The emoji font comes from the Debian package the CI script and the Dockerfile
    install; it is not named in the PDF font stacks (named there, it takes digits and
    spaces: amounts would print in emoji-font digits), so a text without emoji embeds
    DejaVu only (see also test_only_dejavu_fonts_are_embedded)."""
    root = Path(__file__).resolve().parents[2]
    for path in (root / ".ci" / "run", root / "deploy" / "Dockerfile"):
        assert "fonts-noto-color-emoji" in path.read_text(), path
    assert "Noto" not in (ASSETS_DIR / "pdf.css").read_text().split("*/", 1)[1]
    context = game_context()
    context["sectors"][0]["questions"][0]["text"] = "Приз 1 234 567,89 рубля 🦉"
    page = reader(render_pdf("envelope.html", context)).pages[0]
    assert "Приз 1 234 567,89 рубля 🦉" in " ".join(page.extract_text().split())
