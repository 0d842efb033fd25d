"""The payment register (XLSX, CSV and PDF, totals per currency) and the import of a bank's
paid list (CSV) that marks prizes paid.

Register rows: cash prizes paid in the period (``paid_on`` within it) and prizes signed
and waiting for payment (status ``signed``). The payee's account comes from the encrypted
details; each export is audited per prize (``PersonalDataAccess`` ``export``).

The PDF (``templates/pdf/payment_register.html``) is rendered by the worker task
``prizes.render_register`` into a ``Document`` of kind ``payment_register`` (key
``payment_register:<start>:<end>:v<n>``, one new version per request). It carries no
payee details but the name (no accounts), so a file kept on disk outlives no personal data
the retention job deletes; it is not a personal-data export. Every format names the payee
as the agreement does (:attr:`Prize.paper_payee`: the full name declared with the details,
kept on the prize).

CSV dialect (both ways): UTF-8 with BOM, ``;`` separated, amounts with a decimal comma
(``2000,00``) and no thousands separator, dates ``ДД.ММ.ГГГГ`` — what a Russian-locale
spreadsheet opens and saves.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from flask import current_app

from webapp.core.documents import Owner, request_document
from webapp.core.errors import OperationError
from webapp.core.formats import money
from webapp.core.models import Document
from webapp.core.spreadsheet import (
    BOM,
    XlsxSheet,
    csv_writer,
    decimal_comma,
    safe_row,
    xlsx_workbook,
)
from webapp.domain.books import cite
from webapp.domain.money import MoneyError, parse_amount
from webapp.extensions import db
from webapp.games.operations import FIRST_AIR_YEAR, LAST_AIR_YEAR
from webapp.prizes import payee
from webapp.prizes.models import STATUS_LABELS, GiftAgreement, Prize
from webapp.prizes.operations import PrizeError, mark_paid
from webapp.prizes.queries import kind_label

HEADER = [
    "№",
    "Договор",
    "Получатель",
    "Приз",
    "Основание",
    "Сумма",
    "Валюта",
    "Статус",
    "Дата оплаты",
    "Номер п/п",
    "Счёт получателя",
]
IMPORT_COLUMNS = {
    "договор": "number",
    "сумма": "amount",
    "дата": "paid_on",
    "номер п/п": "reference",
    "number": "number",
    "amount": "amount",
    "paid_on": "paid_on",
    "reference": "reference",
}


class RegisterError(OperationError, ValueError):
    """A bad period or a bad import file: ``lines`` lists Russian messages (with line
    numbers for the import); ``str(exc)`` joins them with "; "; ``errors`` is
    ``{"register": lines}``."""

    status = 422

    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors), errors={"register": list(errors)})
        self.lines = errors


def _dmy(d: date | None) -> str:
    return d.strftime("%d.%m.%Y") if d else ""


def _check_period(start: date, end: date) -> None:
    """Refuse (RegisterError) a period whose ends fall outside the show's years, as its air
    dates do (``FIRST_AIR_YEAR`` .. ``LAST_AIR_YEAR``: 1975..2100; ``0001-01-01`` or
    ``9999-12-31`` is a typo, not a period any prize was paid in), or that starts after its
    end."""
    outside = [
        f"{what} {d.day:02d}.{d.month:02d}.{d.year:04d}"  # %Y does not pad year 1 to 0001
        for what, d in (("начало", start), ("конец", end))
        if not FIRST_AIR_YEAR <= d.year <= LAST_AIR_YEAR
    ]
    if outside:
        raise RegisterError(
            [
                f"Период реестра — в годах передачи, с {FIRST_AIR_YEAR} по {LAST_AIR_YEAR}: "
                f"{', '.join(outside)}."
            ]
        )
    if start > end:
        raise RegisterError(["Начало периода позже его конца."])


def rule_short(rule: str) -> str:
    """``"000_90d7c8192601ed3a.txt §4.11.1"`` → ``"п. 4.11.1 (2023)"`` (the rule book's
    year, :func:`webapp.domain.books.cite`); anything else unchanged."""
    return cite(rule, style="column")


def shown(row: dict) -> dict:
    """A register row as every format prints it (XLSX, CSV and PDF alike): the clause
    short and in Russian (``"п. 4.11.1 (2023)"``, :func:`rule_short`), the status as its
    Russian label (``"выплачен"``)."""
    return {
        **row,
        "rule": rule_short(row["rule"]),
        "status": STATUS_LABELS.get(row["status"], row["status"]),
    }


def register_rows(
    start: date, end: date, user_id: int | None, *, accounts: bool = True
) -> tuple[list[dict], dict]:
    """Rows of the register for ``start``…``end`` (inclusive) and totals
    ``{currency: Decimal}`` (sorted by currency).

    Each row: ``{"n", "number", "payee", "prize", "rule", "amount": Decimal, "currency",
    "status", "paid_on": date | None, "reference", "account"}``. With ``accounts`` (the
    XLSX / CSV exports) the payee's full name and account come from the encrypted details
    and the export is audited per prize; without (the PDF) the name is the one recorded on
    the prize and ``account`` is "". Either way the payee is named as on the agreement:
    the declared full name (:attr:`Prize.paper_payee`; for a prize whose details came before
    the name was kept on it, the declared name read from the details, not audited, as for
    the agreement: :func:`webapp.prizes.payee.declared`), else the name on the question.
    Raises RegisterError for ``start > end``."""
    _check_period(start, end)
    prizes = db.session.scalars(
        db.select(Prize)
        .where(
            Prize.amount.is_not(None),
            db.or_(Prize.paid_on.between(start, end), Prize.status == "signed"),
        )
        .order_by(Prize.paid_on.is_(None), Prize.paid_on, Prize.id)
    ).all()
    details = (
        payee.details_for_export(
            [p.id for p in prizes], user_id, f"реестр {start.isoformat()}…{end.isoformat()}"
        )
        if accounts
        else {}
    )
    rows: list[dict] = []
    totals: dict = {}
    for n, p in enumerate(prizes, 1):
        d = details.get(p.id) or {}
        name = p.payee_name or d.get("full_name")
        if not name and not accounts:
            name = payee.declared(p)[0]
        rows.append(
            {
                "n": n,
                "number": p.agreement.number if p.agreement else "",
                "payee": name or p.payee,
                "prize": kind_label(p.kind),
                "rule": p.rule,
                "amount": p.amount,
                "currency": p.currency,
                "status": p.status,
                "paid_on": p.paid_on,
                "reference": p.payment_reference or "",
                "account": d.get("iban")
                or (f"{d['account']} БИК {d['bik']}" if d.get("account") else ""),
            }
        )
        totals[p.currency] = totals.get(p.currency, Decimal("0.00")) + p.amount
    return rows, dict(sorted(totals.items()))


def register_xlsx(start: date, end: date, user_id: int | None) -> bytes:
    """The register as an XLSX workbook (sheet «Реестр»): a title row, the header, one
    row per prize (amount a number, format ``#,##0.00``; dates as dates), then
    «Итого <валюта>» rows."""
    rows, totals = register_rows(start, end, user_id)
    out = io.BytesIO()
    with xlsx_workbook(out) as wb:
        sheet = XlsxSheet(wb, "Реестр")
        for col, width in enumerate((5, 12, 30, 30, 30, 14, 8, 16, 12, 14, 32)):
            sheet.ws.set_column(col, col, width)
        bold = sheet.format(bold=True)
        amount = sheet.format(num_format="#,##0.00")
        sheet.append([f"Реестр выплат призов за {_dmy(start)}–{_dmy(end)}"], {0: bold})
        sheet.append(HEADER, dict.fromkeys(range(len(HEADER)), bold))
        formats = {5: amount, 8: sheet.format(num_format="DD.MM.YYYY")}
        for r in map(shown, rows):
            sheet.append(
                [
                    r["n"],
                    r["number"],
                    r["payee"],
                    r["prize"],
                    r["rule"],
                    r["amount"],
                    r["currency"],
                    r["status"],
                    r["paid_on"],
                    r["reference"],
                    r["account"],
                ],
                formats,
            )
        for currency, total in totals.items():
            sheet.append(
                ["", "", f"Итого {currency}", "", "", total, currency], {2: bold, 5: amount}
            )
    return out.getvalue()


def _comma(amount: Decimal) -> str:
    """An amount as the CSV writes it: ``2000,00`` (:func:`decimal_comma`, 2 places)."""
    return decimal_comma(amount, 2)


def register_csv(start: date, end: date, user_id: int | None) -> bytes:
    """The register as CSV (see the module's dialect) with «Итого <валюта>» rows."""
    rows, totals = register_rows(start, end, user_id)
    buf = io.StringIO()
    w = csv_writer(buf)
    w.writerow(HEADER)
    for r in map(shown, rows):
        w.writerow(
            safe_row(
                [
                    r["n"],
                    r["number"],
                    r["payee"],
                    r["prize"],
                    r["rule"],
                    _comma(r["amount"]),
                    r["currency"],
                    r["status"],
                    _dmy(r["paid_on"]),
                    r["reference"],
                    r["account"],
                ]
            )
        )
    for currency, total in totals.items():
        w.writerow(["", "", f"Итого {currency}", "", "", _comma(total), currency, "", "", "", ""])
    return (BOM + buf.getvalue()).encode("utf-8")


REGISTER_PDF = "payment_register"


def request_register_pdf(start: date, end: date) -> Document:
    """Queue the PDF of the register for ``start``…``end``: a new ``Document`` (kind
    ``payment_register``, key ``payment_register:<start>:<end>:v<n>``, the next version for
    that period) rendered after commit by ``prizes.render_register``. The caller commits.
    Raises RegisterError for ``start > end``."""
    _check_period(start, end)
    prefix = f"{REGISTER_PDF}:{start.isoformat()}:{end.isoformat()}:v"
    version = 1 + db.session.scalar(
        db.select(db.func.count())
        .select_from(Document)
        .where(Document.kind == REGISTER_PDF, Document.key.startswith(prefix))
    )
    doc, _made = request_document(REGISTER_PDF, f"{prefix}{version}", Owner(), version=version)
    return doc


def register_period(doc: Document) -> tuple[date, date]:
    """``(start, end)`` of a register PDF from its key
    (``payment_register:2024-02-01:2024-02-29:v1``). Raises ValueError for another key."""
    kind, start, end, _version = doc.key.split(":")
    if kind != REGISTER_PDF:
        raise ValueError(f"document {doc.id} is not a payment register")
    return date.fromisoformat(start), date.fromisoformat(end)


def recent_register_pdfs(limit: int = 10) -> list[dict]:
    """The latest register PDFs, newest first: ``{"id", "start": date, "end": date,
    "version", "status", "created_at"}``."""
    docs = db.session.scalars(
        db.select(Document)
        .where(Document.kind == REGISTER_PDF)
        .order_by(Document.id.desc())
        .limit(limit)
    ).all()
    out = []
    for d in docs:
        start, end = register_period(d)
        out.append(
            {
                "id": d.id,
                "start": start,
                "end": end,
                "version": d.version,
                "status": d.status,
                "created_at": d.created_at,
            }
        )
    return out


def register_pdf_context(doc: Document) -> dict:
    """Context of ``templates/pdf/payment_register.html`` (primitives only)::

        {"period": {"start": "2024-02-01", "end": "2024-02-29"},
         "generated": "2024-03-01",   # the day the PDF was requested (SOVA_TIMEZONE)
         "version": 1,
         "rows": [{"n": 1, "number": "2023-0001", "payee": str, "prize": str,
                   "rule": "п. 4.11.1 (2023)", "amount": Decimal("150.00"),
                   "currency": "BYN", "status": "выплачен", "paid_on": "01.02.2024" | None,
                   "reference": str}],
         "totals": [{"currency": "BYN", "amount": Decimal("450.00"), "count": 2}]}

    Rows and totals as :func:`register_rows` without accounts (no account, nothing
    audited). Raises ValueError for a document that is not a register PDF.
    """
    start, end = register_period(doc)
    rows, totals = register_rows(start, end, None, accounts=False)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["currency"]] = counts.get(r["currency"], 0) + 1
    return {
        "period": {"start": start.isoformat(), "end": end.isoformat()},
        "generated": doc.created_at.astimezone(ZoneInfo(current_app.config["SOVA_TIMEZONE"]))
        .date()
        .isoformat(),
        "version": doc.version,
        "rows": [
            {
                "n": r["n"],
                "number": r["number"],
                "payee": r["payee"],
                "prize": r["prize"],
                "rule": r["rule"],
                "amount": r["amount"],
                "currency": r["currency"],
                "status": r["status"],
                "paid_on": _dmy(r["paid_on"]) or None,
                "reference": r["reference"],
            }
            for r in map(shown, rows)
        ],
        "totals": [{"currency": c, "amount": t, "count": counts[c]} for c, t in totals.items()],
    }


@dataclass(frozen=True)
class PaidLine:
    line: int
    number: str
    amount: Decimal
    paid_on: date
    reference: str


def _parse_date(value: str) -> date:
    for fmt in ("%d.%m.%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    raise ValueError(value)


def parse_paid_list(data: bytes) -> list[PaidLine]:
    """Parse a bank's paid list: CSV (``;`` or ``,``), UTF-8 (BOM allowed) or cp1251, with
    a header naming the columns ``Договор;Сумма;Дата;Номер п/п`` (or ``number;amount;
    paid_on;reference``). Raises RegisterError listing every bad line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1251")
    try:
        dialect = csv.Sniffer().sniff(text.splitlines()[0] if text else "", delimiters=";,")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ";"
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = next(reader, None)
    if not header:
        raise RegisterError(["Файл пуст."])
    cols = [IMPORT_COLUMNS.get(h.strip().lower()) for h in header]
    if not {"number", "amount", "paid_on", "reference"} <= set(cols):
        raise RegisterError(["Нужны столбцы: Договор;Сумма;Дата;Номер п/п."])
    out, errors = [], []
    for i, raw in enumerate(reader, start=2):
        if not any(c.strip() for c in raw):
            continue
        row = {c: raw[j].strip() for j, c in enumerate(cols) if c and j < len(raw)}
        try:
            # the money rules of every form (webapp.domain.money): digits, no exponent
            amount = parse_amount(row.get("amount", ""), form=True)
            if amount <= 0:
                raise MoneyError("Сумма должна быть больше нуля.")
        except MoneyError:
            errors.append(f"строка {i}: неверная сумма «{row.get('amount', '')}»")
            continue
        try:
            paid_on = _parse_date(row.get("paid_on", ""))
        except ValueError:
            errors.append(f"строка {i}: неверная дата «{row.get('paid_on', '')}»")
            continue
        if not row.get("number") or not row.get("reference"):
            errors.append(f"строка {i}: нет номера договора или платёжного поручения")
            continue
        out.append(
            PaidLine(i, row["number"], amount.quantize(Decimal("0.01")), paid_on, row["reference"])
        )
    if errors:
        raise RegisterError(errors)
    return out


def import_paid_list(data: bytes, user_id: int | None) -> int:
    """Mark the prizes of a bank's paid list paid. All or nothing: any unknown agreement,
    wrong amount or prize not signed stops the import (RegisterError listing every line)
    and nothing is marked. A line already imported (same reference) is skipped. Returns
    how many prizes were newly marked paid."""
    lines = parse_paid_list(data)
    errors, marked = [], 0
    for line in lines:
        agreement = db.session.scalar(
            db.select(GiftAgreement).where(GiftAgreement.number == line.number)
        )
        if agreement is None:
            errors.append(f"строка {line.line}: договор {line.number} не найден")
            continue
        prize = agreement.prize
        if prize.amount != line.amount:
            errors.append(
                f"строка {line.line}: сумма {money(line.amount)} не равна сумме "
                f"договора {line.number} ({money(prize.amount)})"
            )
            continue
        if prize.status in ("paid", "closed") and prize.payment_reference == line.reference:
            continue
        try:
            mark_paid(prize, line.paid_on, line.reference, user_id)
        except PrizeError as exc:
            errors.append(f"строка {line.line}: {exc.message}")
            continue
        marked += 1
    if errors:
        raise RegisterError(errors)  # the caller rolls back: nothing is marked
    return marked
