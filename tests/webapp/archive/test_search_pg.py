"""The archive's search on PostgreSQL: Russian word forms (the editors' ``russian`` text
search), and only aired questions that are not held back."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Envelope, EnvelopeQuestion, Game, Season
from webapp.submissions.models import Question


def _game(season: Season, air_at: datetime, texts: list[str]) -> list[Question]:
    """A closed game airing at ``air_at`` whose sectors 1.. held ``texts``, all asked."""
    game = Game(
        season=season, kind="qualifying", air_date=air_at.date(), air_at=air_at, status="closed"
    )
    db.session.add(game)
    db.session.flush()
    out = []
    for sector, text in enumerate(texts, start=1):
        q = Question(
            public_token=secrets.token_urlsafe(16),
            text=text,
            answer="Ответ",
            channel="web",
            status="unanswered",
        )
        envelope = Envelope(game_id=game.id, sector=sector, kind="single")
        db.session.add_all([q, envelope])
        db.session.flush()
        db.session.add(
            EnvelopeQuestion(
                envelope_id=envelope.id,
                game_id=game.id,
                question_id=q.id,
                slot=1,
                outcome="unanswered",
            )
        )
        out.append(q)
    return out


def test_search_finds_word_forms_of_aired_questions_only(pg_app):
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    aired, held = _game(
        season,
        datetime(2023, 12, 30, 18, tzinfo=UTC),
        ["Какой год назвали годом тишины?", "Этот год был високосным."],
    )
    (tomorrow,) = _game(season, utcnow() + timedelta(days=1), ["Следующий год начнётся завтра."])
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
