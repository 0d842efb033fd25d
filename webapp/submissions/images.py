"""Handout images from viewers: verified and re-encoded with Pillow, metadata stripped.

Accepted: JPEG, PNG, WebP up to 5 MB (``MAX_BYTES``) and 40 megapixels. The stored file is
a fresh encoding of the pixels only (no EXIF, GPS, ICC text chunks), named by a random
token, under ``<instance>/uploads`` (outside the web root; served to staff only), readable by
Sova's own user only (0600).

A viewer's image on a form that comes back with an error is *kept*: stored the same way under
``<instance>/uploads/pending`` (:func:`keep_image`), named to the viewer's page only by a
signed token (``webapp.submissions.views.submit_form``), copied among the uploads when the
question is stored (:func:`adopt_kept_image`) and removed then, or after
:data:`KEPT_IMAGE_AGE` by the next :func:`keep_image` (:func:`purge_kept_images`).
"""

from __future__ import annotations

import io
import math
import os
import re
import secrets
import time
from pathlib import Path

from flask_babel import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 5 * 1024 * 1024
#: Largest image accepted at all (its header is read before any pixel is decoded).
MAX_PIXELS = 40_000_000
#: Pixels decoded at most (a 154 KB PNG of 6300×6300 cost ~600 MB per worker).
#: JPEG decodes scaled down by the decoder itself (``draft``) to fit; PNG and WebP cannot
#: be decoded scaled, so above this they are refused with a message.
DECODE_PIXELS = 16_000_000
#: Longest side of the stored image (a handout printed on an A4 envelope card).
MAX_SIDE = 4096
FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}
#: The folder of kept images, under the uploads folder.
PENDING = "pending"
#: Seconds a kept image lives (the form's own life: its signed start time is read 24 h).
KEPT_IMAGE_AGE = 24 * 3600
#: A stored file's name: 128 random bits in hex and the format's suffix, nothing else.
STORED_NAME = re.compile(r"[0-9a-f]{32}\.(?:jpg|png|webp)")


class ImageError(ValueError):
    """Not an acceptable image; the message is shown to the viewer (in the page's
    language: Russian, Belarusian or English)."""


def store_image(data: bytes, folder: Path) -> str:
    """Verify ``data`` and write a clean re-encoding into ``folder``.

    Returns the stored file name (``"<token>.png"``). Raises ImageError for a file over
    5 MB, not an image, an image of another format, too many pixels (``MAX_PIXELS``), or
    a PNG/WebP over ``DECODE_PIXELS``. Memory is bounded: at most ``DECODE_PIXELS``
    pixels are decoded (JPEG via the decoder's ``draft`` scaling), the image is scaled to
    ``MAX_SIDE`` in place and re-encoded from that one copy (about 4 bytes per pixel, so
    under 100 MB for any accepted file).
    """
    if len(data) > MAX_BYTES:
        raise ImageError(_("Изображение больше 5 МБ."))
    too_big = _(
        "Слишком большое изображение: не более %(n)s мегапикселей.", n=MAX_PIXELS // 1_000_000
    )
    try:
        with Image.open(io.BytesIO(data)) as probe:
            fmt = probe.format
            probe.verify()
        if fmt not in FORMATS:
            raise ImageError(_("Допускаются только JPEG, PNG и WebP."))
        img: Image.Image
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise ImageError(too_big)
            if fmt == "JPEG" and img.width * img.height > DECODE_PIXELS:
                scale = math.ceil(math.sqrt(img.width * img.height / DECODE_PIXELS))
                img.draft("RGB", (img.width // scale, img.height // scale))  # DCT 1/2…1/8
            if img.width * img.height > DECODE_PIXELS:
                raise ImageError(
                    _(
                        "Слишком большое изображение PNG или WebP: не более %(n)s мегапикселей "
                        "(JPEG может быть больше).",
                        n=DECODE_PIXELS // 1_000_000,
                    )
                )
            img.thumbnail((MAX_SIDE, MAX_SIDE))  # in place; decodes (reduced) once
            ImageOps.exif_transpose(img, in_place=True)  # keep the orientation
            if img.mode not in ("RGB", "RGBA", "L"):
                img = img.convert("RGBA" if "A" in img.getbands() else "RGB")
            if fmt == "JPEG" and img.mode == "RGBA":
                img = img.convert("RGB")
            img.info.clear()  # pixels only: no EXIF, ICC profile or text chunks
            out = io.BytesIO()
            img.save(out, format=fmt, **({"quality": 90} if fmt in ("JPEG", "WEBP") else {}))
    except Image.DecompressionBombError as exc:  # dimensions far beyond MAX_PIXELS
        raise ImageError(too_big) from exc
    except (UnidentifiedImageError, OSError) as exc:
        raise ImageError(_("Файл не является изображением JPEG, PNG или WebP.")) from exc
    return _write_private(folder, FORMATS[fmt], out.getvalue())


def _write_private(folder: Path, suffix: str, data: bytes) -> str:
    """Write ``data`` to a new file ``<random>.<suffix>`` in ``folder`` (made if missing),
    mode 0600 (personal data: only Sova's own user reads it); returns the file's name."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{secrets.token_hex(16)}.{suffix}"
    fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return name


def keep_image(data: bytes, uploads: Path) -> str:
    """Verify and store a viewer's image while its form is corrected
    (:func:`store_image` into ``uploads/pending``); returns the kept file's name. Removes
    the kept images older than :data:`KEPT_IMAGE_AGE` first. Raises ImageError."""
    purge_kept_images(uploads)
    return store_image(data, uploads / PENDING)


def kept_image_path(uploads: Path, name: str | None) -> Path | None:
    """The kept image ``name`` (a stored name, :data:`STORED_NAME`; anything else, a path
    included, is None) under ``uploads/pending`` if it still exists, else None."""
    if not name or not STORED_NAME.fullmatch(name):
        return None
    path = uploads / PENDING / name
    return path if path.is_file() else None


def adopt_kept_image(uploads: Path, name: str) -> str:
    """Copy the kept image ``name`` among the uploads under a new name (0600) and return
    that name; the kept file stays until :func:`discard_kept_image` (a form refused later
    still shows it). A fresh name per copy: a repeat's clean-up never removes the file of
    the first question. Raises ImageError when the kept image is gone (purged)."""
    path = kept_image_path(uploads, name)
    try:
        data = path.read_bytes() if path is not None else None
    except FileNotFoundError:
        data = None
    if data is None:
        raise ImageError(
            _("Приложенное изображение больше не хранится. Приложите его, пожалуйста, ещё раз.")
        )
    return _write_private(uploads, name.rsplit(".", 1)[1], data)


def discard_kept_image(uploads: Path, name: str | None) -> None:
    """Remove the kept image ``name`` (nothing if it is not a kept image's name)."""
    path = kept_image_path(uploads, name)
    if path is not None:
        path.unlink(missing_ok=True)


def purge_kept_images(uploads: Path, older_than: float = KEPT_IMAGE_AGE) -> int:
    """Remove the kept images last written more than ``older_than`` seconds ago; returns
    how many."""
    folder = uploads / PENDING
    if not folder.is_dir():
        return 0
    cutoff = time.time() - older_than
    removed = 0
    for path in folder.iterdir():
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except FileNotFoundError:  # removed meanwhile by another request
            continue
    return removed
