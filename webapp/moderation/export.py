"""Exports: the queue as CSV / XLSX (no author data: blind moderation) and approved
questions as a chgksuite 4s packet that ``webapp.domain.packets.parse_4s`` reads back to
the same fields."""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from decimal import Decimal
from typing import IO
from zoneinfo import ZoneInfo

from webapp.core.formats import DEFAULT_ZONE
from webapp.core.spreadsheet import (
    BOM,
    XlsxSheet,
    csv_writer,
    decimal_comma,
    safe_row,
    xlsx_workbook,
)
from webapp.domain.packets import AuthorRef, format_authors
from webapp.moderation.operations.common import CHECK_LABELS, status_label
from webapp.submissions.models import CHANNEL_LABELS

#: The header row of the queue export, in Russian like the pages (the editors open it in
#: Excel). The values are the pages' too: the status of one question («на рассмотрении»),
#: the channel («импорт пакета»), the time in ``SOVA_TIMEZONE``, the failed checks' names.
QUEUE_COLUMNS = (
    "№",
    "Статус",
    "Канал",
    "Получен",
    "Вопрос",
    "Ответ",
    "Зачёт",
    "Незачёт",
    "Комментарий",
    "Источники",
    "Раздаточный материал",
    "Замечания проверки",
    "Сходство с повтором, %",
)


def queue_rows(
    items: Iterable,
    reports: dict,
    zone: str = DEFAULT_ZONE,
    received: Callable[[datetime], object] | None = None,
) -> list[list]:
    """One row per question in :data:`QUEUE_COLUMNS` order (status and channel as the pages
    name them, the time received in ``zone`` — «04.03.2023 15:00» by default, or what
    ``received`` makes of it: :func:`local_minute` for a spreadsheet's date cell —,
    ``sources`` one per line, the failed checks' Russian names separated by «; », the best
    duplicate candidate's score — a number — or empty). ``items``: rows of
    ``queries.EXPORT_COLUMNS`` (the sources as JSON text, ``sources_json``); ``reports``:
    ``{question id: row of queries.export_reports}`` (``checks_json``,
    ``duplicates_json``). The JSON is decoded only where it holds something to print
    (:func:`source_lines`, :func:`failed_checks`, :func:`top_score`): no sources, every
    check passed, no candidate — nothing decoded; an older report version — never."""
    received = received or minute_format(zone)
    statuses: dict[str, str] = {}
    channels, get = CHANNEL_LABELS, reports.get
    rows: list[list] = []
    append = rows.append
    for q in items:
        r = get(q.id)
        status = q.status
        label = statuses.get(status)
        if label is None:
            label = statuses[status] = status_label(status)
        append(
            [
                q.id,
                label,
                channels.get(q.channel, q.channel),
                received(q.created_at),
                q.text,
                q.answer,
                q.accepted or "",
                q.rejected or "",
                q.comment or "",
                source_lines(q.sources_json),
                q.handout or "",
                "" if r is None else failed_checks(r.checks_json),
                "" if r is None else top_score(r.duplicates_json),
            ]
        )
    return rows


def source_lines(raw: str | None) -> str:
    """A question's sources (their stored JSON text) one per line; none → ``""``."""
    if not raw or raw == "[]":
        return ""
    return "\n".join(json.loads(raw) or [])


def failed_checks(raw: str | None) -> str:
    """The Russian names of a report's failed checks (its ``checks`` as stored JSON text),
    separated by «; ». A check failed has ``"ok": false``: a text without the word
    ``false`` has none, and is not decoded (most reports pass every check)."""
    if not raw or "false" not in raw:
        return ""
    return "; ".join(
        CHECK_LABELS.get(c["name"], c["name"]) for c in json.loads(raw) or () if not c["ok"]
    )


def top_score(raw: str | None):
    """The first duplicate candidate's score of a report (its ``duplicates`` as stored
    JSON text: the candidates best first), or ``""`` when it has none."""
    if not raw or raw == "[]":
        return ""
    found = json.loads(raw)
    return found[0]["score"] if found else ""


def minute_format(zone: str = DEFAULT_ZONE) -> Callable[[datetime], str]:
    """A function giving an aware datetime as ``webapp.core.formats.when`` does
    («04.03.2023 15:00» in ``zone``, its numeric pattern ``dd.MM.yyyy HH:mm``), by an
    f-string of the local time's fields: a tenth of Babel's cost, which an export pays
    once per row (a naive datetime raises ValueError, as ``when`` does)."""
    tz = ZoneInfo(zone)

    def fmt(value: datetime) -> str:
        if value.tzinfo is None:
            raise ValueError("naive datetime: times are stored and passed aware (UTC)")
        d = value.astimezone(tz)
        return f"{d.day:02}.{d.month:02}.{d.year} {d.hour:02}:{d.minute:02}"

    return fmt


