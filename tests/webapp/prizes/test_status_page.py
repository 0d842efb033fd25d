"""The author's status page after a game: played, prize owed, paid — in that order and
only once the game has aired."""

from __future__ import annotations

from datetime import UTC, date, datetime

from tests.helpers import VIEWERS_WIN
from webapp.extensions import db
from webapp.jobs import commit
from webapp.prizes.models import Prize
from webapp.prizes.operations import change_status, mark_paid
from webapp.submissions.queries import public_history


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
