"""The prizes tests' ``app`` (``tests.helpers.PRIZE_APP``) and ``drain`` (without the
authors' e-mails); games played to the end: the ``played`` fixture of tests/fixtures/games.py."""

from __future__ import annotations

import pytest

from tests.helpers import PRIZE_APP, drain_outbox


@pytest.fixture
def app(make_app):
    """The shared ``app`` fixture plus the prize commission's members."""
    app = make_app(**PRIZE_APP)
    with app.app_context():
        yield app


@pytest.fixture
def drain(app):
    """``tests.helpers.drain_outbox`` without the authors' notification e-mails
    (``notify.*``: not this feature's; marked sent)."""
    return lambda: drain_outbox(app, skip=("notify.",))
