"""Producer and host pages: seasons, games, the table, envelopes, the host console.

A package by screen (this module re-exports every name, so callers import from
``webapp.games.views``; every module adds its routes to the one blueprint ``bp``, endpoints
``games.<function>``): ``common`` (the blueprint, the documents' labels and roles, the
shared helpers), ``planning`` (the index, seasons, series, teams, new games, a game's team
and series), ``game_page`` (a game's page, its documents, the start permission, filling
the table, the envelope print, the protocol file), ``table_builder`` (the table builder),
``host_console`` (the host console and undo), ``filters`` (template filters)."""

from __future__ import annotations

from webapp.games.views.common import (  # noqa: F401
    DOCUMENT_LABELS,
    DOCUMENT_ROLES,
    DOWNLOAD_TEXT,
    bp,
    download_text,
    downloadable_documents,
    game_or_404,
    wants_json,
)
from webapp.games.views.filters import (  # noqa: F401
    TIMEZONE_LABELS,
    game_kind_filter,
    game_status_filter,
    rule_ref_filter,
    season_time_filter,
    sector_label,
    timezone_label_filter,
    topic_label_filter,
)
from webapp.games.views.game_page import (  # noqa: F401
    air_time,
    allow_start_view,
    assign,
    document,
    documents_json,
    envelopes,
    game,
    protocol_file,
    protocol_import,
)
from webapp.games.views.host_console import (  # noqa: F401
    console,
    undo,
)
from webapp.games.views.planning import (  # noqa: F401
    attach_form_for,
    attach_game,
    index,
    new_game,
    new_season,
    new_series,
    teams,
)
from webapp.games.views.table_builder import (  # noqa: F401
    table,
    table_lock,
    table_replace,
    table_swap,
    table_topic,
)
