"""The staff login page in the visitor's language: a guest host or the sponsor's
representative (the vote pages are translated) signs in in Belarusian or English, through
the form the page renders; the refusals are in that language too."""

from __future__ import annotations

import pytest
from flask_babel import refresh

from tests.forms import page_forms

CASES = {
    "be": ("Уваход для рэдакцыі", "Увайсці", "Няправільная пошта або пароль.", "Укажыце пароль."),
    "en": ("Staff login", "Sign in", "Wrong e-mail or password.", "Enter your password."),
    "ru": ("Вход для редакции", "Войти", "Неверная почта или пароль.", "Укажите пароль."),
}


@pytest.mark.parametrize("lang", list(CASES))
def test_login_in_the_visitors_language(client, staff, lang):
    heading, button, wrong, empty = CASES[lang]
    staff("editor")
    refresh()
    page = client.get(f"/login?lang={lang}").get_data(as_text=True)
    assert f"<h1>{heading}</h1>" in page and f">{button}</button>" in page
    (form,) = [f for f in page_forms(page) if f.method == "post"]
    action = form.action or "/login"

    refresh()
    typed = {**form.fields, "email": "editor@test.local", "password": "wrong"}
    r = client.post(action, data=typed)
    assert r.status_code == 401 and wrong in r.get_data(as_text=True)

    refresh()
    r = client.post(action, data={**form.fields, "email": "editor@test.local"})
    assert r.status_code == 422 and empty in r.get_data(as_text=True)

    refresh()
    r = client.post(
        action, data={**form.fields, "email": "editor@test.local", "password": "editor-pw"}
    )
    assert r.status_code == 302
