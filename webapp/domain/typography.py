"""Russian typesetting of a text printed on paper (envelopes, host cards, agreements,
minutes, registers, vote results): the one function every PDF's text goes through
(``workers.documents`` applies it to every printed expression).

The rules are those of Russian typesetting (A. Мильчин, Л. Чельцова, «Справочник
издателя и автора», §§ on quotation marks, dashes and unbreakable groups):

* quotation marks are «ёлочки», and a quotation inside a quotation takes „лапки“
  (straight ``"`` are printed as typed: user text is printed literally);
* a dash between words is an em dash with a no-break space before it (it never starts a
  line), a hyphen or en dash typed between spaces is such a dash;
* a one-letter word (a preposition, a conjunction: «в», «к», «с», «и», «а», «я») stays
  with the word after it;
* a number stays with its unit («5 км», «20 с», «300 BYN», «15 %»);
* «т. е.», «т. к.», «т. д.», «т. п.», «и т. д.» never break inside;
* the sign or abbreviation before a number or name («№ 12», «§ 3», «д. 5», «ул. Ленина»,
  «г. Минск», «п. 4.11.1») stays with it, and a person's initials stay with the surname
  and with each other («Петров П. П.»).

Pure: the standard library only. Never raises; an empty text stays empty.
"""

from __future__ import annotations

import re

NBSP = "\u00a0"

# a hyphen, en dash or em dash between spaces is a dash between words
_DASH_RE = re.compile(r"[ \u00a0]+[-–—][ \u00a0]+")
# a one-letter word followed by a space (not an initial: those end with a full stop)
_ONE_LETTER_RE = re.compile(r"(?<![\w\-.])([А-ЯЁа-яёA-Za-zІіЎў]) (?=\S)")
_UNITS = (
    "км|м|см|мм|кг|г|т|л|мл|с|сек|мин|ч|ц|га|°C|°|%|‰|BYN|RUB|USD|EUR|руб\\.|коп\\.|тыс\\."
    "|млн|млрд|р\\.|к\\.|лет|год|года|век|в\\.|вв\\."
)
_NUMBER_UNIT_RE = re.compile(rf"(\d) (?=(?:{_UNITS})(?![\w]))")
# «№ 12», «§ 3», «д. 5», «ул. Ленина», «п. 4.11.1», «г. Минск», bank details' labels; «т.»
# keeps «т. е.», «т. д.» whole, and «и» of «и т. д.» is a one-letter word
_BOUND_BEFORE_RE = re.compile(
    r"(?<![\w.])(№|§|[дгпс]\.|пп\.|ул\.|пр\.|пр-т|кв\.|корп\.|стр\.|ст\.|пер\.|пл\.|оф\.|т\.|"
    r"им\.|р/с|БИК|УНП|ИНН) (?=\S)",
    re.IGNORECASE,
)
# a person's initials stay with the surname and with each other («Петров П. П.»,
# «В. И. Ленин»)
_INITIAL_RE = re.compile(r"(?<=\w) (?=[А-ЯЁA-Z]\.(?!\w))")
_INITIAL_BEFORE_RE = re.compile(r"(?<![\w.])([А-ЯЁA-Z]\.) (?=[А-ЯЁA-Z])")


def quotes(text: str) -> str:
    """Every quotation inside another as „лапки“, the outer ones «ёлочки»:
    ``'«читай «Онегина»»'`` → ``'«читай „Онегина“»'``. Straight ``"`` stay as typed
    (printed user text is printed literally: a ``"`` may be part of what the author
    quotes, code or markup); an unbalanced closing mark is left as it is."""
    out: list[str] = []
    depth = 0
    for c in text:
        if c in "«„":
            out.append("«" if depth == 0 else "„")
            depth += 1
        elif c in "»“" and depth > 0:
            depth -= 1
            out.append("»" if depth == 0 else "“")
        else:
            out.append(c)
    return "".join(out)


def typeset(text: str) -> str:
    """``text`` as Russian typesetting prints it (the module's rules): quotation marks,
    dashes and the no-break spaces (U+00A0) that keep a group on one line.
    ``'Это - «Мастер и Маргарита» т. е. роман, д. 5'`` →
    ``'Это\\u00a0— «Мастер и\\u00a0Маргарита» т.\\u00a0е. роман, д.\\u00a05'``."""
    if not text:
        return text
    text = quotes(text)
    text = _DASH_RE.sub(NBSP + "— ", text)
    text = _BOUND_BEFORE_RE.sub(lambda m: m.group(1) + NBSP, text)
    text = _INITIAL_RE.sub(NBSP, text)
    text = _INITIAL_BEFORE_RE.sub(lambda m: m.group(1) + NBSP, text)
    text = _NUMBER_UNIT_RE.sub(lambda m: m.group(1) + NBSP, text)
    return _ONE_LETTER_RE.sub(lambda m: m.group(1) + NBSP, text)
