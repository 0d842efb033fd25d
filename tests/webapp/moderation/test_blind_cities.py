"""Blind moderation. An editor who may not see author data must not learn
how many questions each city sent: no city filter in the queue (a typed ``city=`` is
ignored) and no statistics by city; a chief editor keeps both."""

from __future__ import annotations

import re

from tests.helpers import submit
from webapp.extensions import db
from webapp.jobs import commit
from webapp.submissions.models import Question, set_status


def send(client, n: int, city: str) -> None:
    submit(
        client,
        {
            "question": f"Вопрос номер {n} о городе, где что-то произошло в {1900 + n} году?",
            "answer": "Ответ",
            "authors": [{"name": f"Автор {n}", "city": city}],
            "email": f"a{n}@example.com",
            "consent": True,
        },
    )


def rows(page: str) -> int:
    return len(re.findall(r'href="/editor/questions/\d+"', page))


def test_editors_get_no_city_counts(app, client, login):
    for n, city in enumerate(["Пинск", "Пинск", "Пинск", "Брест"]):
        send(client, n, city)
    for q in db.session.scalars(db.select(Question)):
        set_status(q, "prechecked")
        set_status(q, "in_review")
    commit()

    editor = login("editor")
    page = editor.get("/editor/queue?city=Пинск").get_data(as_text=True)
    assert 'name="city"' not in page
    assert rows(page) == 4  # the typed city is ignored: no count per city
    stats = editor.get("/editor/stats").get_data(as_text=True)
    assert "По городам" not in stats and "Пинск" not in stats

    chief = login("chief_editor")
    page = chief.get("/editor/queue?city=Пинск").get_data(as_text=True)
    assert 'name="city"' in page
    assert rows(page) == 3
    stats = chief.get("/editor/stats").get_data(as_text=True)
    assert "По городам" in stats and "<td>Пинск</td><td>3</td>" in stats
