"""Exports: the queue as CSV / XLSX (no author data: blind moderation) and approved
questions as a chgksuite 4s packet that ``webapp.domain.packets.parse_4s`` reads back to
the same fields."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from openpyxl import Workbook

from webapp.core.formats import DEFAULT_ZONE, when
from webapp.core.spreadsheet import append_safe, safe_row
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


def queue_rows(items: Iterable, reports: dict, zone: str = DEFAULT_ZONE) -> list[list]:
    """One row per question in :data:`QUEUE_COLUMNS` order (status and channel as the pages
    name them, the time received «04.03.2023 15:00» in ``zone``, ``sources`` one per line,
    the failed checks' Russian names separated by «; », the best duplicate candidate's score
    or empty)."""
    rows = []
    for q in items:
        r = reports.get(q.id)
        failed = "; ".join(
            CHECK_LABELS.get(c["name"], c["name"]) for c in (r.checks if r else []) if not c["ok"]
        )
        score = r.duplicates[0]["score"] if r and r.duplicates else ""
        rows.append(
            [
                q.id,
                status_label(q.status),
                CHANNEL_LABELS.get(q.channel, q.channel),
                when(q.created_at, zone),
                q.text,
                q.answer,
                q.accepted or "",
                q.rejected or "",
                q.comment or "",
                "\n".join(q.sources or []),
                q.handout or "",
                failed,
                score,
            ]
        )
    return rows


def to_csv(rows: Sequence[Sequence]) -> bytes:
    """UTF-8 CSV with BOM (Excel opens Cyrillic correctly), header row first."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(QUEUE_COLUMNS)
    writer.writerows([safe_row(row) for row in rows])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")


def to_xlsx(rows: Sequence[Sequence]) -> bytes:
    """An XLSX workbook (openpyxl), one sheet «Очередь», header row first."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Очередь"
    ws.append(list(QUEUE_COLUMNS))
    for row in rows:
        append_safe(ws, row)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


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
