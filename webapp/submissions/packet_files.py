"""Reading question-packet files from disk: encoding detection + parsing.

Packets arrive as UTF-8 (with or without BOM), or, from older tools and
db.chgk.info, as KOI8-R or Windows-1251. :func:`decode_packet_bytes` picks the
encoding; :func:`read_packet_file` decodes and parses (4s or db format, see
:mod:`webapp.domain.packets`).
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from webapp.core.chars import code_point, forbidden
from webapp.domain.packets import Packet, PacketError, parse_packet

__all__ = [
    "MAX_PACKET_BYTES",
    "SAMPLE_PACKET",
    "decode_packet_bytes",
    "read_packet_bytes",
    "read_packet_file",
]

#: A packet of 500 questions is ~300 KB; anything this big is not a packet.
MAX_PACKET_BYTES = 10 * 1024 * 1024

#: A small packet of original questions shipped with the app (demo data, tests).
SAMPLE_PACKET = Path(__file__).with_name("sample_packet.4s")

_CYR_LOWER = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")
_CYR_UPPER = {c.upper() for c in _CYR_LOWER}
# The most frequent Russian letters: right-decoded text is full of them.
_FREQUENT = set("оеаинтсрвлкмдпу")


def _russian_score(text: str) -> float:
    """How Russian ``text`` looks. KOI8-R read as cp1251 (and vice versa) swaps
    letter case and scrambles letters, so the wrong decoding scores low."""
    lower = sum(1 for c in text if c in _CYR_LOWER)
    upper = sum(1 for c in text if c in _CYR_UPPER)
    letters = lower + upper
    if not letters:
        return 0.0
    frequent = sum(1 for c in text if c in _FREQUENT)
    return lower / letters + frequent / letters


def _charset_normalizer_guess(data: bytes) -> str | None:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - it is a declared dependency
        return None
    best = from_bytes(data, cp_isolation=["koi8_r", "cp1251"]).best()
    return best.encoding if best else None


def decode_packet_bytes(data: bytes) -> tuple[str, str]:
    """Decode packet bytes; return ``(text, encoding)``.

    Order: UTF-8 with BOM (``"utf-8-sig"``), strict UTF-8 (``"utf-8"``), else
    KOI8-R (``"koi8_r"``) or Windows-1251 (``"cp1251"``), whichever gives more
    Russian-looking text (lower-case and frequent Cyrillic letters);
    charset-normalizer, restricted to those two, breaks a tie (e.g. no
    Cyrillic letters at all; cp1251 if it cannot decide either). Bytes that
    cp1251 cannot decode (0x98) mean KOI8-R.

    Raises :class:`PacketError` for a BOM followed by invalid UTF-8. Binary
    data is not rejected here (KOI8-R decodes any byte string); the parser
    rejects the control characters it produces, with a line number.
    """
    if data.startswith(codecs.BOM_UTF8):
        try:
            return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError as exc:
            line = data[: exc.start + len(codecs.BOM_UTF8)].count(b"\n") + 1
            raise PacketError(
                "file starts with a UTF-8 BOM but is not UTF-8", line, code="bom_not_utf8"
            ) from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    candidates = {}
    for enc in ("koi8_r", "cp1251"):
        try:
            candidates[enc] = data.decode(enc)
        except UnicodeDecodeError:  # cp1251 has no byte 0x98: then it is not cp1251
            continue
    if len(candidates) == 1:
        return next(iter(candidates.values())), next(iter(candidates))
    scores = {enc: _russian_score(text) for enc, text in candidates.items()}
    if scores["koi8_r"] != scores["cp1251"]:
        encoding = max(scores, key=scores.__getitem__)
    else:
        encoding = _charset_normalizer_guess(data) or "cp1251"
        if encoding not in candidates:
            encoding = "cp1251"
    return candidates[encoding], encoding


def _check_chars(text: str) -> None:
    """Refuse a packet holding a character no text of Sova may hold
    (:func:`webapp.core.chars.forbidden`: a noncharacter such as U+FFFE, a C1 control, a
    bidi override), with its line: :class:`PacketError` ``unfit_char`` (``params["code"]``:
    ``"U+FFFE"``). Run after the parser, which names other control characters itself."""
    bad = forbidden(text)
    if bad is not None:
        line = text[: text.index(bad)].count("\n") + 1
        point = code_point(bad)
        raise PacketError(
            f"character {point} cannot be stored or printed",
            line,
            code="unfit_char",
            params={"code": point},
        )


def read_packet_file(
    path: str | os.PathLike[str], max_bytes: int | None = MAX_PACKET_BYTES
) -> Packet:
    """Read and parse a packet file (4s or db.chgk.info format, format detected).
    ``max_bytes``: the largest file taken (None: any size — the command line's import,
    whose operator chose the file; the web upload keeps the cap).

    The encoding is detected by :func:`decode_packet_bytes` and stored in
    ``packet.meta["encoding"]``; ``packet.meta["filename"]`` is the file name.

    Raises :class:`PacketError` whose ``filename`` is the file name and whose
    ``line`` is the 1-based line of the problem (``None`` for a file that is
    too large), and ``OSError`` if the file cannot be read.
    """
    path = Path(path)
    with path.open("rb") as f:
        data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    return read_packet_bytes(data, path.name, max_bytes)


def read_packet_bytes(
    data: bytes, filename: str, max_bytes: int | None = MAX_PACKET_BYTES
) -> Packet:
    """:func:`read_packet_file` for bytes already read (an upload, a zip's packet file)."""
    if max_bytes is not None and len(data) > max_bytes:
        raise PacketError(
            f"file is larger than {max_bytes} bytes",
            None,
            filename,
            code="too_large",
            params={"max_bytes": max_bytes},
        )
    try:
        text, encoding = decode_packet_bytes(data)
        packet = parse_packet(text)
        _check_chars(text)
    except PacketError as exc:
        raise exc.with_filename(filename) from exc
    packet.meta["encoding"] = encoding
    packet.meta["filename"] = filename
    return packet
