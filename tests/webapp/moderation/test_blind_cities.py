"""Blind moderation. An editor who may not see author data must not learn
how many questions each city sent: no city filter in the queue (a typed ``city=`` is
ignored) and no statistics by city; a chief editor keeps both."""

from __future__ import annotations

import re

from tests.helpers import submit
from webapp.extensions import db
from webapp.submissions.models import Question, set_status
from webapp.tasks.outbox import commit


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


def test_the_guide_promises_editors_only_the_filters_their_page_has(app, login):
    """docs/guide.md listed «city» among every editor's filters; the queue's filter form
    gives it to the chief editor only (blind moderation, docs/security.md)."""
    from pathlib import Path

    from tests.webapp.moderation import pages

    def labels(role: str) -> list[str]:
        page = login(role).get("/editor/queue").get_data(as_text=True)
        names = [name for name, _ in pages.form(page, role="search")["fields"]]
        return [re.search(rf'<label for="{n}">([^<]*)', page).group(1) for n in names]

    assert "Город автора" not in labels("editor")
    assert "Город автора" in labels("chief_editor")
    guide = (Path(__file__).resolve().parents[3] / "docs" / "guide.md").read_text()
    editors = " ".join(guide.split("## Editors", 1)[1].split("## Producers", 1)[0].split())
    assert "Filter by status, channel, city" not in editors
    assert "The author's city is a filter of the chief editor's (and the admin's) only" in editors
