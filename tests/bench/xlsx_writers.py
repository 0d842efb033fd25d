"""`python -m tests.bench.xlsx_writers [--rows N] [--rounds K]`: the queue's XLSX written
by two writers from the same rows, alternated: openpyxl's write-only sheet (with lxml) and
Sova's own (``webapp.moderation.export.write_xlsx``: XlsxWriter's ``constant_memory``
mode, explicit typed writes, no text read as a formula, URL or number). The rows are the queue's real ones (``webapp.moderation.export.queue_rows``
of ``tests.scale_data`` questions on SQLite, the time received a date cell), read once
into memory, so only the writing is timed. Prints one JSON line per writer (p50 wall and
CPU, s), the ratio of the CPU times and whether openpyxl reads the same cells back from
both files (value, type, number format)."""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ERROR_CODES

from tests.bench.exports import emit, make_app
from webapp.core.spreadsheet import safe_cell
from webapp.moderation.export import QUEUE_COLUMNS, RECEIVED_FORMAT


def openpyxl_write(out, batches) -> None:
    """openpyxl's write-only sheet, each row typed for it: a guarded text as a plain value
    (openpyxl types it a string), an error-code-like text a cell typed ``s``, an empty text
    no cell, the time received one reused date cell with the format."""
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Очередь")
    ws.append(list(QUEUE_COLUMNS))
    received = WriteOnlyCell(ws, datetime(2000, 1, 1))
    received.number_format = RECEIVED_FORMAT
    for rows in batches:
        for row in rows:
            cells = []
            for value in row:
                if isinstance(value, str):
                    value = safe_cell(value) or None
                    if value in ERROR_CODES:
                        value = WriteOnlyCell(ws, value)
                        value.data_type = "s"
                elif isinstance(value, datetime):
                    received.value = value
                    value = received
                cells.append(value)
            ws.append(cells)
    wb.save(out)


def sova_write(out, batches) -> None:
    """The queue export's own writer (``webapp.moderation.export.write_xlsx``: XlsxWriter,
    ``constant_memory``, each value written by its type)."""
    from webapp.moderation.export import write_xlsx

    write_xlsx(out, batches)


WRITERS = {"openpyxl": openpyxl_write, "sova": sova_write}


def queue_batches(rows: int, tmp: Path) -> list[list[list]]:
    """The queue's XLSX rows («Все, кроме архива»: seven in eight of the questions made),
    in the export's batches."""
    from tests.scale_data import add_questions
    from webapp.extensions import db
    from webapp.moderation import export, queries

    app = make_app(f"sqlite:///{tmp / 'bench.sqlite'}", tmp)
    with app.app_context():
        add_questions(math.ceil(rows * 8 / 7), seed=7)
        zone = app.config["SOVA_TIMEZONE"]
        received = export.local_minute(zone)
        ids = queries.queue_ids(queries.QueueFilter(status=None))
        batches = []
        for start in range(0, len(ids), queries.EXPORT_BATCH):
            chunk = ids[start : start + queries.EXPORT_BATCH]
            items = queries.export_rows(chunk)
            batches.append(export.queue_rows(items, queries.export_reports(chunk), zone, received))
        db.session.remove()
    return batches


def read_back(path: Path) -> list[tuple]:
    """Every cell that holds a value as (column, value, data type, number format), row by
    row, openpyxl reading (a sheet with a dimension gives empty cells too: left out)."""
    from openpyxl import load_workbook

    ws = load_workbook(path, read_only=True)["Очередь"]
    return [
        tuple(
            (i, c.value, c.data_type, c.number_format if c.data_type in "nd" else "")
            for i, c in enumerate(row)
            if c.value is not None
        )
        for row in ws.iter_rows()
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sova-bench-xlsx-"))
    batches = queue_batches(args.rows, tmp)
    listed = sum(len(b) for b in batches)
    times: dict[str, list[float]] = {name: [] for name in WRITERS}
    cpu: dict[str, list[float]] = {name: [] for name in WRITERS}
    sizes: dict[str, int] = {}
    for n in range(args.rounds):
        order = list(WRITERS)[n % len(WRITERS) :] + list(WRITERS)[: n % len(WRITERS)]
        for name in order:
            path = tmp / f"{name}.xlsx"
            gc.collect()
            with path.open("wb") as out:
                t, c = time.perf_counter(), time.process_time()
                WRITERS[name](out, batches)
                times[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - c)
            sizes[name] = path.stat().st_size
    for name in WRITERS:
        emit(
            f"xlsx_{name}",
            rows=listed,
            bytes=sizes[name],
            p50_s=round(statistics.median(times[name]), 3),
            cpu_p50_s=round(statistics.median(cpu[name]), 3),
            runs_s=[round(t, 2) for t in times[name]],
            loadavg=round(os.getloadavg()[0], 2),
        )
    cells = {name: read_back(tmp / f"{name}.xlsx") for name in WRITERS}
    same = all(c == cells["openpyxl"] for c in cells.values())
    print(
        json.dumps(
            {
                "bench": "xlsx_writers_ratio",
                "cpu_over_sova": {
                    name: round(statistics.median(cpu[name]) / statistics.median(cpu["sova"]), 2)
                    for name in WRITERS
                },
                "same_cells": same,
            }
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
