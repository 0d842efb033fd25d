"""A game's page lists its questions in the order asked: by the rounds the host recorded
(not by sector), a blitz as one numbered question with parts."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.webapp.archive.rows import closed_game
from webapp.extensions import db
from webapp.games.models import Envelope, EnvelopeQuestion, Game, Season

#: The viewers win 0:6; the arrow lands on sectors 5, 1, 3, 2, 4, 6 in turn.
SPINS = [5, 1, 3, 2, 4, 6]
EVENTS = [
    e for s in SPINS for e in ({"type": "spin", "sector": s}, {"type": "answer", "correct": False})
]


def test_questions_in_the_order_of_the_rounds(app, api, played, client):  # noqa: F811
    game_id = played("qualifying", EVENTS)
    assert api("post", f"/api/v1/games/{game_id}/close", role="producer").status_code == 200
    by_sector = dict(
        db.session.execute(
            db.select(Envelope.sector, EnvelopeQuestion.question_id)
            .join(EnvelopeQuestion, EnvelopeQuestion.envelope_id == Envelope.id)
            .where(Envelope.game_id == game_id, EnvelopeQuestion.outcome == "unanswered")
        ).all()
    )
    page = client.get(f"/archive/games/{game_id}").get_data(as_text=True)
    shown = [int(i) for i in re.findall(r'<article class="archive-question" id="q(\d+)">', page)]
    assert shown == [by_sector[s] for s in SPINS]
    assert re.findall(r"<h2>Вопрос (\S+)</h2>", page) == ["1", "2", "3", "4", "5", "6"]


def test_a_blitz_is_one_numbered_question_with_parts(app, client):  # noqa: F811
    season = Season(name="Сезон", ruleset="2023", currency="BYN", timezone="Europe/Minsk")
    db.session.add(season)
    (single,) = closed_game(season, datetime(2023, 3, 1, 18, tzinfo=UTC), ["Одиночный"])
    game = db.session.scalar(db.select(Game))
    game.table_blitz = 2
    blitz = Envelope(game_id=game.id, sector=2, kind="blitz")
    db.session.add(blitz)
    db.session.flush()
    parts = closed_game(season, datetime(2023, 3, 2, 18, tzinfo=UTC), ["Б1", "Б2", "Б3"])
    for slot, q in enumerate(parts, start=1):  # moved into the first game's blitz envelope
        eq = db.session.scalar(db.select(EnvelopeQuestion).filter_by(question_id=q.id))
        eq.envelope_id, eq.game_id, eq.slot = blitz.id, game.id, slot
    db.session.commit()
    page = client.get(f"/archive/games/{game.id}").get_data(as_text=True)
    assert re.findall(r"<h2>Вопрос (\S+)</h2>", page) == ["1", "2.1", "2.2", "2.3"]
    assert page.index(f'id="q{single.id}"') < page.index(f'id="q{parts[0].id}"')
