"""The on-air tests' game: a 2023 game ready to start on a filled table."""

from __future__ import annotations

import pytest

from tests.webapp.games import helpers as h
from webapp.games.operations import assign_envelopes


@pytest.fixture
def game(app):
    """A 2023 game of «Команда Анны» (blitz in 4, sector 13 in 13, no superblitz) on a filled table;
    sector 2's author gave no consent, every other author did."""
    h.approved_questions(15)
    table = {"blitz": 4, "superblitz": None, "sector13": 13}
    g = h.game(h.season(), team_=h.team(), table=table, status="draft")
    assign_envelopes(g)
    for env in g.envelopes:
        for eq in env.questions:
            eq.question.consent_on_air = env.sector != 2
            eq.question.comment = f"Комментарий {eq.question_id}"
    g.status = "ready"
    h.startable(g)
    h.commit()
    return g
