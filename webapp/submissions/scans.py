"""The scan of a paper letter (channel ``mail``), typed in by an editor: an image (JPEG, PNG,
WebP: checked and re-encoded as a handout image is, :func:`webapp.submissions.images.store_image`)
or a PDF.

A PDF is recognised by its content, never by its name: it must start with ``%PDF-`` and
open in pypdf with 1 to :data:`MAX_PAGES` pages, unencrypted, at most :data:`MAX_PDF_BYTES`.
What is stored is a fresh PDF holding only those pages (pypdf's writer): no annotations, no
page or document actions, no JavaScript, no attached files, no metadata — what a scanner
puts in a letter's scan and nothing a crafted file could run. Every scan is stored under
``<uploads>/letters`` with mode 0600, named by a random token; it is served to staff only
(``submissions.letter_scan``): a PDF always as a download (``application/pdf``,
``Content-Disposition: attachment``), never shown inline.
"""

from __future__ import annotations

import io
import os
import secrets
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.errors import PyPdfError

from webapp.submissions.images import ImageError, store_image

#: Bytes of a PDF scan at most (an image scan: ``images.MAX_BYTES``, 5 MB).
MAX_PDF_BYTES = 10 * 1024 * 1024
#: Pages of a PDF scan at most (a letter, not a book).
MAX_PAGES = 50
#: The folder of the letters' scans under the uploads folder.
FOLDER = "letters"
#: A stored scan's file mode: the owner (the service) reads and writes it, nobody else.
MODE = 0o600


class ScanError(ImageError):
    """Not an acceptable scan; the message (Russian: a staff page) is shown on the form."""


def is_pdf(data: bytes) -> bool:
    """Whether ``data`` claims to be a PDF: it starts with ``%PDF-`` (its content, not its
    name, decides)."""
    return data[:5] == b"%PDF-"


def clean_pdf(data: bytes) -> bytes:
    """The pages of the PDF ``data`` as a fresh PDF without annotations, actions, scripts,
    attachments or metadata. Raises ScanError for a file over :data:`MAX_PDF_BYTES`, one
    pypdf cannot read, an encrypted one, or one with no page or more than
    :data:`MAX_PAGES`."""
    if len(data) > MAX_PDF_BYTES:
        raise ScanError(f"Скан в PDF больше {MAX_PDF_BYTES // (1024 * 1024)} МБ.")
    broken = ScanError("Файл не открывается как PDF.")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ScanError("PDF зашифрован: загрузите скан без пароля.")
        pages = len(reader.pages)
        if not 1 <= pages <= MAX_PAGES:
            raise ScanError(f"В скане в PDF должно быть от 1 до {MAX_PAGES} страниц.")
        writer = PdfWriter()
        for page in reader.pages:
            writer.add_page(page)
        writer.remove_annotations(subtypes=None)
        for page in writer.pages:
            # a page's own actions (on open, on close) go too; the document's (OpenAction,
            # names, attachments) were never copied: the writer starts from a new catalog
            for key in ("/AA", "/Annots"):
                if key in page:
                    del page[key]
        out = io.BytesIO()
        writer.write(out)
    except ScanError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError):
        raise broken from None
    return out.getvalue()


def store_scan(data: bytes, uploads: Path, filename: str = "") -> str:
    """Check and store a letter's scan under ``uploads / FOLDER``, mode :data:`MODE`.
    Returns its path relative to ``uploads`` (``"letters/<token>.pdf"``). A PDF by content
    (:func:`is_pdf`) is cleaned (:func:`clean_pdf`); anything else must be an image
    (``store_image``: JPEG, PNG, WebP up to 5 MB) — a file named ``.pdf`` that is no PDF is
    refused as such. Raises ScanError / ImageError."""
    folder = uploads / FOLDER
    if not is_pdf(data) and filename.lower().endswith(".pdf"):
        raise ScanError("Файл не открывается как PDF.")
    if is_pdf(data):
        clean = clean_pdf(data)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{secrets.token_hex(16)}.pdf"
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, MODE)
        with os.fdopen(fd, "wb") as out:
            out.write(clean)
    else:
        name = store_image(data, folder)
        os.chmod(folder / name, MODE)
    return f"{FOLDER}/{name}"


#: A stored scan's suffix → the media type it is served with.
MEDIA_TYPES = {
    ".pdf": "application/pdf",
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
}
