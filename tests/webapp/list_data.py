"""Games and prizes in numbers for the tests of the paged lists (the games' index, a
season's page, the prizes' list) and of their query counts."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from webapp.extensions import db
from webapp.games.models import Game, Season
from webapp.prizes.models import GiftAgreement, Prize
from webapp.submissions.models import QuestionAuthor


def add_seasons(n: int) -> None:
    """``n`` more seasons (the games' index lists them, newest first). Commits."""
    start = db.session.scalar(db.select(db.func.count(Season.id)))
    for k in range(n):
        db.session.add(
            Season(
                name=f"Сезон {start + k + 1}",
                ruleset="2023",
                currency="BYN",
                timezone="Europe/Minsk",
            )
        )
    db.session.commit()


def add_games_and_prizes(qids: list[int]) -> None:
    """One more game of the first season (made if need be) per question id, a day apart,
    closed, each with a prize for an unanswered question to the question's first author
    (every other with its gift agreement). Commits."""
    season = db.session.scalar(db.select(Season).order_by(Season.id))
    if season is None:
        season = Season(name="2026", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
        db.session.add(season)
        db.session.flush()
    authors = dict(
        db.session.execute(
            db.select(QuestionAuthor.question_id, QuestionAuthor.author_id).where(
                QuestionAuthor.question_id.in_(qids)
            )
        ).all()
    )
    start = db.session.scalar(db.select(db.func.count(Game.id)))
    for k, qid in enumerate(qids):
        day = date(2026, 1, 3) + timedelta(days=start + k)
        game = Game(
            season_id=season.id,
            kind="qualifying",
            air_date=day,
            air_at=datetime.combine(day, time(), tzinfo=UTC),  # NOT NULL on PostgreSQL
            status="closed",
        )
        db.session.add(game)
        db.session.flush()
        prize = Prize(
            game_id=game.id,
            question_id=qid,
            author_id=authors[qid],
            kind="unanswered_question",
            amount=Decimal("100.00"),
            currency="BYN",
            rule="000_90d7c8192601ed3a.txt §4.2",
        )
        db.session.add(prize)
        db.session.flush()
        if k % 2:
            db.session.add(
                GiftAgreement(
                    prize_id=prize.id, season_id=season.id, seq=prize.id, number=f"Д-{prize.id}"
                )
            )
    db.session.commit()
