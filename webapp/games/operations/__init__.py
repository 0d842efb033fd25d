"""Writes for game day, one room per seam: :mod:`.table` (the table and its envelopes), :mod:`.play` (the console's events, the
protocol file), :mod:`.draw` (the 2009 sector-13 draw); :mod:`.common` holds the refusals
and labels they share and :func:`move_game`, the one change of a game's status, :mod:`.start` the start permission. Reads live in
:mod:`webapp.games.queries`; seasons, teams, series and creating a game live in the season's
room (:mod:`webapp.games.season.operations`), which builds on this package, never the other
way.

The public names are re-exported here (``from webapp.games.operations import X``); a private
helper is imported from its submodule.
Operations never commit: the request edge (:mod:`webapp.core.edge`) or the CLI command does.
"""

from __future__ import annotations

from webapp.games.operations.air import AirDateReissue, air_time_utc, set_air_time  # noqa: F401
from webapp.games.operations.common import (  # noqa: F401
    FIELD_LABELS,
    FIRST_AIR_YEAR,
    LAST_AIR_YEAR,
    SECTORS,
    STATUS_LABELS,
    GameConflict,
    GameError,
    bad_line_chars,
    move_game,
    status_label,
)
from webapp.games.operations.draw import (  # noqa: F401
    SECTOR13_CARD,
    air_day_start,
    draw_card,
    draw_sector13,
    repeat_draw,
    request_draw,
    sector13_card_key,
    sector13_pool,
)
from webapp.games.operations.pace import (  # noqa: F401
    game_rate,
    host_choices,
    host_pace,
    recorded_readings,
    set_game_host,
)
from webapp.games.operations.play import (  # noqa: F401
    game_context,
    game_rules,
    game_state,
    import_protocol,
    protocol,
    record_event,
    rules_note,
    rules_shown,
    sector13_options_used,
    series_best,
    undo_last_event,
)
from webapp.games.operations.start import (  # noqa: F401
    START_OK,
    allow_start,
    envelopes_rendered,
    start_confirmation,
    start_refusal,
)
from webapp.games.operations.table import (  # noqa: F401
    MAIN_CHANNELS_EXCLUDED,
    MAX_COPIES,
    TOPIC_EDITABLE,
    FillReport,
    assign_envelopes,
    check_table,
    fill_table,
    lock_table,
    missing_image_files,
    replace_slot,
    request_envelopes,
    set_reading_budget,
    set_topic,
    slots_for,
    swap_slots,
    table_plan,
    unlock_table,
    use_reserve,
)
