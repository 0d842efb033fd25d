"""Question packets: parsing and writing the 4s and db.chgk.info text formats (pure:
stdlib only).

Two input formats are understood:

* **4s** — chgksuite's line format (``?`` question, ``!`` answer, ``=`` accepted,
  ``!=`` rejected, ``/`` comment, ``^`` sources, ``@`` authors, ``>`` handout,
  ``###`` title, ``##`` tour, ``#`` meta, ``#EDITOR``, ``#DATE``, ``#B/#R/#T``,
  ``№``/``№№`` numbering; continuation lines; ``- `` lists). Questions are
  separated by blank lines. See :func:`parse_4s`.
* **db** — the db.chgk.info text format (``Вопрос 1:``, ``Ответ:``, ``Зачет:``,
  ``Незачет:``, ``Комментарий:``, ``Источник:``, ``Автор:``, ``Чемпионат:``,
  ``Тур:``, ``Редактор:``, ``Дата:``, ``URL:``, ``Инфо:``; each header on its
  own line, fields separated by blank lines). See :func:`parse_db`.

Both produce the same :class:`Packet`. The db reader applies the typography
chgksuite applies when it converts db text to 4s, so a db packet and the
chgksuite 4s rendering of it give identical field values.

Representation decisions (the same for both formats):

* Text fields are ``str`` after :func:`webapp.domain.text.normalise` (NFC, no
  zero-width characters, no trailing spaces on lines). Stress marks (U+0301),
  Markdown escapes (``\\_``) and image references (``(img file.jpg)``) are kept
  in the text as written: they are needed for printing.
* A field written as a ``- `` list (a blitz/«дуплет» question, a multi-part
  answer) is rendered as numbered lines: the preamble (if any) on its first
  line, then ``"1. …"``, ``"2. …"`` — the way chgksuite prints them. A ``- ``
  list with a single item is just text (chgksuite does the same).
* ``sources`` is a list: one string per ``- `` item (a preamble, if any, comes
  first); a single source string gives a one-element list.
* ``authors`` is parsed from the ``@`` line (see :func:`parse_authors`); the
  line itself is kept verbatim in ``author_text``.
* ``handout`` is the ``>`` field, or else the body of a leading
  ``[Раздаточный материал: …]`` block of the question (which stays in
  ``question`` too, because that is where the printed packet shows it).
  ``images`` lists every ``(img …)`` file referenced by any field, in order.
* ``tour`` is the latest ``##`` heading (db: ``Тур:``) before the question.

Where we are stricter or saner than chgksuite (it logs and drops; we raise
:class:`PacketError` with the line): a block without ``!`` answer, text after a
blank line that starts with no marker, db text blocks without a header. A
``>`` handout that opens a block starts a question here (chgksuite passes it
through as a stand-alone element); a marker after leading spaces is still a
marker. ``@``/``/`` lines outside any question (theme authors in «Своя игра»
packets) go to ``meta["extra"]``, as chgksuite keeps them outside questions.

Writing (:func:`write_4s`, :func:`write_db`) is the other direction: the questions of
a game as they were asked, in a packet that chgksuite and this module read back with the
same field values; the rules the writers follow are in their docstrings and in
:class:`AskedQuestion`.

One grammar for both packet formats (4s and db.chgk.info), its error type and its round
trip: a marker and its handling read top to bottom, for both directions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote_to_bytes

from webapp.domain.handouts import image_spans, leading_handout_span
from webapp.domain.text import COMBINING_ACUTE, has_control_chars, normalise, stress_caps_to_acute

__all__ = [
    "ANONYMOUS_AUTHOR",
    "AskedQuestion",
    "AuthorRef",
    "Packet",
    "PacketItem",
    "PacketTour",
    "PACKET_ERROR_CODES",
    "PacketError",
    "ParsedQuestion",
    "detect_format",
    "format_authors",
    "parse_4s",
    "parse_authors",
    "parse_db",
    "parse_packet",
    "write_4s",
    "write_db",
]


# --- data -----------------------------------------------------------------


@dataclass
class ParsedQuestion:
    """One question of a packet. ``number`` is the 1-based position in the packet;
    ``line`` the 1-based source line where the question starts (its ``?``/``>``/``№``
    line in 4s, its ``Вопрос N:`` line in db)."""

    number: int
    line: int
    question: str
    answer: str
    accepted: str | None = None
    rejected: str | None = None
    comment: str | None = None
    sources: list[str] = field(default_factory=list)
    authors: list[AuthorRef] = field(default_factory=list)
    handout: str | None = None
    images: list[str] = field(default_factory=list)
    tour: str | None = None
    #: the ``@`` line as written (``"Дмитрий Шахлов, в редакции Наиля Фарукшина"``)
    author_text: str | None = None


@dataclass
class Packet:
    """A parsed packet. ``meta`` keys (all optional): ``format`` ("4s"/"db"),
    ``editors``, ``dates``, ``info`` (``#`` lines), ``tours`` (list of str),
    ``extra`` (list of ``{"field", "text", "line"}`` for fields that belong to no
    question, e.g. a theme author in «Своя игра» packets)."""

    title: str | None
    questions: list[ParsedQuestion]
    meta: dict[str, Any] = field(default_factory=dict)


class PacketError(ValueError):
    """A packet that cannot be read. ``line`` is 1-based (None if unknown),
    ``filename`` is set by file readers. ``code`` names what is wrong (one of
    :data:`PACKET_ERROR_CODES`; ``params`` holds its values, e.g. the db header
    ``label``) so that a page can say it in the reader's language; ``message`` is the
    English text the CLI prints."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        filename: str | None = None,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ):
        self.message = message
        self.line = line
        self.filename = filename
        self.code = code
        self.params = dict(params or {})
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.filename:
            where.append(self.filename)
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def __reduce__(
        self,
    ) -> tuple[type[PacketError], tuple[str, int | None, str | None, str | None, dict[str, Any]]]:
        # keep line/filename/code when pickled (e.g. by Celery)
        return (PacketError, (self.message, self.line, self.filename, self.code, self.params))

    def with_filename(self, filename: str) -> PacketError:
        """A copy of this error that names ``filename``."""
        return PacketError(self.message, self.line, filename, self.code, self.params)


#: The ``code`` of each :class:`PacketError` the readers raise.
PACKET_ERROR_CODES = (
    "control_chars",  # binary or control characters
    "unfit_char",  # params: code ('U+FFFE'): a character no text may hold (webapp.core.chars)
    "no_question",  # a 4s block without a '?' line
    "no_answer",  # a question without a '!' line
    "outside_field",  # 4s text that starts with no marker
    "no_questions",  # a 4s packet without '?' lines
    "db_empty_question",  # a 'Вопрос N:' block without text
    "db_outside_field",  # a db text block without a header
    "db_field_before_question",  # params: label ('Ответ', …)
    "db_no_questions",  # a db packet without 'Вопрос N:' blocks
    "db_no_answer",  # a 'Вопрос N:' block without an 'Ответ:' block
    "bom_not_utf8",  # a UTF-8 BOM followed by other bytes
    "too_large",  # params: max_bytes
    "zip_no_packet",  # a zip without a packet file
)


# --- shared helpers ---------------------------------------------------------

# Field values while parsing, in chgksuite's shapes:
#   str                      plain text
#   list[str]                "- " items without preamble
#   tuple[str, list[str]]    preamble + items
_Value = str | list[str] | tuple[str, list[str]]

_EDGE_WS = " \u00a0\n"
_INNER_WS = re.compile(r"\s+\n\s+")


def _trim(s: str) -> str:
    """Strip spaces/NBSP/newlines at both ends; squeeze whitespace around inner newlines."""
    return _INNER_WS.sub("\n", s.strip(_EDGE_WS))


def _check_controls(text: str) -> None:
    if has_control_chars(text):
        for number, line in enumerate(text.split("\n"), 1):
            if has_control_chars(line):
                raise PacketError(
                    "binary or control characters: not a text packet", number, code="control_chars"
                )


def _split_list(value: str) -> _Value:
    """Split a field's text on lines starting with ``-`` (chgksuite's 4s lists)."""
    if "-" not in value:
        return value
    lines = [_trim(x) for x in value.split("\n")]
    starts = [i for i, x in enumerate(lines) if x.startswith("-")]
    if not starts:
        return value
    if len(starts) == 1:
        return _trim(re.sub(r"(^|\n)- +", r"\1", value))
    preamble = "\n".join(lines[: starts[0]])
    bounds = [*starts, len(lines)]
    items = [_trim("\n".join(lines[a:b])[1:]) for a, b in zip(bounds, bounds[1:], strict=False)]
    return (preamble, items) if preamble else items


def _merge(old: _Value, new: _Value) -> _Value:
    if isinstance(old, str) and isinstance(new, str):
        return old + "\n" + new
    if isinstance(old, list) and isinstance(new, str):
        return [old[0] + "\n" + new, *old[1:]]
    old_pre, old_items = (old, []) if isinstance(old, str) else _pre_items(old)
    new_pre, new_items = (new, []) if isinstance(new, str) else _pre_items(new)
    pre = "\n".join(x for x in (old_pre, new_pre) if x)
    return (pre, old_items + new_items) if pre else old_items + new_items


def _pre_items(value: list[str] | tuple[str, list[str]]) -> tuple[str, list[str]]:
    if isinstance(value, tuple):
        return value[0], list(value[1])
    return "", list(value)


def _render(value: _Value) -> str:
    if isinstance(value, str):
        return value
    pre, items = _pre_items(value)
    numbered = [f"{i}. {item}" for i, item in enumerate(items, 1)]
    return "\n".join([pre, *numbered] if pre else numbered)


def _render_sources(value: _Value) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    pre, items = _pre_items(value)
    return [x for x in ([pre, *items] if pre else items) if x]


def _find_images(text: str) -> list[str]:
    """File names of ``(img [options] file)`` references; parentheses may nest."""
    return [name for _start, _end, name in image_spans(text)]


def _leading_handout(question: str) -> str | None:
    span = leading_handout_span(question)
    return span[0] or None if span else None


# --- authors ----------------------------------------------------------------

_AUTHOR_WITH_CITY = re.compile(r"(?P<name>[^()]*?)\s*\((?P<city>.*)\)", re.DOTALL)
_FINAL_DOT = re.compile(r"(?:(?<=\))|(?<=\w\w))\.$")
# trailing strays after a name: " ." (a space before the full stop), "/" or "\\"
_TRAILING_STRAY = re.compile(r"(?:\s+\.|\s*[/\\])+$")
# «Name One и Name Two (City)»: "и" between two capitalised names (outside parentheses)
_AND = re.compile(r"\s+и\s+(?=[^\W\d_a-zа-яё])")
#: Phrases that credit a co-author (who is an author and a payee); the name follows in
#: the genitive. Matched case-insensitively at the start of a comma-separated part.
CREDIT_PHRASES = re.compile(
    r"(?P<phrase>при\s+(?:(?:самом|очень|весьма)\s+)?"
    r"(?:(?:активном|деятельном|непосредственном|большом|значительном|неоценимом)\s+)?"
    r"(?:участии|помощи)|в\s+соавторстве\s+со?)\s+(?P<rest>.+)",
    re.IGNORECASE | re.DOTALL,
)
#: Editorial credits: the editor named after them is neither an author nor a payee.
EDITORIAL_PHRASES = re.compile(
    r"(?:в\s+редакции|под\s+редакцией|редакция|редактор[ыа]?|ред\.)(?:\s|:|$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AuthorRef:
    """One author of a question: ``"Иван Сапего (Брест — Минск)"`` → name + city.

    ``credit`` is set for a credited co-author (``"при активном участии Евгения
    Миротина (Горки)"``): the part of the author line as written. Its ``name`` is as
    written in that phrase, i.e. in the genitive (``"Евгения Миротина"``; instrumental
    after «в соавторстве с»); the domain does not inflect (stdlib only):
    :mod:`webapp.submissions.names` turns it into the nominative before it is stored.
    """

    name: str
    city: str | None = None
    credit: str | None = None


def _top_level_split(text: str, separators: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(depth - 1, 0)
        elif c in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _split_and(part: str) -> list[str]:
    """Split ``"A и B (City)"`` on a top-level " и " followed by a capital letter."""
    pieces, depth, start = [], 0, 0
    for i, c in enumerate(part):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(depth - 1, 0)
        elif c == " " and depth == 0 and i >= start:
            m = _AND.match(part, i)
            if m:
                pieces.append(part[start:i])
                start = m.end()
    pieces.append(part[start:])
    return [p for p in pieces if p]


def _name_city(piece: str) -> tuple[str, str | None]:
    m = _AUTHOR_WITH_CITY.fullmatch(piece)
    if m and m.group("name"):
        return m.group("name"), " ".join(m.group("city").split()) or None
    return piece, None


def _clean_part(raw: str) -> str:
    """Whitespace squeezed, stress marks (U+0301: a reading aid, not part of a name)
    removed, trailing strays (``" ."``, ``"/"``) and a final full stop dropped."""
    part = " ".join(raw.replace(COMBINING_ACUTE, "").split())
    return _FINAL_DOT.sub("", _TRAILING_STRAY.sub("", part))


def _run(pieces: list[str], credit: str | None) -> list[AuthorRef]:
    """Names of one run (separated by commas or "и"): a city written once, after the
    last of several names, belongs to each name before it that has none
    (``"Name One, Name Two (City)"``)."""
    parsed = [_name_city(p) for p in pieces]
    out: list[AuthorRef] = []
    city: str | None = None
    for name, own in reversed(parsed):
        city = own or city
        out.append(AuthorRef(name, own or city, credit))
    return out[::-1]


def parse_authors(text: str | None) -> list[AuthorRef]:
    """Split an ``@`` / ``Автор:`` line into authors, as quiz packets write them.

    * Authors are separated by commas, semicolons, line breaks (outside
      parentheses) and by ``" и "`` between capitalised names.
    * ``"Name (City)"`` gives a city. Everything inside the parentheses is the city:
      a comma (``"(Тарту, Эстония)"``) stays in it, a dash joins two cities of one
      author (``"(Брест — Минск)"`` is one city string).
    * **A shared city**: a city written after the last of several names separated by
      commas or "и" belongs to every name before it that has no city of its own
      (``"Name One, Name Two (City)"``, ``"Name One и Name Two (City)"``). A
      semicolon or a line break ends such a run (``"Андрей Солдатов\\nНаиль Фарукшин
      (Москва)"``: Солдатов has no city).
    * **Credited co-authors** (:data:`CREDIT_PHRASES`: «при участии», «при
      активном участии», «при помощи», «в соавторстве с»…) are authors: ``"Name One
      (City), при активном участии Евгения Миротина (Горки)"`` → two authors, the
      second with ``credit`` = that part as written and ``name`` as written (genitive,
      instrumental after «в соавторстве с»; the caller inflects). Several names joined
      by "и" in one phrase (``"при участии A и B (City)"``) each get the phrase and
      share its city. A name after the *comma* that follows a phrase
      (``"при участии A, B"``) is read as an author of its own, as written: a comma
      does not say whether B is credited too.
    * **Editorial credits** (:data:`EDITORIAL_PHRASES`: «в редакции», «под
      редакцией», «редактор») are not authors: the part is skipped. So is any other part
      starting with a lower-case letter (a remark). The line itself is kept verbatim by
      the callers (``ParsedQuestion.author_text``).
    * A final full stop after a city or a word is dropped (``"Антон Оборин."``),
      initials keep theirs (``"Иванов И."``); so are a stray ``" ."`` or ``"/"`` at
      the end and stress marks (U+0301) anywhere in a name (``"Роман Фролов́"`` →
      ``"Роман Фролов"``).

    Returns ``[]`` for an empty line. Never raises.
    """
    if not text:
        return []
    authors: list[AuthorRef] = []
    for group in _top_level_split(text, ";\n"):
        run: list[str] = []
        for raw in _top_level_split(group, ","):
            part = _clean_part(raw)
            if not part:
                continue
            credit = CREDIT_PHRASES.fullmatch(part)
            if credit:
                authors.extend(_run(run, None))
                run = []
                authors.extend(_run(_split_and(credit.group("rest")), part))
            elif EDITORIAL_PHRASES.match(part) or not part[0].isupper():
                authors.extend(_run(run, None))
                run = []
            else:
                run.extend(_split_and(part))
        authors.extend(_run(run, None))
    return authors


def format_authors(authors: Sequence[AuthorRef]) -> str:
    """``[AuthorRef("Иван Сапего", "Брест — Минск")]`` → ``"Иван Сапего (Брест — Минск)"``;
    several authors are joined with ``", "``. The ``credit`` phrase is not rendered
    (this is the list of people, e.g. for an API submission's author line)."""
    return ", ".join(f"{a.name} ({a.city})" if a.city else a.name for a in authors)


# --- 4s ---------------------------------------------------------------------

_MARKERS = {
    "#": "meta",
    "##": "section",
    "###": "heading",
    "###LJ": "ljheading",
    "#B": "battle",
    "#R": "round",
    "#T": "theme",
    "#EDITOR": "editor",
    "#DATE": "date",
    "?": "question",
    "№": "number",
    "№№": "setcounter",
    "!": "answer",
    "=": "zachet",
    "!=": "nezachet",
    "^": "source",
    "/": "comment",
    "@": "author",
    ">": "handout",
}
_QUESTION_FIELDS = {
    "handout",
    "question",
    "answer",
    "zachet",
    "nezachet",
    "comment",
    "source",
    "author",
    "number",
    "setcounter",
}
# fields that may open a question; the others before any question are "extra"
_OPENING_FIELDS = {"question", "answer", "number", "setcounter", "handout"}

_COUNTER = re.compile(
    r"set 4SCOUNTER(?P<set>[0-9a-zA-Z_]*) = (?P<value>[0-9]+)|4SCOUNTER(?P<use>[0-9a-zA-Z_]*)"
)


def _replace_counters(text: str) -> str:
    if "4SCOUNTER" not in text:
        return text
    counters: dict[str, int] = {}

    def repl(m: re.Match[str]) -> str:
        if m.group("value") is not None:
            counters[m.group("set")] = int(m.group("value"))
            return ""
        name = m.group("use")
        value = counters.get(name, 1)
        counters[name] = value + 1
        return str(value)

    return _COUNTER.sub(repl, text)


def _finish_question(
    fields: dict[str, _Value], start: int, number: int, tour: str | None, fmt: str
) -> ParsedQuestion:
    if "question" not in fields:
        raise PacketError("block has no question ('?' line)", start, code="no_question")
    if "answer" not in fields:
        if fmt == "db":  # the 4s text is ours: name the header the file lacks
            raise PacketError("question has no answer ('Ответ:' block)", start, code="db_no_answer")
        raise PacketError("question has no answer ('!' line)", start, code="no_answer")

    def text(name: str) -> str | None:
        value = fields.get(name)
        return None if value is None else (_render(value) or None)

    question = _render(fields["question"])
    handout = text("handout") or _leading_handout(question)
    author_text = text("author")
    images: list[str] = []
    for name in ("handout", "question", "answer", "zachet", "nezachet", "comment"):
        images.extend(x for x in _find_images(text(name) or "") if x not in images)
    return ParsedQuestion(
        number=number,
        line=start,
        question=question,
        answer=_render(fields["answer"]),
        accepted=text("zachet"),
        rejected=text("nezachet"),
        comment=text("comment"),
        sources=_render_sources(fields["source"]) if "source" in fields else [],
        authors=parse_authors(author_text),
        handout=handout,
        images=images,
        tour=tour,
        author_text=author_text,
    )


def _parse_4s(text: str, line_map: Sequence[int] | None, fmt: str) -> Packet:
    def src(line: int) -> int:
        return line_map[line - 1] if line_map else line

    lines = text.split("\n")
    elements: list[list[Any]] = []  # [label, text, line]
    for number, line in enumerate(lines, 1):
        words = line.split(maxsplit=1)
        if not words:
            elements.append(["", "", number])
        elif words[0] in _MARKERS:
            stripped = line.lstrip()
            elements.append([_MARKERS[words[0]], _trim(stripped[len(words[0]) :]), number])
        elif elements and elements[-1][0]:
            elements[-1][1] += "\n" + line
        else:
            raise PacketError(
                "text outside any field: a 4s line must start with a marker "
                "such as '?', '!', '/', '^', '@' or '#'",
                src(number),
                code="outside_field",
            )
    if fmt == "4s" and not any(e[0] == "question" for e in elements):
        raise PacketError("no questions found ('?' lines)", src(len(lines)), code="no_questions")

    title: str | None = None
    lj_title: str | None = None
    meta: dict[str, Any] = {"format": fmt}
    tour: str | None = None
    questions: list[ParsedQuestion] = []
    current: dict[str, _Value] = {}
    start = 0

    def flush() -> None:
        nonlocal current
        if current and set(current) != {"setcounter"}:
            questions.append(_finish_question(current, src(start), len(questions) + 1, tour, fmt))
            current = {}

    for label, raw, number in elements:
        value = _split_list(raw)
        if label in _QUESTION_FIELDS:
            if not current and label not in _OPENING_FIELDS:
                meta.setdefault("extra", []).append(
                    {"field": label, "text": _render(value), "line": src(number)}
                )
            elif label in current:
                current[label] = _merge(current[label], value)
            else:
                if not current or set(current) == {"setcounter"}:
                    start = number
                current[label] = value
        elif label == "":
            flush()
        else:
            text_value = _render(value)
            if label == "heading":
                title = title or text_value
            elif label == "ljheading":
                lj_title = lj_title or text_value
            elif label == "section":
                tour = text_value
                meta.setdefault("tours", []).append(text_value)
            else:
                key = {"meta": "info", "editor": "editors", "date": "dates"}.get(label, label + "s")
                meta.setdefault(key, []).append(text_value)
    flush()
    if not questions:
        raise PacketError("no questions found", src(len(lines)), code="no_questions")
    return Packet(title=title or lj_title, questions=questions, meta=meta)


def parse_4s(text: str) -> Packet:
    """Parse a packet in chgksuite's 4s format.

    ``text`` is normalised first (:func:`webapp.domain.text.normalise`; a BOM is
    dropped). Returns a :class:`Packet` whose questions are numbered 1..N in
    file order.

    Raises :class:`PacketError` (with a 1-based ``line``) for control
    characters/binary data, a non-blank line after a blank one that starts
    with no 4s marker, a question block without ``!`` answer or without ``?``
    question, and a packet with no questions.
    """
    text = normalise(text)
    _check_controls(text)
    return _parse_4s(_replace_counters(text), None, "4s")


# --- db.chgk.info -------------------------------------------------------------

_DB_HEADER = re.compile(
    r"(?P<label>Чемпионат|URL|Дата|Редактор|Инфо|Тур|Вопрос\s+\d+|Ответ|Зач[её]т|Незач[её]т"
    r"|Комментари[йи]|Источник(?:и)?|Автор(?:ы)?)\s*:\s*(?P<rest>.*)",
    re.IGNORECASE,
)
_DB_LIST_ITEM = re.compile(r"\s{3}\d+\.\s(.+)")
_DB_HANDOUT_OPEN = re.compile(r"\s*<раздатка>\s*", re.IGNORECASE)
_DB_HANDOUT_CLOSE = re.compile(r"\s*</раздатка>\s*", re.IGNORECASE)
_DB_PIC_LINE = re.compile(r"(?:\((?:img|aud)\s[\w.]+\)\s*)+", re.IGNORECASE)
_DB_PIC = re.compile(r"\((pic|aud):\s([\w.]+)\)", re.IGNORECASE)


def _db_kind(label: str) -> str:
    label = label.casefold()
    if label.startswith("вопрос"):
        return "question"
    return {
        "чемпионат": "heading",
        "url": "url",
        "дата": "date",
        "редактор": "editor",
        "инфо": "info",
        "тур": "section",
        "ответ": "answer",
        "зачет": "zachet",
        "зачёт": "zachet",
        "незачет": "nezachet",
        "незачёт": "nezachet",
        "комментарий": "comment",
        "комментарии": "comment",
        "источник": "source",
        "источники": "source",
        "автор": "author",
        "авторы": "author",
    }[label]


def _db_field(kind: str, lines: list[str]) -> _Value:
    """Join the lines of one db field the way db.chgk.info means them.

    Lines are joined with a space (hard-wrapped text); a line indented by three
    spaces starts a new paragraph; ``   1. …`` lines are list items (question,
    answer, source; comment only when it starts with one); in questions
    ``<раздатка>…</раздатка>`` and a line of ``(img …)`` references become
    ``[Раздаточный материал: …]``.
    """
    lists = kind in ("question", "answer", "source", "comment")
    preamble: str | None = None
    items: list[str] = []
    in_list = False
    in_handout = False
    text = ""
    last = len(lines) - 1
    for i, line in enumerate(lines):
        joined = True  # the line break after this line becomes a space
        item = _DB_LIST_ITEM.fullmatch(line) if lists and not in_handout else None
        if kind == "comment" and not in_list and (i > 0 or not item):
            item = None
        if kind == "question" and in_handout and _DB_HANDOUT_CLOSE.fullmatch(line):
            text += "\n]"
            in_handout, joined = False, False
        elif kind == "question" and not in_handout and _DB_HANDOUT_OPEN.fullmatch(line):
            text += "[Раздаточный материал:"
            in_handout, joined = True, False
        elif kind == "question" and not in_handout and _DB_PIC_LINE.fullmatch(line):
            text += f"[Раздаточный материал:{line.strip()}]"
            joined = False
        elif item:
            if in_list:
                items.append(text)
            elif text.strip():
                preamble = text
            in_list = True
            text = item.group(1)
        elif line.startswith("   "):
            text += "\n" + line[3:]
        else:
            text += line
        if joined and i != last:
            text += " "
    if not in_list:
        return text
    items.append(text)
    if preamble is None:
        return items
    if len(items) == 1:
        return preamble + "\n" + items[0]
    return (preamble, items)


# typography of the db → 4s conversion ----------------------------------------


def _fix_quotes(s: str) -> str:
    """Straight double quotes → «» (odd nesting levels) / „“ (even levels).

    An unbalanced string is returned unchanged."""
    chars = list(s)
    level = 0
    last_open: dict[int, str] = {}
    marks: list[tuple[int, bool, int]] = []  # (index, opening, level)
    spaces = (" ", "\u00a0")
    for i, c in enumerate(chars):
        if c in "«„":
            level += 1
            marks.append((i, True, level))
            last_open[level] = c
        elif c in "»”":
            marks.append((i, False, level))
            level -= 1
        elif c == '"':
            prev = chars[i - 1] if i else None
            nxt = chars[i + 1] if i + 1 < len(chars) else None
            opens = (
                level == 0
                or prev is None
                or (prev in spaces and nxt is not None and nxt not in spaces)
                or last_open.get(level) != '"'
            )
            if opens:
                level += 1
                marks.append((i, True, level))
                last_open[level] = c
            else:
                marks.append((i, False, level))
                level -= 1
        elif c == "“":
            if last_open.get(level) == "„":
                marks.append((i, False, level))
                level -= 1
            else:
                level += 1
                marks.append((i, True, level))
    if level != 0:
        return s
    for i, opening, lvl in marks:
        if opening:
            chars[i] = "«" if lvl % 2 else "„"
        else:
            chars[i] = "»" if lvl % 2 else "“"
    return "".join(chars)


_LATIN_VOWELS = {"a": "а", "e": "е", "y": "у", "o": "о", "u": "и"}
_LATIN_VOWELS.update({k.upper(): v.upper() for k, v in list(_LATIN_VOWELS.items())})
_ACCENTS = {"\u0300", "\u0341", "\u0301"}
_CYRILLIC = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")


def _cyrillic_or_not_letter(word: str, j: int) -> bool:
    return j < 0 or j >= len(word) or word[j] in _CYRILLIC or not word[j].isalpha()


def _fix_accented_word(word: str) -> str:
    """Latin accented vowels inside Cyrillic words (``мол`` + ``о́`` typed as Latin
    ``ó``) → Cyrillic vowel + U+0301; grave accents on Cyrillic → acute."""
    if len(word) < 2:
        return word
    out = []
    for i, c in enumerate(word):
        if (
            c not in _CYRILLIC
            and _cyrillic_or_not_letter(word, i - 1)
            and _cyrillic_or_not_letter(word, i + 1)
        ):
            nfd = unicodedata.normalize("NFD", c)
            if len(nfd) > 1 and nfd[0] in _LATIN_VOWELS and nfd[1] in _ACCENTS:
                out.append(_LATIN_VOWELS[nfd[0]] + COMBINING_ACUTE + nfd[2:])
                continue
        if c in _ACCENTS and i and word[i - 1] in _CYRILLIC:
            out.append(COMBINING_ACUTE)
            continue
        out.append(c)
    return "".join(out)


_PERCENT_RUN = re.compile(r"(?:%[0-9a-fA-F]{2})+")


def _percent_decode(m: re.Match[str]) -> str:
    try:
        return unquote_to_bytes(m.group(0)).decode("utf-8")
    except UnicodeDecodeError:
        return m.group(0)


def _db_typography(s: str) -> str:
    """The typography chgksuite applies to db text: whitespace trim, «» quotes,
    apostrophes, `` - `` → `` — ``, capital-vowel stress → U+0301, %-decoding."""
    s = _trim(s)
    if '"' in s or ("“" in s and "„" not in s):
        s = _fix_quotes(s)
    s = re.sub(r"(\w)'", "\\1’", s)
    s = re.sub(r"'(\w)", "‘\\1", s)
    s = re.sub(r"(?<=\s)-+(?=\s)", "—", s)
    s = s.replace(" – ", " — ")
    s = stress_caps_to_acute(s)
    s = re.sub(r"\S+", lambda m: _fix_accented_word(m.group(0)), s)
    return _PERCENT_RUN.sub(_percent_decode, s)


def _typo(value: _Value) -> _Value:
    if isinstance(value, str):
        return _db_typography(value)
    if isinstance(value, tuple):
        return (_db_typography(value[0]), [_db_typography(x) for x in value[1]])
    return [_db_typography(x) for x in value]


def _to_4s_text(value: _Value) -> str:
    def squeeze(s: str) -> str:
        return re.sub(r"\n+", "\n", s)

    if isinstance(value, str):
        return squeeze(value)
    pre, items = _pre_items(value)
    return squeeze(pre) + "\n- " + "\n- ".join(squeeze(x) for x in items)


_DB_TO_4S = {
    "heading": "###",
    "url": "#",
    "date": "#DATE",
    "editor": "#EDITOR",
    "info": "#",
    "section": "##",
}
_DB_QUESTION_ORDER = (
    "handout",
    "question",
    "answer",
    "zachet",
    "nezachet",
    "comment",
    "source",
    "author",
)
_4S_PREFIX = {
    "handout": ">",
    "question": "?",
    "answer": "!",
    "zachet": "=",
    "nezachet": "!=",
    "comment": "/",
    "source": "^",
    "author": "@",
}


def _db_to_4s(text: str) -> tuple[str, list[int]]:
    """Convert db text to 4s text plus, for every 4s line, its db source line."""
    out: list[str] = []
    line_map: list[int] = []

    def emit(s: str, src_line: int) -> None:
        for piece in s.split("\n"):
            out.append(piece)
            line_map.append(src_line)

    lines = text.split("\n")
    blocks: list[tuple[int, list[str]]] = []  # (first line number, lines)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if blocks and number > 1 and lines[number - 2].strip():
            blocks[-1][1].append(line)
        else:
            blocks.append((number, [line]))

    question: dict[str, tuple[_Value, int]] | None = None
    question_line = 0

    def flush_question() -> None:
        if question is None:
            return
        if "question" not in question:
            raise PacketError(
                "'Вопрос N:' block has no text", question_line, code="db_empty_question"
            )
        for kind in _DB_QUESTION_ORDER:
            if kind in question:
                value, src_line = question[kind]
                if kind == "question":
                    src_line = question_line
                emit(f"{_4S_PREFIX[kind]} {_to_4s_text(value)}", src_line)
        emit("", question_line)

    seen_question = False
    for first, block in blocks:
        m = _DB_HEADER.fullmatch(block[0].strip())
        if not m:
            raise PacketError(
                "text outside any field: expected a header such as 'Вопрос 1:', "
                "'Ответ:' or 'Комментарий:'",
                first,
                code="db_outside_field",
            )
        kind = _db_kind(re.sub(r"\s+\d+$", "", m.group("label")))
        body = ([m.group("rest")] if m.group("rest") else []) + block[1:]
        if kind == "question":
            flush_question()
            question, question_line, seen_question = {}, first, True
            question["question"] = (_typo(_db_field("question", body)), first)
        elif kind in _4S_PREFIX:
            if question is None:
                raise PacketError(
                    f"'{m.group('label')}:' before the first 'Вопрос N:'",
                    first,
                    code="db_field_before_question",
                    params={"label": m.group("label")},
                )
            value = _db_field(kind, body)
            if kind in ("zachet", "nezachet", "author"):
                value = _render(value)
            if kind in question:  # a repeated field: append, like chgksuite
                value = _merge(question[kind][0], value)
            question[kind] = (_typo(value), first)
        else:
            flush_question()
            question = None
            joined = _db_field(kind, body)
            value = _render(joined)
            if kind not in ("url", "date"):
                value = _db_typography(value)
            emit(f"{_DB_TO_4S[kind]} {_to_4s_text(value)}", first)
            emit("", first)
    flush_question()
    if not seen_question:
        raise PacketError(
            "no questions found ('Вопрос N:' blocks)", len(lines), code="db_no_questions"
        )
    return "\n".join(out), line_map


def parse_db(text: str) -> Packet:
    """Parse a packet in the db.chgk.info text format.

    ``text`` is normalised first. ``(pic: X)``/``(aud: X)`` become ``(img X)``/
    ``(aud X)`` references (nothing is downloaded). The result has the same
    field values chgksuite's 4s rendering of the packet has (typography: `` - ``
    → `` — ``, straight quotes → «», capital-vowel stress → U+0301, hard-wrapped
    lines re-joined, ``   1. …`` sources → list, ``<раздатка>`` → ``[Раздаточный
    материал: …]``).

    Raises :class:`PacketError` (line = 1-based db line) for control
    characters, a text block without a header, a field before the first
    ``Вопрос N:``, a question without ``Ответ:`` and a packet with no questions.
    """
    text = normalise(text)
    _check_controls(text)
    text = _DB_PIC.sub(
        lambda m: f"({'img' if m.group(1).lower() == 'pic' else 'aud'} {m.group(2)})", text
    )
    s4, line_map = _db_to_4s(text)
    # the 4s text is what chgksuite would write: normalise it like a 4s file
    packet = _parse_4s(normalise(s4), line_map, "db")
    packet.meta["format"] = "db"
    return packet


# --- detection ----------------------------------------------------------------

_DB_QUESTION_LINE = re.compile(r"^\s*Вопрос\s+\d+\s*:", re.IGNORECASE | re.MULTILINE)
_4S_QUESTION_LINE = re.compile(r"^\s*\?\s", re.MULTILINE)


def detect_format(text: str) -> Literal["4s", "db"]:
    """``"db"`` if the text has ``Вопрос N:`` header lines and at least as many
    of them as 4s ``? `` lines, else ``"4s"`` (the 4s parser then reports what is
    wrong). Never raises."""
    db = len(_DB_QUESTION_LINE.findall(text))
    s4 = len(_4S_QUESTION_LINE.findall(text))
    return "db" if db and db >= s4 else "4s"


def parse_packet(text: str) -> Packet:
    """Detect the format (:func:`detect_format`) and parse. Raises :class:`PacketError`."""
    if detect_format(text) == "db":
        return parse_db(text)
    return parse_4s(text)


# --- writing ------------------------------------------------------------------------

#: The author line of a question whose authors did not agree to be named.
ANONYMOUS_AUTHOR = "Автор пожелал остаться неизвестным"

#: The first line of a blitz / superblitz question, before its numbered parts.
_PREAMBLES = {"blitz": "Блиц.", "superblitz": "Суперблиц."}


@dataclass(frozen=True)
class AskedQuestion:
    """One question as it was asked, in Sova's own fields (glossary: question, answer,
    accepted, rejected, comment, sources, handout) plus the ``authors`` line as printed.

    ``handout`` is a handout that is *not* already written at the head of ``text``: a
    question imported from a packet keeps its ``[Раздаточный материал: …]`` block in the
    text (the caller passes ``None`` then), a viewer's question has it apart. Image
    references are ``(img name)`` in any field, ``name`` being the file written beside
    the packet."""

    text: str
    answer: str
    accepted: str | None = None
    rejected: str | None = None
    comment: str | None = None
    sources: tuple[str, ...] = ()
    handout: str | None = None
    authors: str | None = None


@dataclass(frozen=True)
class PacketItem:
    """One numbered question of a packet: a single question (one part), or a blitz /
    superblitz round (``kind`` ``"blitz"`` / ``"superblitz"``; anything else is a single
    question) with the parts that were asked, in order."""

    parts: tuple[AskedQuestion, ...]
    kind: str = "single"


@dataclass(frozen=True)
class PacketTour:
    """A run of questions under one heading (``##`` in 4s, ``Тур:`` in db): one game of a
    season's packet. ``title`` None: no heading (a one-game packet)."""

    title: str | None
    items: tuple[PacketItem, ...]


def _lines(text: str | None) -> list[str]:
    """The non-blank lines of ``text`` (neither format has a blank line inside a field:
    it ends the field), without trailing spaces."""
    return [line.rstrip() for line in normalise(text or "").split("\n") if line.strip()]


def _numbered(values: list[str | None]) -> str | None:
    """Per-part values of a multi-part question as one field: ``"N. value"`` lines for the
    parts that have one (N = the part's number); None when no part has one."""
    lines = [f"{n}. {v}" for n, v in enumerate(values, 1) if v]
    return "\n".join(lines) or None


def _combined(item: PacketItem) -> dict[str, Any]:
    """The fields of ``item`` as the packet writes them: ``question`` and ``answer`` as a
    list of parts (one per asked question) with the ``preamble`` of a blitz; ``accepted``,
    ``rejected``, ``comment`` and ``handout`` as :func:`_numbered` lines; ``sources`` all
    parts' sources in order (each once); ``authors`` one line when every part has the same,
    else numbered lines."""
    parts = item.parts
    if len(parts) == 1:
        p = parts[0]
        preamble = _PREAMBLES.get(item.kind)
        return {
            "preamble": preamble,
            "question": [p.text],
            "answer": [p.answer],
            "accepted": p.accepted or None,
            "rejected": p.rejected or None,
            "comment": p.comment or None,
            "handout": p.handout or None,
            "sources": [x for x in p.sources if x],
            "authors": p.authors or None,
        }
    sources: list[str] = []
    for p in parts:
        sources.extend(x for x in p.sources if x and x not in sources)
    authors = {p.authors for p in parts}
    return {
        "preamble": _PREAMBLES.get(item.kind, ""),
        "question": [p.text for p in parts],
        "answer": [p.answer for p in parts],
        "accepted": _numbered([p.accepted for p in parts]),
        "rejected": _numbered([p.rejected for p in parts]),
        "comment": _numbered([p.comment for p in parts]),
        "handout": _numbered([p.handout for p in parts]),
        "sources": sources,
        "authors": parts[0].authors if len(authors) == 1 else _numbered([p.authors for p in parts]),
    }


# 4s --------------------------------------------------------------------------------


def _4s_safe(lines: list[str]) -> list[str]:
    """Lines of one 4s field: a line after the first whose first word is a 4s marker, or
    that starts with ``-`` (a list item to a 4s reader), is joined to the line before it
    with a space — 4s has no way to write such a line."""
    out: list[str] = []
    for line in lines:
        words = line.split()
        if out and (words[0] in _MARKERS or line.lstrip().startswith("-")):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def _4s_field(marker: str, text: str | None) -> list[str]:
    lines = _4s_safe(_lines(text))
    if not lines:
        return []
    return [f"{marker} {lines[0]}", *lines[1:]]


def _4s_list(marker: str, preamble: str | None, items: list[str]) -> list[str]:
    """A field of several items: ``marker preamble`` (or the marker alone), then ``- item``
    lines (an item's own further lines follow it)."""
    out = [f"{marker} {preamble}" if preamble else marker]
    for item in items:
        lines = _4s_safe(_lines(item))
        if lines:
            out.append(f"- {lines[0]}")
            out.extend(lines[1:])
    return out


def write_4s(title: str | None, tours: Sequence[PacketTour]) -> str:
    """The packet in chgksuite's 4s format (UTF-8 text, LF line ends, ends with a newline).

    * ``### title``, then each tour's ``## title`` (when it has one) before its questions.
    * A question: ``? question``, ``> handout``, ``! answer``, ``= accepted``, ``!=
      rejected``, ``/ comment``, ``^ sources``, ``@ authors`` (the fields it has), questions
      separated by one blank line and numbered by the reader in packet order.
    * A field's lines follow its marker line; blank lines inside a field are dropped (a
      blank line ends a question); a line whose first word is a marker or that starts with
      ``-`` is joined to the line before it (:func:`_4s_safe`). (A field whose *first* line
      starts with ``- `` loses that hyphen to a 4s reader: the format cannot say otherwise.)
    * Several sources: a ``- `` list after the ``^`` line; one source: on the ``^`` line.
    * A blitz / superblitz round (:class:`PacketItem` with several parts): ``? Блиц.`` /
      ``? Суперблиц.`` and the parts as a ``- `` list; the answers as a ``- `` list after a
      lone ``!``; ``accepted``, ``rejected``, ``comment``, ``handout`` as ``N. value`` lines
      for the parts that have one; the parts' sources in one list (each once); the authors
      once when every part has the same line, else as ``N. line`` lines. A round of which
      one question was asked: the preamble line, then that question (one ``- `` item is
      plain text to a 4s reader).
    """
    out: list[str] = []
    if title:
        out += [f"### {' '.join(title.split())}", ""]
    for tour in tours:
        if tour.title:
            out += [f"## {' '.join(tour.title.split())}", ""]
        for item in tour.items:
            f = _combined(item)
            if len(f["question"]) > 1 or f["preamble"]:
                out += _4s_list("?", f["preamble"], f["question"])
            else:
                out += _4s_field("?", f["question"][0])
            out += _4s_field(">", f["handout"])  # after "?": a ">" that opens a block is
            # no question's field to chgksuite
            if len(f["answer"]) > 1:
                out += _4s_list("!", None, f["answer"])
            else:
                out += _4s_field("!", f["answer"][0])
            out += _4s_field("=", f["accepted"])
            out += _4s_field("!=", f["rejected"])
            out += _4s_field("/", f["comment"])
            if len(f["sources"]) > 1:
                out += _4s_list("^", None, f["sources"])
            else:
                out += _4s_field("^", f["sources"][0] if f["sources"] else None)
            out += _4s_field("@", f["authors"])
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# db.chgk.info ------------------------------------------------------------------------

_DB_ITEM_LIKE = re.compile(r"\d+\.\s")


def _db_pics(text: str) -> str:
    """``(img [options] name)`` → ``(pic: name)`` (db.chgk.info names no options)."""
    for start, end, name in reversed(image_spans(text)):
        text = f"{text[:start]}(pic: {name}){text[end:]}"
    return text


def _db_lines(text: str | None, lists: bool) -> list[str]:
    """One db field's lines (leading spaces dropped: indentation is the format's own): the
    first as is, each further line indented by three spaces (a new line to the reader; an
    unindented one is joined with a space). In fields where
    ``   1. …`` is a list item (``lists``: question, answer, sources) a further line that
    starts with ``N. `` is written unindented, i.e. joined to the line before. Lines are
    joined as for 4s first (:func:`_4s_safe`): :func:`parse_db` reads db text through 4s."""
    out: list[str] = []
    for line in _4s_safe([x.lstrip() for x in _lines(_db_pics(text or ""))]):
        if not out:
            out.append(line)
        elif lists and _DB_ITEM_LIKE.match(line.lstrip()):
            out.append(line)
        else:
            out.append("   " + line)
    return out


def _db_items(items: list[str]) -> list[str]:
    out: list[str] = []
    for n, item in enumerate(items, 1):
        lines = _db_lines(item, lists=True)
        if lines:
            out.append(f"   {n}. {lines[0]}")
            out.extend(lines[1:])
    return out


def write_db(title: str | None, tours: Sequence[PacketTour]) -> str:
    """The packet in the db.chgk.info text format (UTF-8 text, LF line ends).

    * ``Чемпионат:`` with the title, then each tour's ``Тур:`` (when it has a title); every
      header on its own line, its text on the lines after it, fields separated by one
      blank line; questions ``Вопрос N:`` numbered 1.. through the whole packet.
    * Fields: ``Вопрос N:`` (a handout apart from the text first, as ``   <раздатка>`` …
      ``   </раздатка>`` lines), ``Ответ:``, ``Зачет:``, ``Незачет:``, ``Комментарий:``,
      ``Источник:``, ``Автор:``.
    * A field's first line is written as is, each further line indented by three spaces
      (db.chgk.info's new line; :func:`_db_lines`); blank lines inside a field are dropped.
    * Images: ``(img name)`` is written ``(pic: name)``, the file beside the packet.
    * Several sources: ``   1. …`` lines; one source: plain text.
    * A blitz / superblitz round: ``Блиц.`` / ``Суперблиц.`` and the parts as ``   1. …``
      lines, the answers as ``   1. …`` lines, the other fields as for 4s
      (:func:`write_4s`). A round of which one question was asked: the preamble line, then
      that question on a line of its own.

    Readers of this format (chgksuite, :func:`parse_db`) apply db.chgk.info's typography:
    straight quotes become «», `` - `` an em dash, a capital vowel inside a lower-case word a
    stress mark, ``%xx`` runs in URLs are decoded, spaces before a line end are dropped. Text
    that already follows it («», —, U+0301, decoded URLs) reads back unchanged.
    """
    out: list[str] = []
    if title:
        out += ["Чемпионат:", " ".join(title.split()), ""]
    number = 0
    for tour in tours:
        if tour.title:
            out += ["Тур:", " ".join(tour.title.split()), ""]
        for item in tour.items:
            number += 1
            f = _combined(item)
            out.append(f"Вопрос {number}:")
            handout = _db_lines(f["handout"], lists=False)
            if len(f["question"]) > 1:
                question = [f["preamble"], *_db_items(f["question"])]
            elif f["preamble"]:
                question = _db_lines(f"{f['preamble']}\n{f['question'][0]}", lists=True)
            else:
                question = _db_lines(f["question"][0], lists=True)
            if handout:  # the text starts on a new line after the handout's closing tag
                out += ["   <раздатка>", *("   " + x.lstrip() for x in handout), "   </раздатка>"]
                question[0] = "   " + question[0]
            out += question
            out.append("")
            if len(f["answer"]) > 1:
                out += ["Ответ:", *_db_items(f["answer"]), ""]
            else:
                out += ["Ответ:", *_db_lines(f["answer"][0], lists=True), ""]
            for label, key in (("Зачет:", "accepted"), ("Незачет:", "rejected")):
                if f[key]:
                    out += [label, *_db_lines(f[key], lists=False), ""]
            if f["comment"]:
                out += ["Комментарий:", *_db_lines(f["comment"], lists=False), ""]
            if len(f["sources"]) > 1:
                out += ["Источник:", *_db_items(f["sources"]), ""]
            elif f["sources"]:
                out += ["Источник:", *_db_lines(f["sources"][0], lists=True), ""]
            if f["authors"]:
                out += ["Автор:", *_db_lines(f["authors"], lists=False), ""]
    return "\n".join(out).rstrip("\n") + "\n\n"
