"""The archive's search on PostgreSQL: Russian word forms (the editors' ``russian`` text
search), and only aired questions that are not held back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.webapp.archive.rows import closed_game
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Season


def test_search_finds_word_forms_of_aired_questions_only(pg_app):
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    aired, held = closed_game(
        season,
        datetime(2023, 12, 30, 18, tzinfo=UTC),
        ["Какой год назвали годом тишины?", "Этот год был високосным."],
    )
    (tomorrow,) = closed_game(
        season, utcnow() + timedelta(days=1), ["Следующий год начнётся завтра."]
    )
    held.held_back_at = utcnow()
    db.session.commit()

    client = pg_app.test_client()
    page = client.get("/archive/search?q=годом").get_data(as_text=True)
    assert "Найдено: 1" in page
    assert f'id="q{aired.id}"' in page
    assert f'id="q{held.id}"' not in page and f'id="q{tomorrow.id}"' not in page
    # another form of the word, and a word of no aired question
    assert "Найдено: 1" in client.get("/archive/search?q=года").get_data(as_text=True)
    assert "Найдено: 0" in client.get("/archive/search?q=завтра").get_data(as_text=True)
