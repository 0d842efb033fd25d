"""Names of the files people download, saying what each file is: «Конверты — игра 12 —
2026-12-05.pdf», «Очередь вопросов — на рассмотрении — 2026-12-02.csv». The name travels
in ``Content-Disposition`` as RFC 6266 ``filename*`` (UTF-8) with an ASCII ``filename``
fallback: Flask's ``send_file(download_name=…)`` writes both; :func:`send_bytes` does it for
a file made in memory, :func:`send_stream` for a file made as it is sent."""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import quote

from flask import Response, send_file, stream_with_context
from werkzeug.datastructures import Headers

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


def disposition(name: str, *, attachment: bool = True) -> str:
    """The ``Content-Disposition`` value for a file ``name``, as Werkzeug's ``send_file``
    writes it: ``attachment; filename="…"`` for an ASCII name; else the ASCII fallback
    (NFKD, other characters dropped) and ``filename*=UTF-8''…`` (RFC 5987)."""
    try:
        name.encode("ascii")
    except UnicodeEncodeError:
        simple = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
        names = {"filename": simple, "filename*": "UTF-8''" + quote(name, safe="!#$&+-.^_`|~")}
    else:
        names = {"filename": name}
    headers = Headers()
    headers.set("Content-Disposition", "attachment" if attachment else "inline", **names)
    return headers["Content-Disposition"]


def send_stream(chunks: Iterator[bytes], name: str, mimetype: str, *, attachment: bool = True):
    """A response whose body is ``chunks`` (a generator of ``bytes``), sent as they come
    (no ``Content-Length``), with the request context kept for the generator
    (``stream_with_context``: it may read the database), named as :func:`send_bytes` names
    a file and, like it, ``Cache-Control: no-cache``."""
    resp = Response(stream_with_context(chunks), mimetype=mimetype)
    resp.headers["Content-Disposition"] = disposition(name, attachment=attachment)
    resp.cache_control.no_cache = True
    return resp
