"""Forms and privacy in Chromium: the payee form shows the chosen country's fields only and a
date picker; the consent checkbox links to the privacy notice (ru/be/en) with this
instance's retention figures; the owl is an image, not an emoji; /favicon.ico is served."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

from tests.helpers import VIEWERS_WIN  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


@pytest.fixture
def details_token(app, api, played, drain):
    """A one-time payee-details link of the first prize of a closed 2023 game."""
    from webapp.extensions import db
    from webapp.prizes import payee
    from webapp.prizes.models import Prize
    from webapp.tasks.outbox import commit

    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    drain()
    prize = db.session.scalar(db.select(Prize).order_by(Prize.id))
    token, prize_id = payee.request_details(prize, None), prize.id
    commit()
    db.session.close()  # no transaction (SQLite write lock) left open beside the live server
    return token, prize_id


def _shown(page, name: str) -> bool:
    return page.locator(f"[name={name}]").is_visible()


def test_payee_form_shows_the_chosen_country_fields_and_a_date_picker(
    live_server, page, details_token
):
    token, prize_id = details_token
    page.goto(f"{live_server.url}/prizes/details/{token}")
    assert page.locator("select[name=country]").input_value() == "BY"
    assert [_shown(page, n) for n in ("personal_number", "iban")] == [True, True]
    assert [_shown(page, n) for n in ("inn", "account", "bik")] == [False, False, False]
    assert page.get_attribute("input[name=issued_on]", "type") == "date"
    # the other country: its fields appear, Belarus' go (and are not sent)
    page.select_option("select[name=country]", "RU")
    assert [_shown(page, n) for n in ("inn", "account", "bik")] == [True, True, True]
    assert [_shown(page, n) for n in ("personal_number", "iban")] == [False, False]
    assert page.locator("input[name=iban]").is_disabled()
    assert all(_shown(page, n) for n in ("full_name", "passport_series", "address", "issued_on"))
    page.fill("[name=full_name]", "Сапего Иван Петрович")
    page.fill("[name=passport_series]", "4510")
    page.fill("[name=passport_number]", "123456")
    page.fill("[name=issued_by]", "ОВД Тверского района г. Москвы")
    page.fill("input[name=issued_on]", "2015-06-01")  # the picker's value is an ISO date
    page.fill("[name=address]", "г. Москва, ул. Тверская, д. 1")
    page.fill("[name=account]", "40702810938000000001")
    page.fill("[name=bik]", "044525225")
    page.select_option("select[name=tax_status]", "resident")
    page.get_by_role("button", name="Отправить").click()
    expect(page.locator("body")).to_contain_text("реквизиты получены")

    from webapp.extensions import db
    from webapp.prizes import payee
    from webapp.prizes.models import Prize

    with live_server.app.app_context():  # stored for Russia: the BY fields were not sent
        assert payee.declared(db.session.get(Prize, prize_id)) == (
            "Сапего Иван Петрович",
            "г. Москва, ул. Тверская, д. 1",
        )


def test_payee_form_without_script_shows_every_field(browser, live_server, details_token):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/prizes/details/{details_token[0]}")
        names = ("personal_number", "iban", "inn", "account", "bik", "issued_on")
        assert all(_shown(page, n) for n in names)
    finally:
        context.close()


@pytest.mark.parametrize(
    ("lang", "link", "heading", "figures"),
    [
        (
            "ru",
            "Что мы храним, зачем и как долго",
            "Как «Сова» обращается с персональными данными",
            (
                "через 90 дней после выплаты",
                "через 30 дней после закрытия",
                "самое большее 35 дней",
            ),
        ),
        (
            "be",
            "Што мы захоўваем, навошта і як доўга",
            "Як «Сава» абыходзіцца з персанальнымі данымі",
            ("праз 90 дзён пасля выплаты", "праз 30 дзён пасля закрыцця", "за 35 дзён"),
        ),
        (
            "en",
            "What we keep, why and for how long",
            "How Sova handles personal data",
            ("90 days after the prize is paid", "30 days after the vote", "at most 35 days"),
        ),
    ],
)
def test_consent_links_to_the_privacy_notice(live_server, page, lang, link, heading, figures):
    page.goto(f"{live_server.url}/lang/{lang}?next=/submit")
    consent = page.locator(".field.checkbox", has=page.locator("#consent"))
    anchor = consent.get_by_role("link", name=link)
    assert anchor.is_visible()
    with page.context.expect_page() as opened:  # a new tab: the typed question stays
        anchor.click()
    notice = opened.value
    notice.wait_for_load_state("load")
    assert notice.url.endswith("/privacy")
    assert notice.locator("h1").inner_text() == heading
    text = " ".join(notice.locator("main").inner_text().split())
    for figure in figures:
        assert figure in text, figure
    assert notice.locator("main a[href='/my']").count() == 1  # how to withdraw / ask
    notice.close()


def test_owl_is_an_image_and_the_favicon_is_served(live_server, page):
    page.goto(f"{live_server.url}/")
    assert "\U0001f989" not in page.content()  # no emoji owl: it needs an emoji font
    owl = page.locator("header.top a.brand img.owl")
    owl.wait_for()
    assert owl.evaluate("img => img.complete && img.naturalWidth") > 0
    icon = page.locator("link[rel=icon]").first.get_attribute("href")
    assert icon == "/favicon.ico"
    resp = page.request.get(f"{live_server.url}/favicon.ico")
    assert resp.status == 200 and resp.headers["content-type"] == "image/vnd.microsoft.icon"
    assert resp.body()[:4] == b"\x00\x00\x01\x00"  # an ICO file
