"""The author's status page after a game: played, prize owed, paid — in that order and
only once the game has aired."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from tests.helpers import VIEWERS_WIN
from webapp.archive.history import public_history
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.models import Game
from webapp.prizes.models import Prize
from webapp.prizes.operations import change_status, mark_paid
from webapp.tasks.outbox import commit


def test_prize_owed_then_paid_on_the_status_page(app, api, played, client):
    game = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game}/close", role="producer").status_code == 200
    prize = db.session.scalars(db.select(Prize).order_by(Prize.id)).first()
    question = prize.question
    assert question.aired_on == date(2023, 12, 30)
    statuses = [h["status"] for h in public_history(question)]
    assert statuses[-2:] == ["used", "prize_owed"]
    for step in ("details_requested", "details_received", "agreement_issued", "signed"):
        change_status(prize, step, None)
    mark_paid(prize, date(2024, 1, 15), "п/п 42", None)
    commit()
    page = client.get(f"/status/{question.public_token}").get_data(as_text=True)
    assert "Вам положен денежный приз" in page and "Приз выплачен" in page
    assert [h["status"] for h in public_history(question)][-3:] == ["used", "prize_owed", "paid"]
    # before the air time nothing of the game shows, prizes included
    assert "prize_owed" not in [
        h["status"] for h in public_history(question, now=datetime(2023, 12, 1, tzinfo=UTC))
    ]


def test_a_game_recorded_ahead_is_dated_by_its_air_on_the_status_page(app, api, played):
    """Closed the day before it airs: the author sees the question played, and the prize
    owed, on the day of the broadcast, not on the day the producer closed the game."""
    game_id = played("qualifying", VIEWERS_WIN)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    game = db.session.get(Game, game_id)
    game.air_at = utcnow() + timedelta(days=1)
    commit()
    question = db.session.scalars(db.select(Prize).order_by(Prize.id)).first().question
    history = public_history(question, now=game.air_at + timedelta(hours=1))
    assert [h["status"] for h in history][-2:] == ["used", "prize_owed"]
    assert [h["at"] for h in history][-2:] == [game.air_at, game.air_at]
    assert all(h["at"] < game.air_at for h in history[:-2])  # received, accepted: as they were
