"""Which characters text typed by a person may hold: the one check behind every text input
(the forms' fields, ``webapp.core.fields``; every string of an API body, ``webapp.api``),
and the last guard of what Sova writes as XML (the Atom feed).

Refused in any user text (:func:`forbidden`): characters that can never be valid in XML 1.0
or printed on paper — C0 controls other than TAB, LF and CR, DEL and the C1 controls
(U+0080–U+009F), lone UTF-16 surrogates (U+D800–U+DFFF), the Unicode noncharacters
(U+FDD0–U+FDEF and the last two code points of every plane, U+FFFE, U+FFFF, U+1FFFE, …) —
and the bidirectional embedding, override and isolate controls (U+202A–U+202E,
U+2066–U+2069), which reorder what a reader sees of the text around them («Trojan
Source»). A password holds no control character at all (:func:`forbidden_in_password`): not
even TAB, LF or CR, which no keyboard types into a password field.

XML 1.0 (Fifth Edition) §2.2 ``Char`` excludes the C0 controls, surrogates, U+FFFE and
U+FFFF; the rest of the list is «discouraged» there (§2.2 note) and has no glyph on paper.
"""

from __future__ import annotations

import re

#: The controls XML 1.0 and paper take: TAB, LF, CR.
WHITESPACE_CONTROLS = frozenset("\t\n\r")

#: The bidirectional formatting characters that embed, override or isolate.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def refused(c: str) -> bool:
    """Whether user text may not hold the character ``c`` (the rule of the module, one
    character at a time)."""
    n = ord(c)
    return (
        (n < 0x20 and c not in WHITESPACE_CONTROLS)
        or 0x7F <= n <= 0x9F
        or 0xD800 <= n <= 0xDFFF
        or 0xFDD0 <= n <= 0xFDEF
        or (n & 0xFFFE) == 0xFFFE
        or c in BIDI_CONTROLS
    )


def _refused_pattern() -> re.Pattern[str]:
    """:func:`refused` as one character class: the regular expression engine scans a
    whole packet file (megabytes) at C speed, where a Python step per character took as
    long as parsing it (``tests/webapp/test_chars.py`` holds the two equal on every code
    point)."""
    ranges = [
        (0x00, 0x08),
        (0x0B, 0x0C),
        (0x0E, 0x1F),
        (0x7F, 0x9F),
        (0xD800, 0xDFFF),
        (0xFDD0, 0xFDEF),
        *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)),
        (0x202A, 0x202E),
        (0x2066, 0x2069),
    ]
    return re.compile("[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges) + "]")


_REFUSED = _refused_pattern()


def forbidden(text: str | None) -> str | None:
    """The first character of ``text`` that user text may not hold (see the module), or
    None when there is none (None and ``""`` hold none)."""
    if not text:
        return None
    if text.isascii() and text.isprintable():  # the common case, without the search
        return None
    found = _REFUSED.search(text)
    return found.group() if found else None


def all_forbidden(text: str | None) -> list[str]:
    """Every distinct character of ``text`` that user text may not hold (see the module), in
    the order of their first appearance (``[]`` when there is none)."""
    if forbidden(text) is None:
        return []
    return list(dict.fromkeys(_REFUSED.findall(text or "")))


def forbidden_in_password(password: str | None) -> str | None:
    """The first character a password may not hold: :func:`forbidden`'s, and TAB, LF, CR."""
    if not password:
        return None
    return next((c for c in password if c in WHITESPACE_CONTROLS or refused(c)), None)


def code_point(c: str) -> str:
    """``"U+FFFE"``: how a message names a character (at least four hex digits)."""
    return f"U+{ord(c):04X}"


def xml_safe(text: str) -> str:
    """``text`` without the characters :func:`forbidden` refuses: the last guard of a
    writer of XML (the Atom feed), so that text stored before the inputs refused them, or
    reaching the writer by any other way, never makes the document invalid."""
    if forbidden(text) is None:
        return text
    return _REFUSED.sub("", text)
