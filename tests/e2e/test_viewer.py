"""A viewer on a phone, in Belarusian: error summary, correction, e-mail, status page —
in headless Debian Chromium against a real server, with a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("tests.e2e.conftest")
from playwright.sync_api import expect  # noqa: E402


def test_belarusian_viewer_on_a_phone(smtp_sink, live_server, phone_page):
    page = phone_page
    page.goto(f"{live_server.url}/lang/be?next=/submit")
    assert page.locator("h1").inner_text() == "Даслаць пытанне знаўцам"
    page.fill("#question", "Кароткае")
    page.fill("#answer", "Мінск")
    page.fill("#name", "Алесь Мароз")
    page.fill("#city", "Гомель")
    page.fill("#email", "ales@example.by")
    page.click("button[type=submit]")
    summary = page.locator("#error-summary")
    expect(summary).to_be_visible()
    text = summary.inner_text()
    assert "Праверце, калі ласка:" in text
    assert "Без згоды на апрацоўку персанальных даных" in text
    assert page.input_value("#answer") == "Мінск"  # text kept
    # the refused boxes' messages stay on the phone screen, under their boxes
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    error = page.locator("#consent-error").bounding_box()
    assert error is not None and error["x"] + error["width"] <= 390
    page.fill("#question", "Які горад называюць сталіцай Беларусі? Назавіце яго.")
    page.check("#consent")
    page.check("#age_confirmed")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/status/[\w-]+\?new=1"))
    assert "Дзякуй! Пытанне атрымана." in page.content()
    status_url = page.url.split("?")[0]
    assert live_server.drain() == ["moderation.precheck", "notify.received"]
    received = smtp_sink[1]
    assert len(received) == 1
    body = received[0].get_payload(decode=True).decode()
    # the e-mailed link confirms the address and opens the status page
    link = re.search(r"http://\S+(/confirm/\S+)", body).group(1)
    page.goto(live_server.url + link)
    assert page.url.split("?")[0] == status_url
    assert "На разглядзе рэдакцыі" in page.content()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing overflows the phone screen


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_honeypot_is_invisible_to_people(live_server, page):
    page.goto(f"{live_server.url}/submit")
    box = page.locator("#website").bounding_box()
    assert box is None or box["x"] + box["width"] <= 0  # off-screen
    expect(page.locator("#question")).to_be_visible()


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_an_image_over_5_mb_is_refused_before_upload(live_server, phone_page):
    """A file over the server's 8 MB request cap got a bare 413 and the typed text was
    lost. The page refuses an image over 5 MB as soon as it is chosen (in the page's
    language) and empties the file input; the next «Отправить» stops to show why, and the
    question goes without the image only when sent again."""
    page = phone_page
    page.goto(f"{live_server.url}/lang/be?next=/submit")
    page.fill("#question", "Які горад называюць сталіцай Беларусі? Назавіце яго.")
    page.fill("#answer", "Мінск")
    page.fill("#name", "Алесь Мароз")
    page.fill("#email", "ales@example.by")
    page.check("#consent")
    page.check("#age_confirmed")
    page.locator("details", has=page.locator("#handout_image")).locator("summary").click()
    page.set_input_files(
        "#handout_image",
        files=[
            # over the page's 5 MB and the server's 8 MB request cap (the case of a bare 413)
            {"name": "map.jpg", "mimeType": "image/jpeg", "buffer": b"\xff\xd8" + b"0" * 8_500_000}
        ],
    )
    assert page.locator("#handout_image-size").inner_text() == (
        "Выява большая за 5 МБ: выберыце файл меншы. Каб даслаць пытанне без выявы, "
        "націсніце «Адправіць» яшчэ раз."
    )
    assert page.evaluate("document.getElementById('handout_image').files.length") == 0
    # «Отправить» right after the refusal does not send the question without its image
    # silently: the page stays, the message in view
    page.click("button[type=submit]")
    page.wait_for_timeout(500)
    assert page.url.endswith("/submit")
    expect(page.locator("#handout_image-size")).to_be_visible()
    page.set_input_files(
        "#handout_image",
        files=[
            {"name": "small.jpg", "mimeType": "image/jpeg", "buffer": b"\xff\xd8" + b"0" * 1000}
        ],
    )
    assert page.locator("#handout_image-size").count() == 0  # a fitting file clears it
    page.set_input_files("#handout_image", files=[])
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/status/[\w-]+\?new=1"))


@pytest.mark.slow  # full run only (the browser smoke: tests/e2e/conftest.py)
def test_the_image_stays_on_the_phone_across_an_error_and_the_back_button(live_server, phone_page):
    """On a phone: a JPEG attached to a question too short comes back shown (loaded, in
    the unfolded handout block, within the screen), with the note and the remove box; a
    question over the limit is not cut (the counter turns red); the corrected question,
    sent without attaching the file again, has the image; the back button and a second
    send give the same status page, one question."""
    import io

    from PIL import Image

    from webapp.extensions import db
    from webapp.submissions.models import Question

    out = io.BytesIO()
    Image.new("RGB", (800, 600), (30, 120, 60)).save(out, format="JPEG")
    page = phone_page
    page.goto(f"{live_server.url}/submit")
    page.fill("#question", "Короткий")
    page.fill("#answer", "Минск")
    page.fill("#name", "Алесь Мароз")
    page.fill("#email", "ales@example.by")
    page.check("#consent")
    page.check("#age_confirmed")
    page.locator("details", has=page.locator("#handout_image")).locator("summary").click()
    page.set_input_files(
        "#handout_image",
        files=[{"name": "map.jpg", "mimeType": "image/jpeg", "buffer": out.getvalue()}],
    )
    page.click("button[type=submit]")
    page.wait_for_selector("#error-summary")
    kept = page.locator("#kept-image img")
    expect(kept).to_be_visible()  # waits for the image's layout; is_visible() would not
    page.wait_for_function("document.querySelector('#kept-image img').complete")
    assert page.evaluate("document.querySelector('#kept-image img').naturalWidth") == 800
    assert "прыкладаць яе нанова не трэба" in page.locator("#kept-image").inner_text()  # be-BY
    expect(page.locator("#handout_image_remove")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = kept.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    long = "Очень длинный вопрос про северную столицу. " * 72
    page.fill("#question", long)
    assert len(page.input_value("#question")) == 3096  # not cut at 3000
    counter = page.locator("#question ~ .counter")
    assert counter.inner_text() == "3096 / 3000" and "over" in counter.get_attribute("class")
    page.fill("#question", "Какой город называют столицей Беларуси? Назовите его.")
    assert "over" not in counter.get_attribute("class")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/status/[\w-]+\?new=1"))
    status_url = page.url
    with live_server.app.app_context():
        (q,) = db.session.scalars(db.select(Question)).all()
        assert q.handout_image and q.handout_image.endswith(".jpg")
    page.go_back()
    page.wait_for_selector("button[type=submit]:enabled")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/status/[\w-]+"))
    assert page.url.split("?")[0] == status_url.split("?")[0]
    with live_server.app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(Question)) == 1
