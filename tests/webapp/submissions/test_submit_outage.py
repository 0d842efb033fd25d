"""Without a browser: a body over the request limit (an image over 5 MB,
JavaScript off) is the form again with the text and the size message, not a bare 413; a
real database outage (the SQLite file replaced by a directory) is the form with the text
as a 503."""

from __future__ import annotations

import io

from tests.helpers import break_database

FORM = {
    "question": "Какой город называют северной столицей России? Назовите его.",
    "answer": "Санкт-Петербург",
    "name": "Пётр Иванов",
    "city": "Минск",
    "email": "petr@example.com",
    "consent": "y",
    "age_confirmed": "y",
}


def test_an_image_over_the_request_limit_keeps_the_text(client, app):
    big = b"\x89PNG\r\n\x1a\n" + b"\0" * (9 * 1024 * 1024)  # over the 8 MB request cap
    assert len(big) > app.config["MAX_CONTENT_LENGTH"]
    r = client.post(
        "/submit",
        data={**FORM, "handout_image": (io.BytesIO(big), "big.png")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 422
    page = r.get_data(as_text=True)
    assert "Изображение больше 5 МБ." in page
    assert FORM["question"] in page and "petr@example.com" in page


def test_a_database_outage_answers_the_form_with_the_text(client, app):
    break_database(app)
    r = client.post("/submit", data=FORM)
    assert r.status_code == 503
    assert r.headers["Retry-After"] == "5"
    page = r.get_data(as_text=True)
    assert "База данных временно недоступна, вопрос не сохранён." in page
    assert FORM["question"] in page and "Санкт-Петербург" in page