def local_minute(zone: str = DEFAULT_ZONE) -> Callable[[datetime], datetime]:
    """A function giving an aware datetime as the wall-clock minute in ``zone``, naive (a
    spreadsheet's date cell has no zone): the date and time the pages show
    («04.03.2023 15:00»), seconds dropped. A naive datetime raises ValueError."""
    tz = ZoneInfo(zone)

    def local(value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("naive datetime: times are stored and passed aware (UTC)")
        return value.astimezone(tz).replace(second=0, microsecond=0, tzinfo=None)

    return local


#: The «Получен» column of a queue row (0-based) and its XLSX number format: a real date
#: cell, shown as the pages show it.
RECEIVED_COLUMN = 3
RECEIVED_FORMAT = "dd.mm.yyyy hh:mm"

#: The columns of a queue row that hold what people typed (question … handout): the only
#: ones the formula guard must see; the others are Sova's own labels, numbers and dates.
TYPED_COLUMNS = slice(4, 11)


def _commas(row: Sequence) -> list:
    """``row`` with its fractional numbers (the duplicate score) as the CSV writes them:
    a decimal comma (``webapp.core.spreadsheet.decimal_comma``)."""
    return [decimal_comma(v) if isinstance(v, float | Decimal) else v for v in row]


def csv_chunks(
    batches: Iterable[Sequence[Sequence]], typed: slice | None = None
) -> Iterator[bytes]:
    """The CSV of the payment register's dialect (``webapp.core.spreadsheet.csv_writer``:
    UTF-8 with BOM, ``;`` separated, a decimal comma — what Russian-locale Excel opens as
    columns and numbers): the BOM and the header row, then one chunk per batch of rows, as
    they come. Each cell goes through ``safe_cell``; with ``typed`` (a slice of the row,
    :data:`TYPED_COLUMNS` for :func:`queue_rows`) only those cells do: the rest are Sova's
    own values."""
    buf = io.StringIO()
    writer = csv_writer(buf)
    writer.writerow(QUEUE_COLUMNS)
    yield (BOM + buf.getvalue()).encode("utf-8")
    for rows in batches:
        buf.seek(0)
        buf.truncate()
        if typed is None:
            writer.writerows(_commas(safe_row(row)) for row in rows)
        else:
            writer.writerows(_typed_row(row, typed) for row in rows)
        yield buf.getvalue().encode("utf-8")


def _typed_row(row: Sequence, typed: slice) -> list:
    """``row`` for :func:`csv_chunks` with typed columns: those through ``safe_row``, the
    others (Sova's own values) with a decimal comma where they are fractional numbers."""
    out = [decimal_comma(v) if isinstance(v, float | Decimal) else v for v in row]
    out[typed] = safe_row(out[typed])
    return out


#: Bytes per chunk of a streamed XLSX file.
XLSX_CHUNK = 256 * 1024


def xlsx_chunks(batches: Iterable[Sequence[Sequence]]) -> Iterator[bytes]:
    """An XLSX workbook, one sheet «Очередь», header row first, in chunks of
    :data:`XLSX_CHUNK` bytes. XlsxWriter's ``constant_memory`` mode
    (``webapp.core.spreadsheet.XlsxSheet``): each row is written by its values' types as
    it comes (text cells are strings, never formulas; the time received a date cell in
    :data:`RECEIVED_FORMAT` when the rows hold datetimes, :func:`local_minute`) to the
    sheet's temporary file, so memory stays flat; the zip is made at the end (in a
    temporary file too) and sent from there."""
    with tempfile.TemporaryFile() as out:
        write_xlsx(out, batches)
        out.seek(0)
        while block := out.read(XLSX_CHUNK):
            yield block


def write_xlsx(out: IO[bytes], batches: Iterable[Sequence[Sequence]]) -> None:
    """Write the workbook of :func:`xlsx_chunks` to the binary file ``out``; a read that
    fails halfway leaves no temporary file (``webapp.core.spreadsheet.xlsx_workbook``)."""
    with xlsx_workbook(out) as wb:
        sheet = XlsxSheet(wb, "Очередь")
        sheet.append(QUEUE_COLUMNS)
        formats = {RECEIVED_COLUMN: sheet.format(num_format=RECEIVED_FORMAT)}
        append = sheet.append
        for rows in batches:
            for row in rows:
                append(row, formats)


def write_csv(out: IO[bytes], batches: Iterable[Sequence[Sequence]]) -> None:
    """Write the CSV of :func:`csv_chunks` (typed columns :data:`TYPED_COLUMNS`) to the
    binary file ``out``."""
    for chunk in csv_chunks(batches, TYPED_COLUMNS):
        out.write(chunk)


def _value(text: str) -> str:
    """A field value for 4s: blank lines cannot occur inside a field (a blank line ends
    the question), so runs of line breaks become one."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    return "\n".join(line for line in lines if line.strip())


def to_4s(questions: Iterable, title: str = "Сова: одобренные вопросы") -> str:
    """A 4s packet: ``### title``, then per question ``?`` question, ``!`` answer, ``=``
    accepted, ``!=`` rejected, ``/`` comment, ``^`` sources (a ``-`` list when several),
    ``@`` authors «Name (City)», ``>`` handout; a blank line between questions."""
    out = [f"### {title}", ""]
    for q in questions:
        block = []
        if q.handout:
            block.append(f"> {_value(q.handout)}")
        block.append(f"? {_value(q.text)}")
        block.append(f"! {_value(q.answer)}")
        for marker, value in (("=", q.accepted), ("!=", q.rejected), ("/", q.comment)):
            if value and value.strip():
                block.append(f"{marker} {_value(value)}")
        sources = [s for s in (q.sources or []) if s.strip()]
        if len(sources) == 1:
            block.append(f"^ {_value(sources[0])}")
        elif sources:
            block.append("^ " + "\n".join(f"- {_value(s)}" for s in sources))
        authors = [AuthorRef(a.name, a.city) for a in q.author_list]
        if authors:
            block.append(f"@ {format_authors(authors)}")
        out.extend(block)
        out.append("")
    return "\n".join(out)
