"""Closing a game: the last step of its life (:mod:`webapp.domain.game_states`), owned by
games. It sits above the season's events because closing appends the game's result to its
season in the same transaction. What the closed game owes is the prizes feature's to say,
and prizes builds on games: the caller hands its answer in as ``owed`` (the prizes' pages
and the API pass :func:`webapp.prizes.operations.owed_on_close`), so games never imports
prizes and prizes never sets a game's status."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from webapp.core.models import utcnow
from webapp.domain.books import rule_reference
from webapp.domain.donor import quoted
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import GameConflict, game_state, move_game, status_label
from webapp.games.queries import envelope_outcomes
from webapp.games.season.events import add_game_result
from webapp.submissions.models import set_status

T = TypeVar("T")

#: What a closed game owes, asked as ``owed(game, state, user_id)``: ``state`` is the final
#: replayed state as the game closes (the owed rows are made then, in the same
#: transaction), or None for a game closed before (what it owes already, nothing made).
Owed = Callable[[Game, dict | None, int | None], list[T]]


def close_game(game: Game, user_id: int | None, owed: Owed[T]) -> list[T]:
    """Close a finished game (idempotent: closing twice returns what it owes, made once).

    Every envelope question gets its outcome from the replay: ``unanswered`` (asked, not
    answered right: its authors are owed the prize — 2023 §4.11.1, 2009 §1.2.2),
    ``answered``, or ``unasked`` (never asked — back to the approved pool). Played
    questions go ``played`` → ``answered`` / ``unanswered`` with the air date; the season
    gets the game's result; ``owed`` makes what the closed game owes; then the game is
    ``closed``. Raises GameConflict (a game not finished, a season without its prize per
    unanswered question, the season's refusal of the result) before anything is written."""
    if game.status == "closed":
        return owed(game, None, user_id)
    if game.status != "finished":
        raise GameConflict(
            f"игра {game.id} — {status_label(game.status)}: закрыть можно только сыгранную игру"
        )
    season = game.season
    if season.unanswered_prize is None:
        raise GameConflict(
            f"у сезона {quoted(season.name)} не задан приз за невзятый вопрос "
            f"(в правилах {season.ruleset} г. суммы нет, {rule_reference(season.book.unanswered_rule)}): "
            f"задайте его на странице сезона (Игры → сезон {quoted(season.name)} → "
            "«Приз за невзятый вопрос») и закройте игру снова"
        )
    state = game_state(game)

    add_game_result(game, state, user_id)  # the season's result, same transaction (409)
    for _sector, _slot, eq, outcome in envelope_outcomes(game, state):
        q = eq.question
        eq.outcome = outcome
        if eq.outcome == "unasked":
            set_status(
                q,
                "approved",
                by_user_id=user_id,
                reason=f"не сыгран в игре {game.id}: возвращён в пул",
            )
        else:
            # the question state machine: assigned → played → answered / unanswered.
            q.aired_on = game.air_date
            set_status(q, "played", by_user_id=user_id, reason=f"сыгран в игре {game.id}")
            set_status(
                q,
                eq.outcome,
                by_user_id=user_id,
                reason=f"игра {game.id}: "
                + ("не отвечен" if eq.outcome == "unanswered" else "отвечен"),
            )
    made = owed(game, state, user_id)
    move_game(game, "closed")
    game.closed_at = utcnow()
    db.session.flush()
    return made
