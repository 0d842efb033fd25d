"""Rows of the archive's tests: a closed game with asked questions, written directly (the
games ``played`` through the API are in ``aired``; these are for PostgreSQL and the
browser, where a short fixed text matters more than the path it took)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from webapp.extensions import db
from webapp.games.models import Envelope, EnvelopeQuestion, Game, Season
from webapp.submissions.models import Question


def closed_game(
    season: Season, air_at: datetime, texts: list[str], answer: str = "Ответ"
) -> list[Question]:
    """A closed game airing at ``air_at`` whose sectors 1.. held ``texts``, all asked."""
    questions = [
        Question(
            public_token=secrets.token_urlsafe(16),
            text=text,
            answer=answer,
            channel="web",
            status="unanswered",
        )
        for text in texts
    ]
    db.session.add_all(questions)
    db.session.flush()
    asked_in_closed_game(season, air_at, questions)
    return questions


def asked_in_closed_game(season: Season, air_at: datetime, questions: list[Question]) -> Game:
    """A closed game airing at ``air_at`` whose sectors 1.. held ``questions`` (stored
    ones), each asked and not answered."""
    game = Game(
        season=season, kind="qualifying", air_date=air_at.date(), air_at=air_at, status="closed"
    )
    db.session.add(game)
    db.session.flush()
    for sector, q in enumerate(questions, start=1):
        q.status = "unanswered"
        envelope = Envelope(game_id=game.id, sector=sector, kind="single")
        db.session.add(envelope)
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
    return game


def aired_archive_game(app) -> int:
    """A 2023 season whose one game aired on 30.12.2023 and is closed, with its one question
    «Какой город назвали северной столицей?» (answer «Санкт-Петербург»), written in ``app``'s
    database (the archive's browser tests). Returns the game's id."""
    from webapp.tasks.outbox import commit

    with app.app_context():
        season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
        db.session.add(season)
        (q,) = closed_game(
            season,
            datetime(2023, 12, 30, 18, tzinfo=UTC),
            ["Какой город назвали северной столицей?"],
            answer="Санкт-Петербург",
        )
        commit()
        return db.session.scalar(db.select(Game.id))
