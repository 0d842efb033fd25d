"""The catalogue of Sova's signals: every Blinker signal is declared here, and only here.

A signal tells a later feature that something happened in an earlier one, so that it can
do its own part in the same transaction, where the earlier feature may not import it
(features depend one way: ``docs/architecture.md``). A feature that needs to *read*
another's data does not ask through a signal: it reads from a room above both (a
question's public history, ``webapp.archive.history``) or is handed what it needs (the
close of a game is handed what the game owes, ``webapp.games.close``; a new day of air or
donor is handed the prizes' re-issue of the gift agreements, whose count the producer is
shown and the donor's change audits).

Receivers are connected by the app's register step (``webapp.app.register_signals``),
never by importing a module for its side effect. Each entry says who sends it, with what,
and who answers."""

from __future__ import annotations

from blinker import Namespace

_signals = Namespace()

#: ``best_player_awarded.send(game, prize=, vote_id=, winner_name=, chosen=, overridden=,
#: reason=, user_id=)``, sent by the prizes feature when a new best_player_of_game prize was
#: made; the votes feature keeps the decision for the audit (``VoteAward``), in the same
#: transaction (``webapp.votes.receivers``).
best_player_awarded = _signals.signal("sova.best-player-awarded")
