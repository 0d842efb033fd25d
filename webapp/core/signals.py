"""The catalogue of Sova's signals: every Blinker signal is declared here, and only here.

A signal tells a later feature that something happened in an earlier one, so that it can
do its own part in the same transaction, where the earlier feature may not import it
(features depend one way: ``docs/architecture.md``). A feature that needs to *read*
another's data does not ask through a signal: it reads from a room above both (a
question's public history, ``webapp.archive.history``) or is handed what it needs (the
close of a game is handed what the game owes, ``webapp.games.close``).

Receivers are connected by the app's register step (``webapp.app.register_signals``),
never by importing a module for its side effect. Each entry says who sends it, with what,
and who answers."""

from __future__ import annotations

from blinker import Namespace

_signals = Namespace()

#: ``air_date_changed.send(game, user_id=)``, sent by ``webapp.games.operations.set_air_time``
#: when the day a game airs (which its gift agreements print) changed. The prizes feature
#: issues the game's unsigned agreements again (``webapp.prizes.receivers``) and returns
#: ``{"reissued": int, "signed": int}``, so the producer is told what was issued again and
#: which signed agreements keep the old date.
air_date_changed = _signals.signal("sova.game-air-date-changed")

#: ``donor_changed.send(season, user_id=)``, sent by
#: ``webapp.games.season.operations.set_donor`` when the season's donor was changed. The
#: prizes feature issues the season's unsigned gift agreements again so that they name the
#: new donor (``webapp.prizes.receivers``) and returns how many it issued (audited with the
#: change).
donor_changed = _signals.signal("sova.season-donor-changed")

#: ``best_player_awarded.send(game, prize=, vote_id=, winner_name=, chosen=, overridden=,
#: reason=, user_id=)``, sent by the prizes feature when a new best_player_of_game prize was
#: made; the votes feature keeps the decision for the audit (``VoteAward``), in the same
#: transaction (``webapp.votes.receivers``).
best_player_awarded = _signals.signal("sova.best-player-awarded")
