"""The donor of a season: the party that gives the season's prizes and is named
«Даритель» on its gift agreements, the prize commission minutes and the vote result.

Which donor a book names, and its clause, is the book's (``Book.donor_rule``,
``Book.default_donor`` in ``webapp.domain.books``): 2023 the broadcaster (Sova's default is the
``SOVA_BROADCASTER_*`` settings, the caller's), 2009 a neutral general sponsor.

Also the typography of the papers that name the donor: :func:`quoted` («…» with inner
quotes as „…“, never «« »») and :func:`place` («г. Минск»).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

NAME_MAX, CITY_MAX, REPRESENTATIVE_MAX, DETAILS_MAX = 300, 100, 300, 2000


@dataclass(frozen=True)
class Donor:
    """``name``: the legal name («ЗАО „Второй национальный телеканал“» or with «…»);
    ``city``: where its agreements are signed («Минск», printed «г. Минск»);
    ``representative``: who signs, in the genitive, printed after «в лице» («генерального
    директора Иванова Ивана Ивановича, действующего на основании Устава»; "" prints no
    «в лице …» at all, never a blank to fill); ``details``: address, tax number and bank
    details, free text of several lines, printed under «Даритель»."""

    name: str
    city: str
    details: str = ""
    representative: str = ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)


def check_donor(
    name: object, city: object, details: object = "", representative: object = ""
) -> tuple[Donor | None, dict[str, list[str]]]:
    """``(Donor, {})`` from the typed values (whitespace trimmed, a line's runs of spaces
    kept, ``details`` keeps its lines), or ``(None, {field: [Russian message]})``: name
    and city required, at most :data:`NAME_MAX` / :data:`CITY_MAX` /
    :data:`DETAILS_MAX` / :data:`REPRESENTATIVE_MAX` characters, no control characters
    (a line break only in ``details``). Never raises."""
    errors: dict[str, list[str]] = {}
    values = {}
    for field, value, limit, required in (
        ("name", name, NAME_MAX, True),
        ("city", city, CITY_MAX, True),
        ("details", details, DETAILS_MAX, False),
        ("representative", representative, REPRESENTATIVE_MAX, False),
    ):
        text = value if isinstance(value, str) else ("" if value is None else None)
        if text is None:
            errors.setdefault(field, []).append("текст")
            continue
        if field == "details":
            text = "\n".join(" ".join(line.split()) for line in text.strip().splitlines())
            text = re.sub(r"\n{2,}", "\n", text)
        else:
            text = " ".join(text.split())
        if required and not text:
            errors.setdefault(field, []).append("обязательное поле")
        elif len(text) > limit:
            errors.setdefault(field, []).append(f"не длиннее {limit} символов")
        elif any(ord(c) < 32 and c != "\n" or ord(c) == 127 for c in text):
            errors.setdefault(field, []).append("недопустимые управляющие символы")
        values[field] = text
    if errors:
        return None, errors
    return Donor(**values), {}


#: The donor's fields as the season page's change log names them, in the form's order.
DONOR_FIELD_LABELS = {
    "name": "Даритель",
    "city": "Город",
    "representative": "В лице",
    "details": "Реквизиты",
}


def donor_difference(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str, str]]:
    """What a change of the donor changed, for its log: ``[(label, before, after)]`` for
    each field of :class:`Donor` whose value differs between the audit's ``old`` and
    ``new`` (``{name, city, details, representative}``; a missing key reads as ""), in
    :data:`DONOR_FIELD_LABELS`' order; an empty value reads «не указано». ``[]`` when
    nothing differs."""
    out = []
    for field, label in DONOR_FIELD_LABELS.items():
        before, after = str(old.get(field) or ""), str(new.get(field) or "")
        if before != after:
            out.append((label, before or "не указано", after or "не указано"))
    return out


def place(city: str) -> str:
    """``"Минск"`` → ``"г. Минск"`` (U+00A0 after «г.»); a city typed with «г.» already
    is kept as typed; "" stays ""."""
    city = " ".join((city or "").split())
    if not city or re.match(r"^(г\.|город\b)", city, re.IGNORECASE):
        return city
    return f"г.\u00a0{city}"


_INNER = re.compile(r"«([^«»]*)»")


def quoted(text: str) -> str:
    """``text`` in Russian quotes «…»; the «…» inside it become „…“ (never «« »»):
    ``'ЗАО «Второй национальный телеканал»'`` → ``'«ЗАО „Второй национальный телеканал“»'``.
    Other characters (straight quotes too) are kept as typed."""
    inner = str(text)
    while _INNER.search(inner):
        inner = _INNER.sub("„\\1“", inner)
    return f"«{inner}»"
