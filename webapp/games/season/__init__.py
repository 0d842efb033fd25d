"""The season's room: a season's teams, its events and the state the season engine
(:mod:`webapp.domain.season`) derives from them, the producer's season page and the viewers'.

One module per floor, top to bottom (import-linter keeps the order): :mod:`.views` (the
blueprint ``seasons``: the producer's season page and its forms' posts, the public season
page), :mod:`.forms`, :mod:`.events` (the season's event log: its teams, the producer's
events, a closed game's result), :mod:`.operations` (seasons, teams, series, creating a game
and attaching it to its team and series, the season's prizes and donor), :mod:`.refusals` (the
conflict the season's rules raise and the check of a new game), :mod:`.queries` (reads and
the replay), :mod:`.models` (the tables ``season_team``, ``season_events`` and the audits).

The season builds on game day (:mod:`webapp.games.operations`: the refusals, labels and
money parsing it shares); game day reads the season only through :mod:`.queries` (the rules
in force, ``series_best``). The ``Season``, ``Series``, ``Team`` and ``Game`` tables stay in
:mod:`webapp.games.models`.
"""
