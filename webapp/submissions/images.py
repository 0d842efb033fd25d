"""Handout images from viewers: verified and re-encoded with Pillow, metadata stripped.

Accepted: JPEG, PNG, WebP up to 5 MB (``MAX_BYTES``) and 40 megapixels. The stored file is
a fresh encoding of the pixels only (no EXIF, GPS, ICC text chunks), named by a random
token, under ``<instance>/uploads`` (outside the web root; served to staff only).
"""

from __future__ import annotations

import io
import math
import secrets
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
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{secrets.token_hex(16)}.{FORMATS[fmt]}"
    (folder / name).write_bytes(out.getvalue())
    return name
