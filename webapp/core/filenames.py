"""Names of the files people download, saying what each file is: «Конверты — игра 12 —
2026-12-05.pdf», «Очередь вопросов — на рассмотрении — 2026-12-02.csv». The name travels
in ``Content-Disposition`` as RFC 6266 ``filename*`` (UTF-8) with an ASCII ``filename``
fallback: Flask's ``send_file(download_name=…)`` writes both; :func:`send_bytes` does it for
a file made in memory."""

from __future__ import annotations

import io
import re

from flask import send_file

#: Characters no file name may hold on common systems (path separators, Windows' reserved
#: ones, control characters): each becomes a space.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def file_name(*parts: object, ext: str) -> str:
    """The parts joined with « — » (empty parts left out), then ``.ext``; characters a file
    name cannot hold become spaces, runs of spaces one. ``file_name("Конверты", "игра 12",
    "2026-12-05", ext="pdf")`` → ``"Конверты — игра 12 — 2026-12-05.pdf"``."""
    texts = [" ".join(_UNSAFE.sub(" ", str(p)).split()) for p in parts]
    return " — ".join(t for t in texts if t)[:180] + "." + ext.lstrip(".")


def send_bytes(data: bytes, name: str, mimetype: str, *, attachment: bool = True):
    """A response with ``data`` as the file ``name`` (``Content-Disposition: attachment;
    filename="…"; filename*=UTF-8''…``; ``inline`` when not ``attachment``)."""
    return send_file(
        io.BytesIO(data), mimetype=mimetype, as_attachment=attachment, download_name=name
    )
