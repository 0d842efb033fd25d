"""Packet images in Chromium: an editor imports the real Kubok packet with a zip of its
images (all but one) on the import page, sees the images on the question pages, the
missing one as a failed pre-check, and attaches it with the question page's form."""

from __future__ import annotations

import zipfile

import pytest

from tests.helpers import KUBOK, KUBOK_IMAGES, KUBOK_PREFIX, image_bytes

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


PREFIX = KUBOK_PREFIX
REFS = KUBOK_IMAGES
MISSING = f"{PREFIX}004.jpeg"


def _question_id(live_server, start: str) -> int:
    from webapp.extensions import db
    from webapp.submissions.models import Question

    with live_server.app.app_context():
        return next(
            q.id
            for q in db.session.scalars(db.select(Question))
            if start in q.text.split("\n", 3)[-1]
        )


def _natural_widths(page) -> dict[str, int]:
    page.wait_for_function(
        # a function, not an expression: Playwright polls an expression with eval, which
        # the page's CSP (no 'unsafe-eval') refuses once the first check has not passed
        "() => [...document.querySelectorAll('img.question-image')].every(i => i.complete)"
    )
    return page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('img.question-image')]"
        ".map(i => [i.dataset.ref || 'handout', i.naturalWidth]))"
    )


def test_import_with_images_show_them_and_attach_the_missing_one(
    live_server, page, shared_dir, tmp_path
):
    from playwright.sync_api import expect

    bundle = tmp_path / "kubok.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        zf.write(shared_dir / KUBOK, "Kubok_knyagini_Olgi-2015.docx.canon")
        for name in REFS:
            if name != MISSING:
                zf.writestr(name, image_bytes(name))
    live_server.login(page, "editor")
    page.goto(f"{live_server.url}/editor/import")
    page.set_input_files("#packet", str(bundle))
    page.select_option("#as_", "submissions")
    page.get_by_role("button", name="Импортировать").click()
    page.wait_for_load_state("load")
    expect(page.locator(".flash").first).to_contain_text(
        "kubok.zip: импортировано вопросов — 75. Изображений приложено: 6. Нет файлов "
        f"изображений (1): {MISSING} — приложите их к вопросам.",
        timeout=15000,
    )
    live_server.drain()

    # the Prague question: the handout image in the text, the photo in the comment
    prague = _question_id(live_server, "Автор вопроса сравнил Прагу")
    page.goto(f"{live_server.url}/editor/questions/{prague}")
    widths = _natural_widths(page)
    assert widths == {f"{PREFIX}001.png": 60, f"{PREFIX}001.jpeg": 64}
    assert page.locator("img.question-image").count() == 2  # the handout once, the photo
    assert "(img" not in page.locator("blockquote.question-text").inner_text()
    assert "Автор вопроса сравнил Прагу" in page.locator("blockquote.question-text").inner_text()

    # the altar: its image is missing — the page and the pre-check say so
    altar = _question_id(live_server, "Перед вами створки алтаря")
    page.goto(f"{live_server.url}/editor/questions/{altar}")
    assert page.locator(".missing-image").inner_text() == (f"[нет файла изображения {MISSING}]")
    assert (
        f"изображения: нет файла изображения: {MISSING}" in page.locator("li.bad").all_inner_texts()
    )
    # the attach form is open; the editor picks the missing name and a file
    form = page.locator("details.attach-image")
    assert form.get_attribute("open") is not None
    assert page.locator("#ref").input_value() == MISSING
    image = tmp_path / "altar.jpeg"
    image.write_bytes(image_bytes(MISSING))
    page.set_input_files("#image", str(image))
    page.get_by_role("button", name="Приложить").click()
    page.wait_for_load_state("load")
    expect(page.locator(".flash").first).to_contain_text(
        f"Изображение {MISSING} приложено.", timeout=15000
    )
    assert _natural_widths(page)[MISSING] == 76
    assert page.locator(".missing-image").count() == 0
    assert "изображения: ок" in page.locator("li.ok").all_inner_texts()
