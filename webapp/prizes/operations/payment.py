"""The signed agreement's scan, payment and closing of a prize."""

from __future__ import annotations

import hashlib
import io
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from flask import current_app
from PIL import Image, UnidentifiedImageError
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from webapp.core.formats import when
from webapp.core.models import Document, utcnow
from webapp.extensions import db
from webapp.prizes.models import (
    PayeeDetails,
    Prize,
)
from webapp.prizes.operations.common import PrizeError, change_status

#: The signed scan's file name suffix → the format its content must open as.
SCAN_FORMATS = {".pdf": "PDF", ".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}
SCAN_MAX_BYTES = 10 * 1024 * 1024


def scan_format(scan: bytes, filename: str) -> str:
    """Check that ``scan`` really is what its name says: a PDF that pypdf opens with at
    least one page, or a PNG / JPEG that Pillow opens and verifies (≤ 10 MB, at most
    Pillow's decompression-bomb pixel limit). Returns ``"PDF"``, ``"PNG"`` or ``"JPEG"``;
    raises PrizeError otherwise (a file that only starts like one is refused)."""
    wrong = PrizeError("скан договора: нужен файл PDF, PNG или JPEG")
    expected = SCAN_FORMATS.get(Path(filename or "").suffix.lower())
    if expected is None:
        raise wrong
    if len(scan) > SCAN_MAX_BYTES:
        raise PrizeError("скан договора больше 10 МБ")
    if expected == "PDF":
        try:
            pages = len(PdfReader(io.BytesIO(scan)).pages)
        except (PyPdfError, ValueError, KeyError, TypeError, OSError):
            pages = 0
        if pages < 1:
            raise PrizeError("скан договора: файл не открывается как PDF")
        return "PDF"
    try:
        with Image.open(io.BytesIO(scan)) as image:
            found = image.format
            image.verify()
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, SyntaxError, ValueError):
        raise PrizeError(
            "скан договора: файл не открывается как изображение PNG или JPEG"
        ) from None
    if found != expected:
        raise wrong
    return found


def mark_signed(prize: Prize, scan: bytes, filename: str, user_id: int | None) -> Document:
    """Store the scan of the signed agreement and mark the prize ``signed``.

    ``scan``: a PDF, PNG or JPEG of at most 10 MB that really opens as one
    (:func:`scan_format`). The payee's details must have been received (owed →
    details requested → details received → agreement issued → signed): the agreement the
    payee signs carries their passport data and address. Raises PrizeError for a wrong
    file, missing details or a status that cannot become ``signed``.
    """
    agreement = prize.agreement
    if agreement is None:
        raise PrizeError(f"у приза {prize.id} нет договора дарения")
    suffix = Path(filename or "").suffix.lower()
    scan_format(scan, filename)
    received = db.session.scalar(
        db.select(PayeeDetails.id).where(PayeeDetails.prize_id == prize.id)
    )
    if received is None:
        raise PrizeError(
            f"приз {prize.id}: реквизиты получателя не получены — договор "
            f"{agreement.number} подписывается после получения паспортных "
            f"данных и адреса"
        )
    change_status(prize, "signed", user_id, f"скан подписанного договора {agreement.number}")
    sha = hashlib.sha256(scan).hexdigest()
    rel = f"signed/{agreement.number}-{sha[:12]}{suffix}"
    path = Path(current_app.config["SOVA_DOCUMENTS_PATH"]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(scan)
    doc = Document(
        key=f"signed_scan:prize:{prize.id}:{sha[:16]}",
        kind="signed_scan",
        game_id=prize.game_id,
        prize_id=prize.id,
        version=1,
        status="ready",
        sha256=sha,
        path=rel,
        created_at=utcnow(),
        rendered_at=utcnow(),
    )
    db.session.add(doc)
    db.session.flush()
    agreement.signed_document_id = doc.id
    agreement.status = "signed"
    return doc


def check_payment(prize: Prize, paid_on: date, reference: str) -> str:
    """The payment order's number with its spaces normalised, if ``paid_on`` and
    ``reference`` can be recorded for ``prize``: a date neither after today in the season's
    time zone nor before the game's air date (a prize is paid after the game it was won
    in), a number of 1–100 characters without ``<`` or ``>``. A payment cannot be corrected
    once recorded, so a wrong one is refused here (PrizeError, HTTP 422)."""
    reference = " ".join((reference or "").split())
    if not reference or len(reference) > 100:
        raise PrizeError("номер платёжного поручения: от 1 до 100 символов", status=422)
    if "<" in reference or ">" in reference:
        raise PrizeError(
            "номер платёжного поручения не может содержать знаки «<» и «>»: укажите номер "
            "так, как он напечатан в выписке банка",
            status=422,
        )
    today = datetime.now(ZoneInfo(prize.game.season.timezone)).date()
    if paid_on > today:
        raise PrizeError(
            f"дата оплаты {when(paid_on)} ещё не наступила (сегодня {when(today)}): "
            f"укажите дату из выписки банка",
            status=422,
        )
    if paid_on < prize.game.air_date:
        raise PrizeError(
            f"дата оплаты {when(paid_on)} раньше игры ({when(prize.game.air_date)}): "
            f"приз не мог быть выплачен до игры, укажите дату из выписки банка",
            status=422,
        )
    return reference


def mark_paid(prize: Prize, paid_on: date, reference: str, user_id: int | None) -> Prize:
    """Record the payment (``paid_on``: the bank's date; ``reference``: the payment order's
    number, as checked by :func:`check_payment`) and mark the prize ``paid``. Paying a paid
    prize again with the same reference does nothing. A recorded payment has no
    correction. Raises PrizeError."""
    if prize.status in ("paid", "closed") and prize.payment_reference == " ".join(
        (reference or "").split()
    ):
        return prize
    reference = check_payment(prize, paid_on, reference)
    if prize.amount is None:
        raise PrizeError(f"приз {prize.id} без денежной суммы: выплачивать нечего")
    prize.paid_on = paid_on
    prize.payment_reference = reference
    change_status(prize, "paid", user_id, f"оплачен {when(paid_on)}, {prize.payment_order}")
    return prize


def close_prize(prize: Prize, user_id: int | None) -> Prize:
    """Close a paid prize (or a prize without cash). Raises PrizeError."""
    change_status(prize, "closed", user_id, "закрыт")
    return prize
