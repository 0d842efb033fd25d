"""The archive tests' app: with the prizes' settings (the commission that closing a game
names), since their games are played and closed."""

from __future__ import annotations

import pytest

from tests.helpers import PRIZE_APP


@pytest.fixture
def app(make_app):
    """The prizes' settings (the commission that closing a game names)."""
    app = make_app(**PRIZE_APP)
    with app.app_context():
        yield app
