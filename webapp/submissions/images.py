"""Handout images from viewers: verified and re-encoded with Pillow, metadata stripped.

Accepted: JPEG, PNG, WebP up to 5 MB (``MAX_BYTES``) and 40 megapixels. The stored file is
a fresh encoding of the pixels only (no EXIF, GPS, ICC text chunks), named by a random
token, under ``<instance>/uploads`` (outside the web root; served to staff only).
"""

from __future__ import annotations

import io
import secrets
from pathlib import Path

from flask_babel import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000
FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}


class ImageError(ValueError):
    """Not an acceptable image; the message is shown to the viewer (in the page's
    language: Russian, Belarusian or English)."""


def store_image(data: bytes, folder: Path) -> str:
    """Verify ``data`` and write a clean re-encoding into ``folder``.

    Returns the stored file name (``"<token>.png"``). Raises ImageError for a file over
    5 MB, not an image, an image of another format, or too many pixels.
    """
    if len(data) > MAX_BYTES:
        raise ImageError(_("Изображение больше 5 МБ."))
    too_big = _("Слишком большое изображение: не более %(n)s мегапикселей.",
                n=MAX_PIXELS // 1_000_000)
    try:
        with Image.open(io.BytesIO(data)) as probe:
            fmt = probe.format
            probe.verify()
        img: Image.Image
        with Image.open(io.BytesIO(data)) as img:
            if img.width * img.height > MAX_PIXELS:
                raise ImageError(too_big)
            img = ImageOps.exif_transpose(img)  # keep the orientation, drop the EXIF
            if fmt not in FORMATS:
                raise ImageError(_("Допускаются только JPEG, PNG и WebP."))
            clean = Image.new(img.mode if img.mode in ("RGB", "RGBA", "L") else "RGB",
                              img.size)
            clean.paste(img.convert(clean.mode))
    except Image.DecompressionBombError as exc:  # dimensions far beyond MAX_PIXELS
        raise ImageError(too_big) from exc
    except (UnidentifiedImageError, OSError) as exc:
        raise ImageError(_("Файл не является изображением JPEG, PNG или WebP.")) from exc
    ext = FORMATS[fmt]
    if ext == "jpg" and clean.mode == "RGBA":
        clean = clean.convert("RGB")
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{secrets.token_hex(16)}.{ext}"
    out = io.BytesIO()
    clean.save(out, format=fmt, **({"quality": 90} if fmt in ("JPEG", "WEBP") else {}))
    (folder / name).write_bytes(out.getvalue())
    return name
