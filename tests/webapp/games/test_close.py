"""Closing a game is games' operation (``webapp.games.close``): games moves the game to
``closed`` through its state machine and asks the prizes feature what the closed game owes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import webapp
from tests.helpers import VIEWERS_WIN
from tests.webapp.games import helpers as h
from webapp.extensions import db
from webapp.games.close import close_game
from webapp.games.models import Game
from webapp.games.operations import GameConflict, move_game
from webapp.prizes.models import Prize
from webapp.prizes.operations import owed_on_close


def test_closing_asks_prizes_with_the_final_state_and_then_closes(app, played):
    game = db.session.get(Game, played("qualifying", VIEWERS_WIN))
    asked = []

    def owed(g, state, user_id):
        # what the closed game owes is asked before the game is closed, in one transaction
        asked.append((g.id, g.status, state["score"], len(state["unanswered"]), user_id))
        return owed_on_close(g, state, user_id)

    prizes = close_game(game, None, owed)
    assert asked == [(game.id, "finished", "0:6", 6, None)]
    assert game.status == "closed" and game.closed_at is not None
    assert {(p.kind, p.status) for p in prizes} == {("unanswered_question", "owed")}
    assert len(prizes) == 7  # six unanswered questions, the first by two co-authors
    assert {str(p.amount) for p in prizes} == {"300.00", "150.00"}
    outcomes = sorted(eq.outcome for env in game.envelopes for eq in env.questions)
    assert outcomes == ["unanswered"] * 6 + ["unasked"] * 7


def test_closing_twice_asks_for_what_the_closed_game_owes_and_makes_nothing(app, played):
    game = db.session.get(Game, played("qualifying", VIEWERS_WIN))
    first = close_game(game, None, owed_on_close)
    states = []

    def owed(g, state, user_id):
        states.append(state)
        return owed_on_close(g, state, user_id)

    again = close_game(game, None, owed)
    assert states == [None]
    assert [p.id for p in again] == [p.id for p in first]
    assert db.session.scalar(db.select(db.func.count()).select_from(Prize)) == len(first)


def test_a_game_not_finished_is_refused_before_prizes_are_asked(app):
    game = h.game(h.season(), status="ready")
    h.commit()

    def owed(g, state, user_id):
        raise AssertionError("nothing is owed by a game that is not closed")

    with pytest.raises(GameConflict) as info:
        close_game(game, None, owed)
    assert str(info.value) == (
        f"игра {game.id} — стол заполнен: закрыть можно только сыгранную игру"
    )
    assert game.status == "ready" and game.closed_at is None


def test_every_status_change_goes_through_the_state_machine(app, played):
    game = db.session.get(Game, played("qualifying", VIEWERS_WIN))
    close_game(game, None, owed_on_close)
    with pytest.raises(GameConflict) as info:
        move_game(game, "live")
    assert str(info.value) == (
        f"игра {game.id}: переход игры «closed» → «live» запрещён; "
        "из «closed» можно: ничего (конечный статус)"
    )
    assert game.status == "closed"
    move_game(game, "closed")  # no change
    assert game.status == "closed"


def test_no_code_sets_a_games_status_but_move_game():
    root = Path(webapp.__file__).parent
    setters = [
        (str(path.relative_to(root)), line.strip())
        for path in sorted(root.rglob("*.py"))
        for line in path.read_text("utf-8").splitlines()
        if re.search(r"\bgame\.status\s*=[^=]", line)
    ]
    assert setters == [("games/operations/common.py", "game.status = to")]  # in move_game
