"""The one XLSX writer (``webapp.core.spreadsheet``): each value written by its type and read
back by openpyxl as that type, no text ever a formula, a URL, a number or an error code;
its temporary files gone whether the workbook is written, a read fails halfway or the
download is abandoned."""

from __future__ import annotations

import io
import tempfile
from datetime import date, datetime
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from webapp.core.spreadsheet import XlsxSheet, xlsx_workbook
from webapp.moderation.export import QUEUE_COLUMNS, write_xlsx, xlsx_chunks


def test_each_value_is_written_by_its_type():
    out = io.BytesIO()
    with xlsx_workbook(out) as wb:
        sheet = XlsxSheet(wb, "Лист")
        money = sheet.format(num_format="#,##0.00")
        assert sheet.format(num_format="#,##0.00") is money  # made once
        sheet.append(
            [
                "=1+1",
                "#N/A",
                "007",
                "http://example.org",
                "",
                None,
                7,
                87.5,
                Decimal("150.00"),
                date(2024, 2, 1),
                datetime(2023, 3, 4, 15, 0),
                True,
                "\uff1dHYPERLINK(1)",
            ]
        )
        sheet.append(["Итого", None, "", Decimal("450.00")], {1: money, 2: money, 3: money})
    ws = load_workbook(io.BytesIO(out.getvalue())).active
    assert ws.title == "Лист"
    first = [(c.value, c.data_type) for c in ws[1]]
    assert first == [
        ("'=1+1", "s"),
        ("#N/A", "s"),
        ("007", "s"),
        ("http://example.org", "s"),
        (None, "n"),
        (None, "n"),
        (7, "n"),
        (87.5, "n"),
        (150, "n"),
        (datetime(2024, 2, 1), "d"),
        (datetime(2023, 3, 4, 15, 0), "d"),
        (True, "b"),
        ("'\uff1dHYPERLINK(1)", "s"),
    ]
    assert [ws.cell(1, c).number_format for c in (10, 11)] == ["dd.mm.yyyy", "dd.mm.yyyy hh:mm"]
    assert [c.coordinate for row in ws.iter_rows() for c in row if c.hyperlink] == []
    second = ws[2][:4]
    assert [c.value for c in second] == ["Итого", None, None, 450]
    # a column with a format gets it, empty or not
    assert [c.number_format for c in second[1:4]] == ["#,##0.00"] * 3


def test_a_text_longer_than_a_cell_holds_is_cut_visibly():
    """Excel's cell holds 32 767 characters: a longer text ends with «…» at that length (the
    reader sees it was cut); one of exactly that length is whole."""
    out = io.BytesIO()
    whole = "а" * 32_767
    with xlsx_workbook(out) as wb:
        XlsxSheet(wb, "Лист").append([whole, "б" * 40_000, "=" + "в" * 32_767])
    (row,) = load_workbook(io.BytesIO(out.getvalue())).active.iter_rows(values_only=True)
    assert row[0] == whole
    assert row[1] == "б" * 32_766 + "…"
    assert row[2] == "'=" + "в" * 32_764 + "…"  # the guard's apostrophe counts too


def queue_row(n: int) -> list:
    return [n, "на рассмотрении", "сайт", datetime(2023, 3, 4, 15, n % 60), f"Вопрос {n}"]


def test_a_read_failing_halfway_leaves_no_temporary_file(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []

    def batches():
        yield [queue_row(n) for n in range(1, 1001)]
        # the first batch is on disk, in the workbook's own folder
        seen.extend(p.name for p in tmp_path.rglob("*") if p.is_file())
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError, match="went away"):
        write_xlsx(io.BytesIO(), batches())
    assert seen
    assert list(tmp_path.iterdir()) == []


def test_an_abandoned_download_leaves_no_temporary_file(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    batches = ([queue_row(n) for n in range(b * 1000, b * 1000 + 1000)] for b in range(5))
    chunks = xlsx_chunks(batches)
    first = next(chunks)
    assert first.startswith(b"PK")
    chunks.close()
    assert list(tmp_path.iterdir()) == []


def test_a_written_workbook_leaves_no_temporary_file(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = b"".join(xlsx_chunks([[queue_row(1), queue_row(2)]]))
    assert list(tmp_path.iterdir()) == []
    ws = load_workbook(io.BytesIO(data))["Очередь"]
    assert [c.value for c in ws[1]] == list(QUEUE_COLUMNS)
    assert [c.value for c in ws[3]][:5] == [
        2,
        "на рассмотрении",
        "сайт",
        datetime(2023, 3, 4, 15, 2),
        "Вопрос 2",
    ]


def test_memory_stays_flat_whatever_the_rows():
    """The peak of Python's allocations while 8 000 rows are written is the peak for
    1 000: a batch of rows at a time in memory, the rest in the sheet's temporary file."""
    import tracemalloc

    def peak(n: int) -> int:
        batches = ([queue_row(i) for i in range(b, b + 500)] for b in range(0, n, 500))
        tracemalloc.start()
        try:
            with tempfile.TemporaryFile() as out:
                write_xlsx(out, batches)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(1_000), peak(8_000)
    assert large < small * 1.1 + 100_000, (small, large)
