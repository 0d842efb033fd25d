"""The signal catalogue: every signal is declared in ``webapp.core.signals`` and its
receivers are connected by the app's register step, not by importing a module."""

from __future__ import annotations

import re
from pathlib import Path

import webapp
from webapp.core import signals
from webapp.prizes.operations import reissue_for_new_air_date, reissue_for_new_donor
from webapp.votes.queries import best_player_vote
from webapp.votes.receivers import keep_decision


def test_no_signal_is_declared_outside_the_catalogue():
    root = Path(webapp.__file__).parent
    declared = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if re.search(r"\bNamespace\(|\.signal\(\"", path.read_text("utf-8"))
    ]
    assert declared == ["core/signals.py"]


def test_the_app_connects_each_signal_to_its_receivers(app):
    def receivers(signal) -> list:
        return list(signal.receivers_for(object()))  # every receiver: none is per sender

    assert receivers(signals.best_player_awarded) == [keep_decision]


def test_the_game_s_vote_is_handed_to_the_prizes_award_page_not_asked_through_a_signal(app):
    """Signals only notify: the prizes' award page gets the vote's read from the app."""
    assert app.extensions["sova_best_player_vote"] is best_player_vote
    assert not hasattr(signals, "best_player_vote")


def test_the_agreements_re_issue_is_handed_to_the_games_pages_not_answered_through_a_signal(app):
    """A new day of air or donor re-issues the unsigned gift agreements, whose count the
    producer is shown: the games' pages get the prizes feature's operation from the app."""
    assert app.extensions["sova_reissue_for_new_air_date"] is reissue_for_new_air_date
    assert app.extensions["sova_reissue_for_new_donor"] is reissue_for_new_donor
    assert not hasattr(signals, "air_date_changed")
    assert not hasattr(signals, "donor_changed")
