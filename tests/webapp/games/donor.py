"""The season's donor as the producer sets it on the season page, and the page's forms as a
browser reads them (the HTML unescaped; a form by its id, with what it sends)."""

from __future__ import annotations

import html

from tests.forms import Form, page_forms

DONOR = {
    "name": "ООО «Игра-ТВ»",
    "city": "Москва",
    "representative": "генерального директора Козлова Бориса Петровича, действующего на "
    "основании Устава",
    "details": "Адрес: 119021, г. Москва, ул. Тимура Фрунзе, 11\nИНН 7704000000\n"
    "р/с 40702810900000000001 в ПАО «Сбербанк», БИК 044525225",
}


def page(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def rendered_form(text: str, form_id: str) -> Form:
    """The form ``<form id=…>`` of a page as a browser would submit it."""
    found = [f for f in page_forms(text) if f.attrs.get("id") == form_id]
    assert found and found[0].action, f"no form #{form_id}"
    return found[0]
