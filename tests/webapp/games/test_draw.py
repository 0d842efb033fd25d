"""2009 sector 13: the computer's draw among live questions (002_e025d5ded135c1c4.txt §1.4.1)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.webapp.games import helpers as h
from webapp.core.models import utcnow
from webapp.extensions import db
from webapp.games.console import console_payload
from webapp.games.models import Sector13Draw
from webapp.games.operations import (
    assign_envelopes,
    live_candidates,
    record_event,
    repeat_draw,
    undo_last_event,
)

TABLE = {"blitz": 4, "superblitz": None, "sector13": 13}


def test_repeat_draw_is_the_seeded_uniform_choice():
    assert repeat_draw("abc", [3, 1, 2]) == random.Random("abc").choice([1, 2, 3])
    assert repeat_draw("abc", []) is None
    counts = Counter(repeat_draw(f"seed-{n}", [10, 20, 30]) for n in range(3000))
    assert set(counts) == {10, 20, 30}
    assert all(900 < c < 1100 for c in counts.values())


@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=30, unique=True),
       st.text(min_size=1, max_size=40))
@settings(max_examples=200)
def test_the_draw_only_ever_picks_a_candidate(candidates, seed):
    assert repeat_draw(seed, candidates) in candidates
    assert repeat_draw(seed, candidates) == repeat_draw(seed, list(reversed(candidates)))


def _game_2009():
    h.approved_questions(15)
    g = h.game(h.season("2009"), table=TABLE, status="draft")
    assign_envelopes(g)
    return g


def test_spin_on_sector13_draws_among_earlier_live_questions(app):
    g = _game_2009()
    before = h.approved_questions(3, channel="live")
    rejected = h.approved_questions(1, channel="live")[0]
    rejected.status = "rejected"
    in_lane = h.approved_questions(1, channel="live")[0]
    in_lane.status = "in_review"
    late = h.approved_questions(1, channel="live")[0]
    late.created_at = utcnow() + timedelta(minutes=5)  # arrives after the spin
    for k, q in enumerate(before + [rejected, in_lane]):
        q.created_at = utcnow() - timedelta(minutes=10 - k)
    db.session.flush()
    record_event(g, {"type": "spin", "sector": 13}, None)
    draw = db.session.scalar(db.select(Sector13Draw))
    expected = sorted([q.id for q in before] + [in_lane.id])
    assert draw.candidates == expected
    assert late.id not in draw.candidates and rejected.id not in draw.candidates
    assert draw.question_id == repeat_draw(draw.seed, draw.candidates)
    assert len(draw.seed) == 32 and draw.spun_at.tzinfo is not None
    drawn = db.session.get(type(before[0]), draw.question_id)
    env13 = next(e for e in g.envelopes if e.sector == 13)
    if drawn.status == "assigned":  # an approved question goes into the envelope
        assert [eq.question_id for eq in env13.questions] == [drawn.id]
    else:
        assert drawn.id == in_lane.id and env13.questions == []
    current = console_payload(g)["current"]
    assert (current["sector"], current["text"]) == (13, drawn.text)
    assert current["draw"] == {"seed": draw.seed, "candidates": 4, "question_id": drawn.id}


def test_a_question_after_the_spin_is_never_drawn(app):
    g = _game_2009()
    early = h.approved_questions(1, channel="live")[0]
    early.created_at = utcnow() - timedelta(seconds=1)
    lates = h.approved_questions(5, channel="live")
    for q in lates:
        q.created_at = utcnow() + timedelta(seconds=30)
    db.session.flush()
    for _ in range(20):  # spin, undo, spin again: a fresh seed each time, same single candidate
        record_event(g, {"type": "spin", "sector": 13}, None)
        draw = db.session.scalar(db.select(Sector13Draw).where(
            Sector13Draw.cancelled_at.is_(None)))
        assert (draw.candidates, draw.question_id) == ([early.id], early.id)
        undo_last_event(g)
    assert early.status == "approved"  # back in the pool after the undo
    rows = db.session.scalars(db.select(Sector13Draw)).all()
    assert len(rows) == 20 and all(r.cancelled_at is not None for r in rows)
    assert len({r.seed for r in rows}) == 20
    assert live_candidates(utcnow()) == [early.id]


def test_spin_elsewhere_draws_nothing(app):
    g = _game_2009()
    h.approved_questions(2, channel="live")
    record_event(g, {"type": "spin", "sector": 1}, None)
    assert db.session.scalar(db.select(db.func.count()).select_from(Sector13Draw)) == 0
