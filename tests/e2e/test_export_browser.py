"""An editor exports a queue too large for a request, in headless Chromium: the queue page's
«Подготовить XLSX» button, the progress page with its bar (``static/export.js`` polls the
status), the worker's task, the download link appearing on its own, the file opened."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


@pytest.fixture
def five(live_server):
    """Five questions in review; at most two rows are streamed in a request."""
    from tests.webapp.moderation.queue_data import make

    live_server.app.config["SOVA_EXPORT_INLINE_ROWS"] = 2
    texts = [
        ("Какой город основал Ярослав Мудрый на Волге в XI веке?", "Ярославль"),
        ("Назовите реку, на которой стоит Полоцк, древнейший город Беларуси.", "Западная Двина"),
        ("Какой композитор написал оперу «Князь Игорь», оставшуюся незаконченной?", "Бородин"),
        ("Замок какого рода стоит в Несвиже и внесён в список ЮНЕСКО?", "Радзивиллов"),
        ("Какой замок под Кореличами внесён в список ЮНЕСКО вместе с Несвижем?", "Мирский"),
    ]
    with live_server.app.app_context():
        return [make(t, a, "Минск", "web", days_old=9 - i).id for i, (t, a) in enumerate(texts)]


def test_export_a_large_queue_with_the_progress_bar_and_download_it(live_server, page, five):
    from openpyxl import load_workbook

    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/queue")
    expect(page.get_by_role("link", name="XLSX", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Подготовить XLSX").click()
    expect(page.locator("h1")).to_have_text("Выгрузка очереди")
    bar = page.locator("progress#export-progress")
    expect(bar).to_be_visible()
    expect(page.locator("#export-state")).to_have_text("Выгрузка в очереди сервера.")
    assert page.get_by_role("link", name="Скачать файл").count() == 0

    assert "moderation.export_queue" in live_server.drain()  # the worker's part
    link = page.get_by_role("link", name="Скачать файл")
    expect(link).to_be_visible(timeout=15000)  # export.js saw «ready» and reloaded
    expect(page.get_by_text("Файл готов, строк: 5.")).to_be_visible()
    with page.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename.endswith(".xlsx")
    ws = load_workbook(io.BytesIO(Path(download.path()).read_bytes()))["Очередь"]
    assert [row[0].value for row in ws.iter_rows(min_row=2)] == five
