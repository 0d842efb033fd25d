"""Names of the files people download, saying what each file is: «Конверты — игра 12 —
2026-12-05.pdf», «Очередь вопросов — на рассмотрении — 2026-12-02.csv». The name travels
in ``Content-Disposition`` as RFC 6266 ``filename*`` (UTF-8) with an ASCII ``filename``
fallback transliterated from Cyrillic (:func:`ascii_name`: «Konverty - igra 12 -
2026-12-05.pdf»); :func:`send_bytes` sends a file made in memory, :func:`send_path` one on
disk, :func:`send_stream` a file made as it is sent."""

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


#: Russian and Belarusian letters in Latin (no installed library transliterates; the
#: scheme follows the passport one, ICAO Doc 9303, with ``ў`` → ``w``). Upper-case letters
#: are derived: ``Щ`` → ``Shch``.
_CYRILLIC = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюяіў",
        "a b v g d e e zh z i i k l m n o p r s t u f kh ts ch sh shch ie y  e iu ia i w".split(
            " "
        ),
        strict=True,
    )
)
_TRANSLIT = {ord(k): v for k, v in _CYRILLIC.items()} | {
    ord(k.upper()): v.capitalize() for k, v in _CYRILLIC.items()
}
#: Dashes become a hyphen; guillemets and typographic quotes are dropped.
_TRANSLIT |= {ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"}
_TRANSLIT |= {ord(c): "" for c in "«»„“”‘’"}


def ascii_name(name: str) -> str:
    """The plain-ASCII fallback of a file ``name`` (for ``filename=``): Cyrillic letters
    transliterated, dashes as ``-``, accents stripped (NFKD), other non-ASCII characters
    dropped, runs of spaces one, no space before the extension. «Конверты — игра 12 —
    2026-12-05.pdf» → «Konverty - igra 12 - 2026-12-05.pdf»; a name with nothing left
    becomes ``file.ext``."""
    text = unicodedata.normalize("NFKD", name.translate(_TRANSLIT))
    text = text.translate(_TRANSLIT).encode("ascii", "ignore").decode("ascii")
    stem, dot, ext = text.rpartition(".")
    if not dot:
        stem, ext = text, ""
    stem = " ".join(_UNSAFE.sub(" ", stem).split()).strip(" -")
    return (stem or "file") + (dot + ext if ext else "")


def _named(resp: Response, name: str, attachment: bool) -> Response:
    resp.headers["Content-Disposition"] = disposition(name, attachment=attachment)
    return resp


def send_bytes(data: bytes, name: str, mimetype: str, *, attachment: bool = True):
    """A response with ``data`` as the file ``name`` (``Content-Disposition: attachment;
    filename="…"; filename*=UTF-8''…``, the ASCII one by :func:`ascii_name`; ``inline``
    when not ``attachment``)."""
    resp = send_file(
        io.BytesIO(data), mimetype=mimetype, as_attachment=attachment, download_name=name
    )
    return _named(resp, name, attachment)


def send_path(path, name: str, mimetype: str | None = None, *, attachment: bool = True):
    """As :func:`send_bytes` for a file on disk at ``path`` (``send_file`` with
    conditional requests)."""
    resp = send_file(path, mimetype=mimetype, as_attachment=attachment, download_name=name)
    return _named(resp, name, attachment)


def disposition(name: str, *, attachment: bool = True) -> str:
    """The ``Content-Disposition`` value for a file ``name``, as Werkzeug's ``send_file``
    lays it out: ``attachment; filename="…"`` for an ASCII name; else the ASCII fallback
    (:func:`ascii_name`) and ``filename*=UTF-8''…`` (RFC 5987, the exact name)."""
    try:
        name.encode("ascii")
    except UnicodeEncodeError:
        simple = ascii_name(name)
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
