"""Where Sova may send a browser back to: the one check of every redirect target that comes
from a request (the login's and the language switch's ``next``, a form's ``next``)."""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote, urlsplit

#: The longest target kept (a longer one is refused, not cut: a cut path is another page).
MAX_TARGET = 2000


def local_path(target: str | None) -> str | None:
    """``target`` when it is a path of this site (``"/archive?page=2"``), else None: the
    caller then sends the visitor to its own default page (no open redirect).

    Accepted: a string of at most :data:`MAX_TARGET` characters that starts with one ``/``
    followed by anything but ``/`` or ``\\``, has no scheme and no host (``urlsplit``), and
    holds no backslash, no control or format character (TAB, CR, LF, C1, bidi controls)
    and no whitespace anywhere. Its percent-decoded form must start the same way and hold
    no control character either, so that a proxy or browser that decodes once more
    (``/%2F%2Fevil.example``, ``/%5Cevil.example``) still finds a path. Browsers drop
    TAB/CR/LF from a ``Location`` and read ``\\`` as ``/``, which made ``/%09/evil.example``
    and ``/\\evil.example`` another site's address; a CR or LF also made the header itself
    invalid (a 500)."""
    if not isinstance(target, str) or not target or len(target) > MAX_TARGET:
        return None
    if "\\" in target or any(c.isspace() or unicodedata.category(c) in HIDDEN for c in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not _starts_as_path(target):
        return None
    decoded = unquote(target)
    if not _starts_as_path(decoded) or any(unicodedata.category(c) == "Cc" for c in decoded):
        return None
    return target


#: Unicode categories a target never holds: controls, formats (bidi), surrogates,
#: line and paragraph separators.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _starts_as_path(value: str) -> bool:
    """One ``/`` first, then neither ``/`` nor ``\\`` (either makes the rest a host)."""
    return value.startswith("/") and value[1:2] not in ("/", "\\")
